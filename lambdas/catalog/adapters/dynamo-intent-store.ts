import { GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { dayOf } from '../../contract/days';
import { INTENT_LIFETIME_DAYS } from '../../contract/intent-schema';
import { INTENTS_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { conditionally } from '../../platform/adapters/dynamo-client';
import { InvalidCursorError } from '../intent-cursor';
import type { IntentPage, IntentRecord, IntentStore } from '../ports';

const LIST_PARTITION = 'INTENT';
const DAY_MS = 86_400_000;
const LIFETIME_MS = INTENT_LIFETIME_DAYS * DAY_MS;

const epochSeconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * A stored item as the API shows it. A bounty stored before bounties expired has no
 * `expires_at` (nor the TTL attribute): it expires on read by the same rule, `created_at` + 30 days.
 */
function toRecord(item: Record<string, unknown>): IntentRecord {
  const { gsi1pk: _pk, gsi1sk: _sk, expiresAt: _ttl, ...rest } = item;
  const r = rest as unknown as Omit<IntentRecord, 'expires_at'> & { expires_at?: string };
  if (typeof r.expires_at === 'string') return r as IntentRecord;
  const { id, created_at, expires_at: _none, ...others } = r;
  return { id, created_at, expires_at: new Date(Date.parse(created_at) + LIFETIME_MS).toISOString(), ...others };
}

/** DynamoDB deletes an expired item within a day or two, the local run never: a read decides by the record's own time. */
const live = (r: IntentRecord, now: Date): boolean => Date.parse(r.expires_at) > now.getTime();

function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(unmarshall(key as never))).toString('base64url');
}

function decodeCursor(cursor: string): { id: string; gsi1pk: string; gsi1sk: string } {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { id, gsi1pk, gsi1sk } = key;
    if (typeof id !== 'string' || gsi1pk !== LIST_PARTITION || typeof gsi1sk !== 'string' || Object.keys(key).length !== 3)
      throw new Error('shape');
    return { id, gsi1pk, gsi1sk };
  } catch {
    throw new InvalidCursorError('not a cursor this service issued');
  }
}

/**
 * Intent bounties in DynamoDB: one item each, listed newest first through gsi1, deleted by TTL
 * (`expiresAt`, epoch seconds) when they expire; and one counter item per caller and UTC day.
 */
export function dynamoIntentStore(
  client: DynamoDBClient,
  now: () => Date = () => new Date(),
  table = tableName(INTENTS_TABLE),
): IntentStore {
  return {
    async admit(caller, at, perDay) {
      const day = dayOf(at);
      // One conditional ADD: parallel posts of one caller cannot pass the cap together. Kept a day
      // past its own (a clock at the day's edge still finds it), then deleted by TTL.
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ id: `quota#${day}#${caller}` }),
            UpdateExpression: 'ADD posted :one SET expiresAt = :exp',
            ConditionExpression: 'attribute_not_exists(posted) OR posted < :max',
            ExpressionAttributeValues: marshall({
              ':one': 1,
              ':max': perDay,
              ':exp': epochSeconds(Date.parse(`${day}T00:00:00Z`) + 2 * DAY_MS),
            }),
          }),
        ),
      );
    },
    async put(intent) {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: marshall(
            {
              ...intent,
              gsi1pk: LIST_PARTITION,
              gsi1sk: `${intent.created_at}#${intent.id}`,
              expiresAt: epochSeconds(Date.parse(intent.expires_at)),
            },
            { removeUndefinedValues: true },
          ),
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      );
    },
    async get(id) {
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ id }), ConsistentRead: true }));
      const record = out.Item ? toRecord(unmarshall(out.Item)) : undefined;
      return record && live(record, now()) ? record : undefined;
    },
    async list(limit, cursor): Promise<IntentPage> {
      const at = now();
      // Only bounties posted within their lifetime are in range, so expired ones cost no read and
      // a page is never emptied by them; a cursor from before that boundary has nothing after it.
      const cutoff = new Date(at.getTime() - LIFETIME_MS).toISOString();
      const start = cursor ? decodeCursor(cursor) : undefined;
      if (start && start.gsi1sk <= cutoff) return { items: [] };
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p AND gsi1sk > :cutoff',
          ExpressionAttributeValues: marshall({ ':p': LIST_PARTITION, ':cutoff': cutoff }),
          ScanIndexForward: false,
          Limit: limit,
          ...(start ? { ExclusiveStartKey: marshall(start) } : {}),
        }),
      );
      const page: IntentPage = { items: (out.Items ?? []).map((i) => toRecord(unmarshall(i))).filter((r) => live(r, at)) };
      if (out.LastEvaluatedKey) page.next_cursor = encodeCursor(out.LastEvaluatedKey);
      return page;
    },
  };
}
