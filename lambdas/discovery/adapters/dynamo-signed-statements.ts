/**
 * The signed statements table (PROVENANCE_TABLE): one item per version and predicate type,
 * `pk = <digest>#<predicate type>`, holding the bundle's JSON. Written once with a conditional
 * PutItem; a writer that loses the race reads the winner (strongly consistent), so every caller
 * is given the same bundle.
 */
import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { provenanceKey } from '../../contract/provenance';
import { conditionally } from '../../platform/adapters/dynamo-client';
import type { SignedStatementStore, SigstoreBundleJson } from '../ports';

export function dynamoSignedStatements(client: DynamoDBClient, table: string): SignedStatementStore {
  const get: SignedStatementStore['get'] = async (digest, type) => {
    const { Item } = await client.send(
      new GetItemCommand({ TableName: table, Key: { pk: { S: provenanceKey(digest, type) } }, ConsistentRead: true }),
    );
    const text = Item?.['bundle']?.S;
    return text === undefined ? undefined : (JSON.parse(text) as SigstoreBundleJson);
  };
  return {
    get,
    keepFirst: async (digest, type, bundle) => {
      const written = await conditionally(
        client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: provenanceKey(digest, type) },
              bundle: { S: JSON.stringify(bundle) },
              signedAt: { S: new Date().toISOString() },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
      if (written) return bundle;
      const winner = await get(digest, type);
      if (!winner) throw new Error(`The signed statement ${provenanceKey(digest, type)} was kept by another writer but cannot be read.`);
      return winner;
    },
  };
}
