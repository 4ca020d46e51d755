import { GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { CARD_SALES_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure, scanItems } from '../../platform/adapters/dynamo-client';
import type { CardSale, CardSales } from '../ports';

/** Card sales in DynamoDB: one item per paid checkout session; the card channel's figures follow from the table's stream. */
export function dynamoCardSales(client: DynamoDBClient, table = tableName(CARD_SALES_TABLE)): CardSales {
  const get = async (id: string): Promise<CardSale | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ id }), ConsistentRead: true }));
    return out.Item ? (unmarshall(out.Item) as CardSale) : undefined;
  };
  return {
    get,
    async record(sale) {
      try {
        // One sale per checkout session, whichever of Stripe's deliveries (or a complete call) comes first:
        // the conditional put is the whole idempotency; a later writer gets the sale that won.
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall(sale, { removeUndefinedValues: true }),
            ConditionExpression: 'attribute_not_exists(id)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { recorded: true, sale };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const item = (e as { Item?: Record<string, AttributeValue> }).Item;
        const existing = item ? (unmarshall(item) as CardSale) : await get(sale.id);
        if (!existing) throw new Error(`card sale ${sale.id} vanished after a failed conditional put`, { cause: e });
        return { recorded: false, sale: existing };
      }
    },
    async *scan() {
      for await (const item of scanItems(client, table)) yield unmarshall(item) as CardSale;
    },
  };
}
