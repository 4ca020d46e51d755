import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { CARD_SALES_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure, scanItems } from '../../platform/adapters/dynamo-client';
import { cardSaleFact } from '../core/tally';
import type { CardSale, CardSaleStore } from '../ports';
import { dynamoJournalSource } from './dynamo-journal-source';

/** The sales list's one partition (see CARD_SALES_TABLE); a finance export reads the table whole. */
const LIST_PARTITION = 'SALE';

function toSale(item: Record<string, unknown>): CardSale {
  const { gsi1pk: _a, gsi1sk: _b, ...sale } = item;
  return sale as unknown as CardSale;
}

/** Card sales in DynamoDB: one item per paid checkout session, carrying the journal marks of its one change. */
export function dynamoCardSales(client: DynamoDBClient, table = tableName(CARD_SALES_TABLE)): CardSaleStore {
  const get = async (id: string): Promise<CardSale | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ id }), ConsistentRead: true }));
    return out.Item ? toSale(unmarshall(out.Item)) : undefined;
  };
  return {
    get,
    async recordAt(sale, seq) {
      try {
        // One sale per checkout session, whichever of Stripe's deliveries (or a complete call) comes first:
        // the conditional put is the whole idempotency; a later writer reads the sale that won.
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall(
              { ...sale, gsi1pk: LIST_PARTITION, gsi1sk: `${sale.recordedAt}#${sale.id}`, jseq: seq, jpending: seq, jv: 1 },
              { removeUndefinedValues: true },
            ),
            ConditionExpression: 'attribute_not_exists(id)',
          }),
        );
        return { recorded: true, sale };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const existing = await get(sale.id);
        if (!existing) throw new Error(`card sale ${sale.id} vanished after a failed conditional put`, { cause: e });
        return { recorded: false, sale: existing };
      }
    },
    source: dynamoJournalSource(
      client,
      table,
      (id) => ({ id }),
      (item) => cardSaleFact(toSale(item)),
    ),
    async *scan() {
      for await (const item of scanItems(client, table)) yield toSale(unmarshall(item));
    },
  };
}
