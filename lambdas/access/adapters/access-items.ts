/**
 * What the three access-table adapters share: attribute constructors, the wallet's partition
 * on gsi1, and the query of one kind of item in it.
 */
import { type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { queryItems } from '../../platform/adapters/dynamo-client';

export type Item = Record<string, AttributeValue>;

/** Amounts travel as DynamoDB Numbers written from the bigint's decimal string: a JS number would round past 2^53. */
export const n = (value: bigint | number): AttributeValue => ({ N: value.toString() });
export const s = (value: string): AttributeValue => ({ S: value });

/** gsi1's partition for a wallet: its mandates, subscriptions and meter (wallets are stored lower-case). */
export const walletPartition = (wallet: string): string => `WALLET#${wallet.toLowerCase()}`;

/**
 * Every item of one kind in a wallet's partition, all pages. The partition holds all three kinds:
 * the sort-key prefix (`MANDATE#`, `SUB#`) keeps one. `newestFirst` where the sort key carries a time.
 */
export async function queryWalletItems(
  client: DynamoDBClient,
  table: string,
  wallet: string,
  prefix: string,
  opts: { newestFirst: boolean },
): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of queryItems(client, {
    TableName: table,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':p': s(walletPartition(wallet)), ':prefix': s(prefix) },
    ScanIndexForward: !opts.newestFirst,
  }))
    items.push(item);
  return items;
}
