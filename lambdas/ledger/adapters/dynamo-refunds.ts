import { GetItemCommand, TransactWriteItemsCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { LEDGER_TABLE, REFUNDS_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import type { RefundRecord, Refunds, StoredRefund } from '../ports';
import { ledgerPk } from './dynamo-ledger';

/**
 * Refunds in DynamoDB: the refunds table's item per refund transaction, and the sale's row in the
 * ledger table, written together by one TransactWriteItems (both or neither).
 */
export function dynamoRefunds(
  client: DynamoDBClient,
  tables = { refunds: tableName(REFUNDS_TABLE), ledger: tableName(LEDGER_TABLE) },
): Refunds {
  return {
    async get(network, refundTx) {
      const out = await client.send(
        new GetItemCommand({ TableName: tables.refunds, Key: marshall({ pk: ledgerPk(network, refundTx) }), ConsistentRead: true }),
      );
      if (!out.Item) return undefined;
      const { pk: _pk, ...record } = unmarshall(out.Item);
      return record as RefundRecord;
    },
    async record(record, sale) {
      const stored: StoredRefund = {
        amount: record.amount,
        tx: record.tx,
        block: record.block,
        time: record.time,
        recordedAt: record.recordedAt,
      };
      const first = sale.expectedRefunded === undefined;
      // The sale's refunded total is the condition: a replay, or another refund recorded since the
      // read, finds it moved and writes nothing. The first refund makes the map; later ones add to it.
      const set = first ? 'SET refundedAmount = :total, refunds = :map' : 'SET refundedAmount = :total, refunds.#r = :refund';
      const condition = first
        ? '#status = :confirmed AND attribute_not_exists(refundedAmount)'
        : '#status = :confirmed AND refundedAmount = :expected AND attribute_not_exists(refunds.#r)';
      try {
        await client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                // One refund transfer is recorded once, against one sale.
                Put: {
                  TableName: tables.refunds,
                  Item: marshall({ ...record, pk: ledgerPk(record.network, record.tx) }),
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Update: {
                  TableName: tables.ledger,
                  Key: marshall({ pk: ledgerPk(record.network, record.saleTx) }),
                  // Refunded in full: the row leaves what its payer owns (the sparse `owned` index), as a reorg's does.
                  UpdateExpression: `${set}${sale.full ? ' REMOVE #owner' : ''}`,
                  ConditionExpression: condition,
                  ExpressionAttributeNames: {
                    '#status': 'status',
                    ...(first ? {} : { '#r': record.tx }),
                    ...(sale.full ? { '#owner': 'owner' } : {}),
                  },
                  ExpressionAttributeValues: marshall({
                    ':total': sale.refundedAmount,
                    ':confirmed': 'confirmed',
                    ...(first ? { ':map': { [record.tx]: stored } } : { ':refund': stored, ':expected': sale.expectedRefunded }),
                  }),
                },
              },
            ],
          }),
        );
        return 'recorded';
      } catch (e) {
        if ((e as Error).name !== 'TransactionCanceledException') throw e;
        const reasons = (e as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
        if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'refund_exists';
        if (reasons[1]?.Code === 'ConditionalCheckFailed') return 'sale_changed';
        throw e;
      }
    },
  };
}
