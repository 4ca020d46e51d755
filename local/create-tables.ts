import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  PutItemCommand,
  type AttributeDefinition,
  type AttributeValue,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { TableDefinition } from '../lambdas/contract/tables';
import { tableName } from '../lambdas/platform/table-names';
import { scanItems } from '../lambdas/platform/adapters/dynamo-client';

/**
 * Creates every table from the shared definitions, if missing; the same definitions CDK deploys.
 * A table kept under .data by an older version that lacks an index of its definition is rebuilt
 * with its items (the table is made again with its items rather than updated; DynamoDB adds an index in place, and CDK does).
 */
export async function createTables(client: DynamoDBClient, tables: readonly TableDefinition[]): Promise<string[]> {
  // All at once: each table is a few round trips of its own, and DynamoDB Local answers in its own process.
  const created = await Promise.all(tables.map((def) => createTable(client, def)));
  return tables.filter((_, i) => created[i]).map((def) => tableName(def));
}

/** Creates one table if missing (or rebuilds it to add an index); true when it was created. */
async function createTable(client: DynamoDBClient, def: TableDefinition): Promise<boolean> {
  const name = tableName(def);
  let kept: Record<string, AttributeValue>[] = [];
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    if (missingIndexes(def, Table).length === 0) return false;
    kept = [];
    for await (const item of scanItems(client, name)) kept.push(item);
    console.warn(
      `${name}: adding index ${missingIndexes(def, Table).join(', ')}; rebuilding the local table with its ${kept.length} items`,
    );
    await client.send(new DeleteTableCommand({ TableName: name }));
    await untilGone(client, name);
  } catch (e) {
    if ((e as Error).name !== 'ResourceNotFoundException') throw e;
  }
  const attributes = new Map<string, AttributeDefinition>();
  const add = (k: { name: string; type: 'S' | 'N' } | undefined): void => {
    if (k) attributes.set(k.name, { AttributeName: k.name, AttributeType: k.type });
  };
  add(def.partitionKey);
  add(def.sortKey);
  for (const idx of def.indexes) {
    add(idx.partitionKey);
    add(idx.sortKey);
  }
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes.values()],
      KeySchema: [
        { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
        ...(def.sortKey ? [{ AttributeName: def.sortKey.name, KeyType: 'RANGE' as const }] : []),
      ],
      ...(def.indexes.length > 0
        ? {
            GlobalSecondaryIndexes: def.indexes.map((idx) => ({
              IndexName: idx.name,
              KeySchema: [
                { AttributeName: idx.partitionKey.name, KeyType: 'HASH' as const },
                ...(idx.sortKey ? [{ AttributeName: idx.sortKey.name, KeyType: 'RANGE' as const }] : []),
              ],
              Projection: { ProjectionType: 'ALL' as const },
            })),
          }
        : {}),
    }),
  );
  await untilActive(client, name);
  for (const item of kept) await client.send(new PutItemCommand({ TableName: name, Item: item }));
  // TTL is not turned on locally: nothing expires by TTL, and readers of TTL'd items check expiry themselves (DynamoDB deletes late too).
  return true;
}

/** A new table takes item writes only once ACTIVE. */
async function untilActive(client: DynamoDBClient, name: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: name }));
    if (out.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`table ${name} did not become ACTIVE`);
}

const missingIndexes = (def: TableDefinition, table: TableDescription | undefined): string[] => {
  const have = new Set((table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  return def.indexes.map((i) => i.name).filter((n) => !have.has(n));
};

async function untilGone(client: DynamoDBClient, name: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    try {
      await client.send(new DescribeTableCommand({ TableName: name }));
    } catch (e) {
      if ((e as Error).name === 'ResourceNotFoundException') return;
      throw e;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`table ${name} was not deleted`);
}
