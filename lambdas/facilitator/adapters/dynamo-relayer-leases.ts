import { DeleteItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { RELAYER_LEASES_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure } from '../../platform/adapters/dynamo-client';
import type { RelayerLeases } from '../ports';

/**
 * The relayer pool's leases in DynamoDB, one item per key (`pk` = lower-case address). The one
 * conditional PutItem is the whole lease: it writes when nobody holds the key, when the holder's
 * lease ran out, or when the holder renews its own unexpired lease; another holder's valid lease
 * makes it fail, so a key signs for one instance at a time.
 */
export function dynamoRelayerLeases(client: DynamoDBClient, table = tableName(RELAYER_LEASES_TABLE)): RelayerLeases {
  return {
    async take(address, holder, now, until) {
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({ pk: address.toLowerCase(), holder, expiresAt: until, takenAt: now }),
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now OR (holder = :me AND expiresAt > :now)',
            ExpressionAttributeValues: marshall({ ':now': now, ':me': holder }),
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailure(e)) return false;
        throw e;
      }
    },
    async release(address, holder) {
      try {
        await client.send(
          new DeleteItemCommand({
            TableName: table,
            Key: marshall({ pk: address.toLowerCase() }),
            ConditionExpression: 'holder = :me',
            ExpressionAttributeValues: marshall({ ':me': holder }),
          }),
        );
      } catch (e) {
        // Someone else took it after ours ran out: nothing of ours to give up.
        if (!isConditionFailure(e)) throw e;
      }
    },
  };
}
