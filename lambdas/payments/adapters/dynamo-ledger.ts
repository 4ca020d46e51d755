import { GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { getAddress, isAddress } from 'viem';
import { LEDGER_TABLE, tableName } from '../../contract/tables';
import { isConditionFailure } from '../../platform/adapters/dynamo-client';
import type { ClaimResult, Ledger, LedgerRow, LedgerSummary } from '../ports';

const LIST_PARTITION = 'UNLOCK';
const pk = (network: string, txHash: string): string => `${network}#${txHash.toLowerCase()}`;
/** Unlocks share the public list's partition; subscription and meter payments are listed apart, by kind. */
const listPartition = (row: LedgerRow): string =>
  row.kind === undefined || row.kind === 'unlock' ? LIST_PARTITION : `PAYMENT#${row.kind}`;

function toRow(item: Record<string, unknown>): LedgerRow {
  const { pk: _pk, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, ...row } = item;
  return row as unknown as LedgerRow;
}

/** The ledger table: one item per claimed transfer; the GSIs list confirmed unlocks only. */
export function dynamoLedger(client: DynamoDBClient, table = tableName(LEDGER_TABLE)): Ledger {
  const get = async (network: string, txHash: string): Promise<LedgerRow | undefined> => {
    const out = await client.send(
      new GetItemCommand({ TableName: table, Key: marshall({ pk: pk(network, txHash) }), ConsistentRead: true }),
    );
    return out.Item ? toRow(unmarshall(out.Item)) : undefined;
  };

  /** Newest first on one GSI partition: one page of rows, a count over every page, or every row projected. */
  type Mode = { kind: 'page'; limit: number } | { kind: 'count' } | { kind: 'all'; projection?: string; skill?: string };
  const query = async (index: 'gsi1' | 'gsi2' | 'gsi3', partition: string, mode: Mode) => {
    // gsi3 is keyed on the rows' own `payer` and `recordedAt` (see LEDGER_TABLE).
    const partitionKey = index === 'gsi3' ? 'payer' : `${index}pk`;
    let startKey: Record<string, unknown> | undefined;
    const rows: LedgerRow[] = [];
    let count = 0;
    do {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: index,
          KeyConditionExpression: `${partitionKey} = :p`,
          ExpressionAttributeValues: marshall({ ':p': partition, ...(mode.kind === 'all' && mode.skill ? { ':s': mode.skill } : {}) }),
          ScanIndexForward: false,
          ...(mode.kind === 'count'
            ? { Select: 'COUNT' as const }
            : mode.kind === 'page'
              ? { Limit: mode.limit }
              : {
                  ...(mode.projection ? { ProjectionExpression: mode.projection } : {}),
                  ...(mode.skill ? { FilterExpression: 'skill = :s' } : {}),
                }),
          ...(startKey ? { ExclusiveStartKey: startKey as never } : {}),
        }),
      );
      count += out.Count ?? 0;
      rows.push(...(out.Items ?? []).map((i) => toRow(unmarshall(i))));
      startKey = mode.kind === 'page' ? undefined : out.LastEvaluatedKey;
    } while (startKey);
    return { rows, count };
  };

  return {
    async claim(row): Promise<ClaimResult> {
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({
              ...row,
              // EIP-55, as the chain reader reports it: gsi3 (a wallet's history) is keyed on it.
              payer: getAddress(row.payer),
              pk: pk(row.network, row.txHash),
              gsi1pk: listPartition(row),
              gsi1sk: `${row.recordedAt}#${row.txHash}`,
              gsi2pk: row.skill,
              gsi2sk: `${row.recordedAt}#${row.txHash}`,
            }),
            // The whole idempotency story is this one condition.
            ConditionExpression: 'attribute_not_exists(pk) OR (#status = :reorged AND skill = :skill)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: marshall({ ':reorged': 'reorged', ':skill': row.skill }),
          }),
        );
        return { claimed: true };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const existing = await get(row.network, row.txHash);
        if (!existing) throw e;
        return { claimed: false, existing };
      }
    },
    get,
    async markReorged(network, txHash) {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: marshall({ pk: pk(network, txHash) }),
          UpdateExpression: 'SET #status = :reorged REMOVE gsi1pk, gsi1sk, gsi2pk, gsi2sk',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: marshall({ ':reorged': 'reorged' }),
        }),
      );
    },
    async markFinal(network, txHash) {
      // Only a confirmed row becomes final; a row a reorg already dropped stays dropped.
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: pk(network, txHash) }),
            UpdateExpression: 'SET #final = :true',
            ConditionExpression: '#status = :confirmed',
            ExpressionAttributeNames: { '#final': 'final', '#status': 'status' },
            ExpressionAttributeValues: marshall({ ':true': true, ':confirmed': 'confirmed' }),
          }),
        );
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
    },
    async recent(limit, skill) {
      return (await query(skill ? 'gsi2' : 'gsi1', skill ?? LIST_PARTITION, { kind: 'page', limit })).rows;
    },
    async count(skill) {
      return (await query(skill ? 'gsi2' : 'gsi1', skill ?? LIST_PARTITION, { kind: 'count' })).count;
    },
    async byPayer(payer, product) {
      // Rows carry the payer as the chain reported it, EIP-55; a wallet that is not an address has no rows.
      if (!isAddress(payer, { strict: false })) return [];
      // A wallet's history keeps its reorged rows too: markReorged leaves this index alone.
      return (await query('gsi3', getAddress(payer), { kind: 'all', ...(product ? { skill: product } : {}) })).rows;
    },
    async summary(): Promise<LedgerSummary> {
      // Every confirmed row, projected to what the figures need; at this service's volume a
      // full read per request is cheap, and it cannot drift from the rows as a counter could.
      const out: LedgerSummary = { confirmed: 0, volumeAtomic: 0n, perSkill: {}, newest: undefined };
      const { rows } = await query('gsi1', LIST_PARTITION, { kind: 'all', projection: 'txHash, skill, amount, recordedAt' });
      for (const r of rows) {
        out.confirmed++;
        out.volumeAtomic += BigInt(r.amount);
        out.perSkill[r.skill] = (out.perSkill[r.skill] ?? 0) + 1;
        out.newest ??= { txHash: r.txHash, recordedAt: r.recordedAt };
      }
      return out;
    },
  };
}
