import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  PutItemCommand,
  UpdateTableCommand,
  type AttributeDefinition,
  type AttributeValue,
  type DynamoDBClient,
  type Projection,
  type StreamSpecification,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { IndexProjection, TableDefinition } from '../lambdas/contract/tables';
import { tableName } from '../lambdas/platform/table-names';
import { scanItems } from '../lambdas/platform/adapters/dynamo-client';

/**
 * Creates every table from the shared definitions, if missing; the same definitions CDK deploys.
 * A table kept under .data by an older version is brought to its definition: a stream turned on
 * (or off) in place, as DynamoDB and CDK do; an index that is missing or copies other attributes
 * by rebuilding the table with its items (DynamoDB adds an index in place but never changes what
 * one copies).
 */
export async function createTables(client: DynamoDBClient, tables: readonly TableDefinition[]): Promise<string[]> {
  // All at once: each table is a few round trips of its own, and DynamoDB Local answers in its own process.
  const changed = await Promise.all(tables.map((def) => createTable(client, def)));
  return tables.filter((_, i) => changed[i]).map((def) => tableName(def));
}

/** Creates one table if missing, or brings a kept one to its definition; true when it was created or changed. */
async function createTable(client: DynamoDBClient, def: TableDefinition): Promise<boolean> {
  const name = tableName(def);
  let kept: Record<string, AttributeValue>[] = [];
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    const stale = staleIndexes(def, Table);
    if (stale.length === 0) {
      if (streamMatches(def, Table)) return false;
      console.warn(`${name}: turning its stream ${def.stream ? 'on' : 'off'}`);
      await setStream(client, name, def, Table);
      return true;
    }
    kept = [];
    for await (const item of scanItems(client, name)) kept.push(item);
    console.warn(`${name}: index ${stale.join(', ')} added or changed; rebuilding the local table with its ${kept.length} items`);
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
  // A rebuilt table gets its stream only once its items are back: putting them back is no change
  // of the data, and as stream records it would fold every kept sale into the figures a second time.
  const streamNow = kept.length === 0;
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
              Projection: projection(idx.projection),
            })),
          }
        : {}),
      ...(def.stream && streamNow ? { StreamSpecification: STREAM } : {}),
    }),
  );
  await untilActive(client, name);
  for (const item of kept) await client.send(new PutItemCommand({ TableName: name, Item: item }));
  if (def.stream && !streamNow) await setStream(client, name, def, undefined);
  // TTL is not turned on locally: nothing expires by TTL, and readers of TTL'd items check expiry themselves (DynamoDB deletes late too).
  return true;
}

/** What a streamed table's stream carries: the fold reads the new and the old image of each change (lambdas/contract/tables.ts). */
const STREAM = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } as const satisfies StreamSpecification;

const projection = (p: IndexProjection): Projection =>
  p.type === 'INCLUDE' ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...p.attributes] } : { ProjectionType: p.type };

/** Whether an index copies what its definition says (DynamoDB may list the included attributes in any order). */
const sameProjection = (want: IndexProjection, have: Projection | undefined): boolean => {
  if (have?.ProjectionType !== want.type) return false;
  if (want.type !== 'INCLUDE') return true;
  const had = [...(have.NonKeyAttributes ?? [])].sort();
  const wanted = [...want.attributes].sort();
  return had.length === wanted.length && had.every((a, i) => a === wanted[i]);
};

/** The definition's indexes the table lacks, or has with another projection. */
const staleIndexes = (def: TableDefinition, table: TableDescription | undefined): string[] => {
  const have = new Map((table?.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName, i.Projection]));
  return def.indexes.filter((i) => !have.has(i.name) || !sameProjection(i.projection, have.get(i.name))).map((i) => i.name);
};

const streamMatches = (def: TableDefinition, table: TableDescription | undefined): boolean => {
  const spec = table?.StreamSpecification;
  return def.stream ? spec?.StreamEnabled === true && spec.StreamViewType === STREAM.StreamViewType : !spec?.StreamEnabled;
};

/** Turns the stream on or off in place; a stream of another view type is turned off first (DynamoDB changes no view type in place). */
async function setStream(client: DynamoDBClient, name: string, def: TableDefinition, table: TableDescription | undefined): Promise<void> {
  if (table?.StreamSpecification?.StreamEnabled) {
    await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
    await untilActive(client, name);
  }
  if (def.stream) {
    await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: STREAM }));
    await untilActive(client, name);
  }
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
