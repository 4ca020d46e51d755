import {
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { CARD_SALES_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure, scanItems } from '../../platform/adapters/dynamo-client';
import { applyCardChange } from '../core/card-standing';
import type { CardSale, CardSales } from '../ports';

/** Tries of a change that lost a race with another change of the same sale (each try reads the sale again). */
const CHANGE_TRIES = 4;

/** Card sales in DynamoDB: one item per paid checkout session; the card channel's figures follow from the table's stream. */
export function dynamoCardSales(client: DynamoDBClient, table = tableName(CARD_SALES_TABLE)): CardSales {
  const get = async (id: string): Promise<CardSale | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ id }), ConsistentRead: true }));
    return out.Item ? (unmarshall(out.Item) as CardSale) : undefined;
  };
  return {
    get,
    async record(sale) {
      try {
        // One sale per checkout session, whichever of Stripe's deliveries (or a complete call) comes first:
        // the conditional put is the whole idempotency; a later writer gets the sale that won.
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall(sale, { removeUndefinedValues: true }),
            ConditionExpression: 'attribute_not_exists(id)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { recorded: true, sale };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const item = (e as { Item?: Record<string, AttributeValue> }).Item;
        const existing = item ? (unmarshall(item) as CardSale) : await get(sale.id);
        if (!existing) throw new Error(`card sale ${sale.id} vanished after a failed conditional put`, { cause: e });
        return { recorded: false, sale: existing };
      }
    },
    async byPaymentIntent(paymentIntent) {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'byPaymentIntent',
          KeyConditionExpression: 'paymentIntent = :pi',
          ExpressionAttributeValues: marshall({ ':pi': paymentIntent }),
          Limit: 1,
        }),
      );
      const key = out.Items?.[0];
      return key ? get(unmarshall(key)['id'] as string) : undefined;
    },
    async change(id, change) {
      for (let attempt = 1; ; attempt++) {
        const sale = await get(id);
        if (!sale) return undefined;
        const next = applyCardChange(sale, change);
        if (next === 'unchanged') return { applied: false, sale };
        const version = sale.changes ?? 0;
        const changed: CardSale = { ...next, changes: version + 1 };
        try {
          // The whole idempotency of refunds and disputes: the sale is replaced only if no other
          // change was applied since it was read (the same count of changes); a lost race reads
          // the sale again, where the other change may already hold this one's fact.
          await client.send(
            new PutItemCommand({
              TableName: table,
              Item: marshall(changed, { removeUndefinedValues: true }),
              ConditionExpression: version === 0 ? 'attribute_exists(id) AND attribute_not_exists(changes)' : 'changes = :n',
              ...(version === 0 ? {} : { ExpressionAttributeValues: marshall({ ':n': version }) }),
            }),
          );
          return { applied: true, sale: changed };
        } catch (e) {
          if (!isConditionFailure(e) || attempt >= CHANGE_TRIES) throw e;
        }
      }
    },
    async recordFee(id, chargeId, fee) {
      const fields: Record<string, string | number> = { chargeId, ...fee };
      const names = Object.keys(fields);
      try {
        // The whole idempotency of a late fee: written once, only while the sale has none (a
        // redelivered charge.updated, or one after the sale was recorded with its fee, changes
        // nothing). It counts as a change, so a refund or dispute written from a read taken
        // before it fails its condition and reads the sale again, fee included.
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ id }),
            UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}, #changes = if_not_exists(#changes, :zero) + :one`,
            ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(feeCents)',
            ExpressionAttributeNames: Object.fromEntries([...names, 'changes'].map((n) => [`#${n}`, n])),
            ExpressionAttributeValues: marshall({ ...Object.fromEntries(names.map((n) => [`:${n}`, fields[n]])), ':zero': 0, ':one': 1 }),
          }),
        );
        return { applied: true };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        return (await get(id)) ? { applied: false } : undefined;
      }
    },
    async *scan() {
      for await (const item of scanItems(client, table)) yield unmarshall(item) as CardSale;
    },
  };
}
