import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ACCESS_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure } from '../../platform/adapters/dynamo-client';
import type { SubscriptionRecord, SubscriptionStore } from '../ports';
import { queryWalletItems, s, walletPartition, type Item } from './access-items';

/** How often extend and cancel re-read and retry after another writer changed the item under them. */
const MAX_ATTEMPTS = 10;

const key = (wallet: string, plan: string): Item => ({ pk: { S: `SUB#${wallet.toLowerCase()}#${plan}` } });

function fromItem(item: Item): SubscriptionRecord {
  const cancelledAt = item['cancelledAt']?.S;
  return {
    wallet: item['wallet']?.S ?? '',
    plan: item['plan']?.S ?? '',
    status: item['status']?.S === 'cancelled' ? 'cancelled' : 'active',
    startedAt: item['startedAt']?.S ?? '',
    periodEnd: item['periodEnd']?.S ?? '',
    ...(cancelledAt !== undefined ? { cancelledAt } : {}),
    // A DynamoDB set cannot be empty: absent means none.
    transfers: item['txs']?.SS ?? [],
  };
}

/**
 * Subscriptions in the access table, one item per wallet and plan (`pk = SUB#<wallet>#<plan>`,
 * listed per wallet on gsi1); the wallet is stored lower-case. Extending is read, decide, then
 * one write conditioned on what was read (optimistic concurrency): the new end is the later of
 * now and the current end, a maximum no single UpdateItem expression can take.
 */
export function dynamoSubscriptions(client: DynamoDBClient, table = tableName(ACCESS_TABLE)): SubscriptionStore {
  const get = async (wallet: string, plan: string): Promise<SubscriptionRecord | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: key(wallet, plan), ConsistentRead: true }));
    return out.Item ? fromItem(out.Item) : undefined;
  };

  return {
    get,

    async list(wallet) {
      return (await queryWalletItems(client, table, wallet, 'SUB#', { newestFirst: false })).map(fromItem);
    },

    async extend(wallet, plan, transfer, periodSeconds, now, opts) {
      const lower = wallet.toLowerCase();
      const tx = transfer.toLowerCase();
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await get(lower, plan);
        // Checked first: a transfer already applied answers the same whatever happened since (a cancel included).
        if (current?.transfers.includes(tx)) return { kind: 'already_applied', record: current };
        if (current?.status === 'cancelled' && !opts.reactivate) return { kind: 'cancelled', record: current };

        const currentEnd = current ? Date.parse(current.periodEnd) : Number.NaN;
        const lapsed = !(currentEnd > now.getTime());
        // Paid time is never lost: a period bought before the current one ends starts where it ends.
        const periodEnd = new Date((lapsed ? now.getTime() : currentEnd) + periodSeconds * 1000).toISOString();
        // startedAt is when this run of access began: set on creation, and again when a cancelled
        // subscription is started after its paid time ran out (a restart within paid time keeps it).
        const restart = !current || (current.status === 'cancelled' && lapsed);
        const startedAt = restart ? now.toISOString() : current.startedAt;

        const values: Item = {
          ':wallet': s(lower),
          ':plan': s(plan),
          ':active': s('active'),
          ':startedAt': s(startedAt),
          ':end': s(periodEnd),
          ':gsi1pk': s(walletPartition(lower)),
          ':gsi1sk': s(`SUB#${plan}`),
          ':txSet': { SS: [tx] },
          ...(current ? { ':readEnd': s(current.periodEnd), ':readStatus': s(current.status), ':tx': s(tx) } : {}),
        };
        try {
          const out = await client.send(
            new UpdateItemCommand({
              TableName: table,
              Key: key(lower, plan),
              // Status becomes active either way: it was active, or this is a reactivating start,
              // which also drops the cancellation (removing an absent attribute is a no-op).
              UpdateExpression:
                'SET #wallet = :wallet, #plan = :plan, #status = :active, startedAt = :startedAt, periodEnd = :end, ' +
                'gsi1pk = :gsi1pk, gsi1sk = :gsi1sk ADD txs :txSet REMOVE cancelledAt',
              // The write holds only if the item is still what the decision was made on:
              // - absent when it was absent (two first payments must not both start from now);
              // - the same end (another extend moves it, so its period is never overwritten),
              //   the same status (a cancel in between must not be undone by a plain renewal),
              //   and this transfer still not applied (a concurrent retry of it counts once).
              ConditionExpression: current
                ? 'periodEnd = :readEnd AND #status = :readStatus AND NOT contains(txs, :tx)'
                : 'attribute_not_exists(pk)',
              ExpressionAttributeNames: { '#wallet': 'wallet', '#plan': 'plan', '#status': 'status' },
              ExpressionAttributeValues: values,
              ReturnValues: 'ALL_NEW',
            }),
          );
          if (!out.Attributes) throw new Error(`extend of ${lower} ${plan} returned no item`);
          return { kind: 'extended', record: fromItem(out.Attributes) };
        } catch (e) {
          if (!isConditionFailure(e)) throw e;
          // Someone else wrote first: decide again on what they left.
        }
      }
      throw new Error(`extend of ${lower} ${plan} lost ${MAX_ATTEMPTS} races in a row`);
    },

    async cancel(wallet, plan, at) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        try {
          const out = await client.send(
            new UpdateItemCommand({
              TableName: table,
              Key: key(wallet, plan),
              UpdateExpression: 'SET #status = :cancelled, cancelledAt = :at',
              // Only an active subscription is cancelled (which also means it exists: no stub is
              // created), so the first cancellation's time is the one kept.
              ConditionExpression: '#status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':cancelled': s('cancelled'), ':active': s('active'), ':at': s(at.toISOString()) },
              ReturnValues: 'ALL_NEW',
            }),
          );
          if (!out.Attributes) throw new Error(`cancel of ${wallet} ${plan} returned no item`);
          return { kind: 'cancelled', record: fromItem(out.Attributes) };
        } catch (e) {
          if (!isConditionFailure(e)) throw e;
          const existing = await get(wallet, plan);
          if (!existing) return { kind: 'not_found' };
          if (existing.status === 'cancelled') return { kind: 'already_cancelled', record: existing };
          // Active again: a reactivating start landed between the write and the read; cancel that.
        }
      }
      throw new Error(`cancel of ${wallet} ${plan} lost ${MAX_ATTEMPTS} races in a row`);
    },
  };
}
