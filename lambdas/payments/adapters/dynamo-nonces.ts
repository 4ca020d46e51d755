import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { NONCES_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure } from '../../platform/adapters/dynamo-client';
import type { NonceStore } from '../ports';

/**
 * Used nonces in DynamoDB, one item each. The single conditional write is the whole check: it
 * succeeds for a nonce never seen (or seen but expired: TTL deletes late, locally never), and fails for a replay.
 */
export function dynamoNonces(client: DynamoDBClient, table = tableName(NONCES_TABLE)): NonceStore {
  return {
    async use(address, nonce, expiresAt) {
      const now = Math.floor(Date.now() / 1000);
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({ pk: `${address.toLowerCase()}#${nonce}`, expiresAt: Math.floor(expiresAt.getTime() / 1000) }),
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: marshall({ ':now': now }),
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailure(e)) return false;
        throw e;
      }
    },
  };
}
