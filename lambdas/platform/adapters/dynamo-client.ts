import { DynamoDBClient, QueryCommand, ScanCommand, type AttributeValue, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import { INFRA_ENV } from '../../contract/env';
import { traced } from '../tracer';

let client: DynamoDBClient | undefined;

/**
 * The process-wide DynamoDB client. DYNAMODB_ENDPOINT points it at DynamoDB Local locally
 * (with throw-away credentials, which DynamoDB Local ignores with -sharedDb). Timeouts are short so that a
 * throttled or unreachable table turns into a 503 well inside API Gateway's 30 s.
 */
export function dynamoClient(env: NodeJS.ProcessEnv = process.env): DynamoDBClient {
  if (client) return client;
  const endpoint = env[INFRA_ENV.dynamodbEndpoint];
  client = traced(
    new DynamoDBClient({
      region: env['AWS_REGION'] ?? 'us-east-1',
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
      ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    }),
  );
  return client;
}

/** Whether a DynamoDB call failed only because its condition did not hold; by name, which the SDK's class carries in every copy of the SDK. */
export const isConditionFailure = (e: unknown): boolean => (e as Error | undefined)?.name === 'ConditionalCheckFailedException';

/**
 * Awaits a conditional write: true when it was written, false when its condition did not hold
 * (another writer won, or the change was already made); any other failure is thrown.
 */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/** Every item a Query matches, page by page (a page ends at 1 MB): the whole of a partition or an index range. */
export async function* queryItems(client: DynamoDBClient, input: QueryCommandInput): AsyncGenerator<Record<string, AttributeValue>> {
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const out = await client.send(new QueryCommand({ ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }));
    yield* out.Items ?? [];
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}

/** Every item of a table, page by page (strongly consistent): for the recount, the export and local table rebuilds. */
export async function* scanItems(client: DynamoDBClient, table: string): AsyncGenerator<Record<string, AttributeValue>> {
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const out = await client.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
    );
    yield* out.Items ?? [];
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}
