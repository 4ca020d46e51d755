import { GetItemCommand, PutItemCommand, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { INTENTS_TABLE, tableName } from '../../contract/tables';
import { InvalidCursorError } from '../intent-cursor';
import type { IntentPage, IntentRecord, IntentStore } from '../ports';

const LIST_PARTITION = 'INTENT';

function toRecord(item: Record<string, unknown>): IntentRecord {
  const { gsi1pk: _pk, gsi1sk: _sk, ...rest } = item;
  return rest as unknown as IntentRecord;
}

function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(unmarshall(key as never))).toString('base64url');
}

function decodeCursor(cursor: string): Record<string, string> {
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

/** Intent bounties in DynamoDB: one item each, listed newest first through gsi1. */
export function dynamoIntentStore(client: DynamoDBClient, table = tableName(INTENTS_TABLE)): IntentStore {
  return {
    async put(intent) {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: marshall(
            { ...intent, gsi1pk: LIST_PARTITION, gsi1sk: `${intent.created_at}#${intent.id}` },
            { removeUndefinedValues: true },
          ),
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      );
    },
    async get(id) {
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ id }), ConsistentRead: true }));
      return out.Item ? toRecord(unmarshall(out.Item)) : undefined;
    },
    async list(limit, cursor): Promise<IntentPage> {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: marshall({ ':p': LIST_PARTITION }),
          ScanIndexForward: false,
          Limit: limit,
          ...(cursor ? { ExclusiveStartKey: marshall(decodeCursor(cursor)) } : {}),
        }),
      );
      const page: IntentPage = { items: (out.Items ?? []).map((i) => toRecord(unmarshall(i))) };
      if (out.LastEvaluatedKey) page.next_cursor = encodeCursor(out.LastEvaluatedKey);
      return page;
    },
  };
}
