import { GetItemCommand, PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { SETTLEMENTS_TABLE, tableName } from '../../contract/tables';
import { conditionally, isConditionFailure } from '../../platform/adapters/dynamo-client';
import type { SettlementRecord, Settlements } from '../ports';

/**
 * x402 settlements in DynamoDB, one item per authorization. Every step is one conditional write
 * on that item: the claim (`attribute_not_exists`), a take-over and the signed transaction (both
 * only while the caller's lease holds the claim), and the outcome (once, from `signed`).
 */
export function dynamoSettlements(client: DynamoDBClient, table = tableName(SETTLEMENTS_TABLE)): Settlements {
  const get = async (pk: string): Promise<SettlementRecord | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk }), ConsistentRead: true }));
    return out.Item ? (unmarshall(out.Item) as SettlementRecord) : undefined;
  };
  return {
    get,
    async claim(record) {
      try {
        // The idempotency of the x402 flow: one item per (token, authorizer, nonce), created once,
        // before anything is signed or sent. A retry or a parallel duplicate lands in the catch.
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall(record, { removeUndefinedValues: true }),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { claimed: true };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const existing = await get(record.pk);
        if (!existing) throw new Error(`settlement ${record.pk} refused the claim but cannot be read`, { cause: e });
        return { claimed: false, existing };
      }
    },
    takeOver(pk, lease, next) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: next.source ? 'SET #lease = :next, #at = :at, #source = :source' : 'SET #lease = :next, #at = :at',
            ConditionExpression: '#state = :claimed AND #lease = :lease',
            ExpressionAttributeNames: {
              '#state': 'state',
              '#lease': 'lease',
              '#at': 'claimedAt',
              ...(next.source ? { '#source': 'source' } : {}),
            },
            ExpressionAttributeValues: marshall({
              ':next': next.lease,
              ':at': next.claimedAt,
              ':claimed': 'claimed',
              ':lease': lease,
              ...(next.source ? { ':source': next.source } : {}),
            }),
          }),
        ),
      );
    },
    signed(pk, lease, tx) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: 'SET #state = :signed, #tx = :tx, #raw = :raw',
            ConditionExpression: '#state = :claimed AND #lease = :lease',
            ExpressionAttributeNames: { '#state': 'state', '#tx': 'txHash', '#raw': 'raw', '#lease': 'lease' },
            ExpressionAttributeValues: marshall({
              ':signed': 'signed',
              ':tx': tx.txHash.toLowerCase(),
              ':raw': tx.raw,
              ':claimed': 'claimed',
              ':lease': lease,
            }),
          }),
        ),
      );
    },
    replaced(pk, replaces, tx) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: 'SET #tx = :tx, #raw = :raw',
            ConditionExpression: '#state = :signed AND #tx = :old',
            ExpressionAttributeNames: { '#state': 'state', '#tx': 'txHash', '#raw': 'raw' },
            ExpressionAttributeValues: marshall({
              ':signed': 'signed',
              ':tx': tx.txHash.toLowerCase(),
              ':raw': tx.raw,
              ':old': replaces.toLowerCase(),
            }),
          }),
        ),
      );
    },
    async finish(pk, outcome) {
      const fields = Object.entries(outcome).filter(([k]) => k !== 'state');
      // Once: a second request that saw the same receipt finds the outcome already written.
      await conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: `SET #state = :state, ${fields.map(([k]) => `#${k} = :${k}`).join(', ')}`,
            ConditionExpression: '#state IN (:signed, :claimed)',
            // Every name through a placeholder: DynamoDB reserves hundreds of words (`raw` among them).
            ExpressionAttributeNames: { '#state': 'state', ...Object.fromEntries(fields.map(([k]) => [`#${k}`, k])) },
            ExpressionAttributeValues: marshall({
              ':state': outcome.state,
              ':signed': 'signed',
              ':claimed': 'claimed',
              ...Object.fromEntries(fields.map(([k, v]) => [`:${k}`, v])),
            }),
          }),
        ),
      );
    },
  };
}
