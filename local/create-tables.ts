import { CreateTableCommand, DescribeTableCommand, type AttributeDefinition, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { tableName, type TableDefinition } from '../lambdas/contract/tables';

/** Creates every table from the shared definitions, if missing; the same definitions CDK deploys. */
export async function createTables(client: DynamoDBClient, tables: readonly TableDefinition[]): Promise<string[]> {
  const created: string[] = [];
  for (const def of tables) {
    const name = tableName(def);
    try {
      await client.send(new DescribeTableCommand({ TableName: name }));
      continue;
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
    // dynalite has no UpdateTimeToLive: locally nothing expires by TTL, so readers of TTL'd items check expiry themselves.
    created.push(name);
  }
  return created;
}
