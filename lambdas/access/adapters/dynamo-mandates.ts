import { GetItemCommand, PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ACCESS_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure } from '../../platform/adapters/dynamo-client';
import type { MandateDocument, MandateRecord, MandateStore, SpendResult } from '../ports';
import { n, queryWalletItems, s, walletPartition, type Item } from './access-items';

const key = (id: string): Item => ({ pk: { S: `MANDATE#${id}` } });

/**
 * A condition can fail only because of the item's state, and every clause of spend's and
 * revoke's conditions only ever turns false (spent and occurrences grow, txs grows, status goes
 * to revoked), so a re-read always explains a failure; the bound is a guard against surprises.
 */
const MAX_ATTEMPTS = 5;

/** Expressions name attributes through `#` so that none can collide with a DynamoDB reserved word (`status` is one). */
const NAMES = { '#status': 'status', '#wallet': 'wallet', '#revokedAt': 'revokedAt' } as const;
const SPEND_NAMES = { '#status': 'status', '#spent': 'spent', '#occ': 'occurrences', '#txs': 'txs', '#last': 'lastSpentAt' } as const;

function toItem(record: MandateRecord): Item {
  const wallet = record.mandate.wallet.toLowerCase();
  const transfers = [...new Set(record.transfers.map((t) => t.toLowerCase()))];
  return {
    ...key(record.id),
    gsi1pk: s(walletPartition(wallet)),
    gsi1sk: s(`MANDATE#${record.createdAt}#${record.id}`),
    id: s(record.id),
    wallet: s(wallet),
    // The signed document as JSON text: a map attribute would turn its integers into Numbers and
    // need rules for undefined members; a string gives back exactly what was stored.
    doc: s(JSON.stringify(record.mandate)),
    signature: s(record.signature),
    status: s(record.status),
    createdAt: s(record.createdAt),
    ...(record.revokedAt !== undefined ? { revokedAt: s(record.revokedAt) } : {}),
    spent: n(record.spent),
    occurrences: n(record.occurrences),
    // A DynamoDB set cannot be empty: no transfers yet means no attribute.
    ...(transfers.length > 0 ? { txs: { SS: transfers } } : {}),
    ...(record.lastSpentAt !== undefined ? { lastSpentAt: s(record.lastSpentAt) } : {}),
  };
}

function str(item: Item, name: string): string | undefined {
  return item[name]?.S;
}

function fromItem(item: Item): MandateRecord {
  const revokedAt = str(item, 'revokedAt');
  const lastSpentAt = str(item, 'lastSpentAt');
  return {
    id: str(item, 'id') ?? '',
    mandate: JSON.parse(str(item, 'doc') ?? '{}') as MandateDocument,
    signature: str(item, 'signature') ?? '',
    status: str(item, 'status') === 'revoked' ? 'revoked' : 'active',
    createdAt: str(item, 'createdAt') ?? '',
    ...(revokedAt !== undefined ? { revokedAt } : {}),
    // Parsed from the Number's decimal string, never through a JS number.
    spent: BigInt(item['spent']?.N ?? '0'),
    occurrences: Number(item['occurrences']?.N ?? '0'),
    transfers: item['txs']?.SS ?? [],
    ...(lastSpentAt !== undefined ? { lastSpentAt } : {}),
  };
}

/**
 * AP2 mandates in the access table, one item each (`pk = MANDATE#<id>`, listed per wallet on
 * gsi1). Creating, revoking and spending are each one conditional write on that item, so two
 * Lambdas racing on one mandate can neither double-count a transfer nor overspend its budget.
 */
export function dynamoMandates(client: DynamoDBClient, table = tableName(ACCESS_TABLE)): MandateStore {
  const get = async (id: string): Promise<MandateRecord | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: key(id), ConsistentRead: true }));
    return out.Item ? fromItem(out.Item) : undefined;
  };

  return {
    get,

    async create(record) {
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: toItem(record),
            // The id is derived from the signed document, so an existing item is the same mandate:
            // a retried create must not reset what has been spent under it.
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { created: true, record };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const existing = await get(record.id);
        if (!existing) throw e;
        return { created: false, record: existing };
      }
    },

    async list(wallet) {
      // gsi1sk carries createdAt: descending is newest first.
      return (await queryWalletItems(client, table, wallet, 'MANDATE#', { newestFirst: true })).map(fromItem);
    },

    async revoke(id, wallet, at) {
      const lower = wallet.toLowerCase();
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        try {
          await client.send(
            new UpdateItemCommand({
              TableName: table,
              Key: key(id),
              UpdateExpression: 'SET #status = :revoked, #revokedAt = :at',
              // Exists (an UpdateItem would otherwise create a stub), is this wallet's (another
              // wallet's mandate must stay untouched), and is still active (the first revocation's
              // time is the one kept).
              ConditionExpression: 'attribute_exists(pk) AND #wallet = :w AND #status = :active',
              ExpressionAttributeNames: NAMES,
              ExpressionAttributeValues: { ':revoked': s('revoked'), ':active': s('active'), ':at': s(at.toISOString()), ':w': s(lower) },
            }),
          );
          return 'revoked';
        } catch (e) {
          if (!isConditionFailure(e)) throw e;
          const existing = await get(id);
          // Another wallet's mandate answers as if absent: its existence is not this caller's to learn.
          if (!existing || existing.mandate.wallet.toLowerCase() !== lower) return 'not_found';
          if (existing.status === 'revoked') return 'already_revoked';
        }
      }
      throw new Error(`revoke of mandate ${id} kept failing its condition`);
    },

    async spend(id, transfer, limits): Promise<SpendResult> {
      const tx = transfer.txHash.toLowerCase();
      const room = limits.budget !== undefined ? limits.budget - transfer.amount : undefined;
      const now = limits.now.toISOString();
      const cutoff =
        limits.minSecondsBetween !== undefined && limits.minSecondsBetween > 0
          ? new Date(limits.now.getTime() - limits.minSecondsBetween * 1000).toISOString()
          : undefined;

      /** Why the update's condition failed, from the item as it is now; undefined when nothing explains it. */
      const classify = (record: MandateRecord | undefined): SpendResult | undefined => {
        if (!record) return { kind: 'refused', reason: 'not_found', record: undefined };
        // Checked before the state: a retry of a counted transfer succeeds even on a mandate spent or revoked since.
        if (record.transfers.includes(tx)) return { kind: 'already_counted', record };
        if (record.status !== 'active') return { kind: 'refused', reason: 'revoked', record };
        if (room !== undefined && (room < 0n || record.spent > room)) return { kind: 'refused', reason: 'budget', record };
        if (limits.maxOccurrences !== undefined && record.occurrences >= limits.maxOccurrences) {
          return { kind: 'refused', reason: 'occurrences', record };
        }
        if (cutoff !== undefined && record.lastSpentAt !== undefined && record.lastSpentAt > cutoff) {
          return { kind: 'refused', reason: 'frequency', record };
        }
        return undefined;
      };

      // A transfer bigger than the whole budget can never fit: answer without writing.
      if (room !== undefined && room < 0n) {
        const verdict = classify(await get(id));
        if (verdict) return verdict;
      }

      // Each clause is one of the port's promises, checked by DynamoDB against the item at write time:
      const conditions = [
        // active (also implies the item exists, so the update cannot create a stub);
        '#status = :active',
        // never twice for one transfer (true while txs is absent: no transfer counted yet);
        'NOT contains(#txs, :tx)',
        // never past the budget: spent + amount <= budget, rearranged because a condition cannot add;
        ...(room !== undefined ? ['#spent <= :room'] : []),
        // never more than maxOccurrences transfers;
        ...(limits.maxOccurrences !== undefined ? ['#occ < :max'] : []),
        // never sooner than the recurrence allows (ISO 8601 UTC strings of one format compare as times).
        ...(cutoff !== undefined ? ['(attribute_not_exists(#last) OR #last <= :cutoff)'] : []),
      ];
      const values: Item = {
        ':active': s('active'),
        ':tx': s(tx),
        ':txSet': { SS: [tx] },
        ':amt': n(transfer.amount),
        ':one': n(1),
        ':now': s(now),
        ...(room !== undefined ? { ':room': n(room) } : {}),
        ...(limits.maxOccurrences !== undefined ? { ':max': n(limits.maxOccurrences) } : {}),
        ...(cutoff !== undefined ? { ':cutoff': s(cutoff) } : {}),
      };

      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        try {
          const out = await client.send(
            new UpdateItemCommand({
              TableName: table,
              Key: key(id),
              // Amount, count and the transfer's hash move together in this one write: they cannot disagree.
              UpdateExpression: 'SET #spent = #spent + :amt, #occ = #occ + :one, #last = :now ADD #txs :txSet',
              ConditionExpression: conditions.join(' AND '),
              ExpressionAttributeNames: SPEND_NAMES,
              ExpressionAttributeValues: values,
              ReturnValues: 'ALL_NEW',
            }),
          );
          if (!out.Attributes) throw new Error(`spend on mandate ${id} returned no item`);
          return { kind: 'spent', record: fromItem(out.Attributes) };
        } catch (e) {
          if (!isConditionFailure(e)) throw e;
          const verdict = classify(await get(id));
          if (verdict) return verdict;
        }
      }
      throw new Error(`spend on mandate ${id} kept failing its condition`);
    },
  };
}
