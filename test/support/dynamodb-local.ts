/** A DynamoDB Local of a test file's own (in memory, any free port) with a client, for the store-level tests. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableDefinition } from '../../lambdas/contract/tables';
import { createTables } from '../../local/create-tables';
import { startDynamoDbLocal } from '../../local/dynamodb-local';

export interface ThrowawayDynamo {
  client: DynamoDBClient;
  endpoint: string;
  stop: () => Promise<void>;
}

/** Starts it and creates `tables` (by their default names: the tables' env vars are unset here). */
export async function throwawayDynamo(tables: readonly TableDefinition[] = []): Promise<ThrowawayDynamo> {
  for (const def of tables) delete process.env[def.env];
  const dynamo = await startDynamoDbLocal({ port: 0 });
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createTables(client, tables);
  return {
    client,
    endpoint: dynamo.endpoint,
    stop: async () => {
      client.destroy();
      await dynamo.stop();
    },
  };
}
