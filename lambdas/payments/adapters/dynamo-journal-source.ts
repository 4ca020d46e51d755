import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { conditionally } from '../../platform/adapters/dynamo-client';
import type { TallyFact } from '../core/tally';
import type { JournalMarks, JournalSource } from '../ports';

/**
 * A tallied table as the journal sees it (the ledger, the card sales): each record carries its
 * journal marks (`jseq`, `jpending`, `jv`) beside its own fields, changed by one conditional
 * UpdateItem each.
 */
export function dynamoJournalSource(
  client: DynamoDBClient,
  table: string,
  keyOf: (key: string) => Record<string, string>,
  factOf: (item: Record<string, unknown>) => TallyFact,
  /** Attributes a record written before the journal lacks and gets when it is adopted (e.g. a newer index's keys). */
  backfill?: (item: Record<string, unknown>) => Record<string, unknown>,
): JournalSource {
  return {
    async snapshot(key) {
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall(keyOf(key)), ConsistentRead: true }));
      if (!out.Item) return undefined;
      const item = unmarshall(out.Item);
      const marks: JournalMarks = {
        ...(typeof item['jseq'] === 'number' ? { jseq: item['jseq'] } : {}),
        ...(typeof item['jpending'] === 'number' ? { jpending: item['jpending'] } : {}),
        ...(typeof item['jv'] === 'number' ? { jv: item['jv'] } : {}),
      };
      return { fact: factOf(item), marks };
    },
    async repoint(key, from, to) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall(keyOf(key)),
            UpdateExpression: 'SET jseq = :to, jpending = :to',
            ConditionExpression: 'jpending = :from',
            ExpressionAttributeValues: marshall({ ':from': from, ':to': to }),
          }),
        ),
      );
    },
    async adopt(key, seq) {
      let extra: Record<string, unknown> = {};
      if (backfill) {
        const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall(keyOf(key)), ConsistentRead: true }));
        if (!out.Item) return false;
        extra = backfill(unmarshall(out.Item));
      }
      const names = Object.keys(extra);
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall(keyOf(key)),
            UpdateExpression: ['SET jseq = :seq, jpending = :seq, jv = :one', ...names.map((_, i) => `#b${i} = :b${i}`)].join(', '),
            // The record exists (UpdateItem would create it) and was never journaled; the backfill read the same state.
            ConditionExpression: 'attribute_exists(#key) AND attribute_not_exists(jseq)',
            ExpressionAttributeNames: { '#key': Object.keys(keyOf(key))[0]!, ...Object.fromEntries(names.map((n, i) => [`#b${i}`, n])) },
            ExpressionAttributeValues: marshall({
              ':seq': seq,
              ':one': 1,
              ...Object.fromEntries(names.map((n, i) => [`:b${i}`, extra[n]])),
            }),
          }),
        ),
      );
    },
    async settle(key, seq) {
      // Settled already, by another publisher of the same entry: nothing left to do.
      await conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall(keyOf(key)),
            UpdateExpression: 'REMOVE jpending',
            ConditionExpression: 'jpending = :seq',
            ExpressionAttributeValues: marshall({ ':seq': seq }),
          }),
        ),
      );
    },
  };
}
