import { GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { getAddress, isAddress } from 'viem';
import { LEDGER_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure, scanItems } from '../../platform/adapters/dynamo-client';
import { ledgerFact } from '../core/tally';
import type { ClaimResult, LedgerRow, LedgerStore } from '../ports';
import { dynamoJournalSource } from './dynamo-journal-source';

const LIST_PARTITION = 'UNLOCK';
const pk = (network: string, txHash: string): string => `${network}#${txHash.toLowerCase()}`;
/** Unlocks share the public list's partition; subscription and meter payments are listed apart, by kind. */
const listPartition = (row: LedgerRow): string =>
  row.kind === undefined || row.kind === 'unlock' ? LIST_PARTITION : `PAYMENT#${row.kind}`;
/** The sort key of the public lists, and the cursor of their pages: `<iso time>#<tx hash>`. */
const listSort = (row: Pick<LedgerRow, 'recordedAt' | 'txHash'>): string => `${row.recordedAt}#${row.txHash}`;
const LIST_CURSOR = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z#0x[0-9a-f]{64}$/;
/** Index keys a confirmed row carries and a reorged one loses, so the public lists hold confirmed rows only. */
const CONFIRMED_KEYS = 'gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi4pk, gsi4sk';

function toRow(item: Record<string, unknown>): LedgerRow {
  const { pk: _pk, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, gsi4pk: _e, gsi4sk: _f, ...row } = item;
  return row as unknown as LedgerRow;
}

const cursorOf = (sort: string): string => Buffer.from(sort).toString('base64url');
function sortOf(cursor: string): string | undefined {
  const sort = Buffer.from(cursor, 'base64url').toString('utf8');
  return LIST_CURSOR.test(sort) ? sort : undefined;
}

/**
 * The ledger table: one item per claimed transfer. `gsi1` and `gsi2` list confirmed unlocks,
 * `gsi3` is a wallet's whole history and `gsi4` its confirmed payments (see LEDGER_TABLE).
 */
export function dynamoLedger(client: DynamoDBClient, table = tableName(LEDGER_TABLE)): LedgerStore {
  const get = async (network: string, txHash: string): Promise<LedgerRow | undefined> => {
    const out = await client.send(
      new GetItemCommand({ TableName: table, Key: marshall({ pk: pk(network, txHash) }), ConsistentRead: true }),
    );
    return out.Item ? toRow(unmarshall(out.Item)) : undefined;
  };

  /** The item of a confirmed row: the row, its journal change, and the keys of every list it belongs to. */
  const confirmedItem = (row: LedgerRow, seq: number, version: number) => {
    // EIP-55, as the chain reader reports it: gsi3 and gsi4 (a wallet's history) are keyed on it.
    const payer = getAddress(row.payer);
    const { jseq: _s, jpending: _p, jv: _v, ...fields } = row;
    return marshall({
      ...fields,
      payer,
      pk: pk(row.network, row.txHash),
      gsi1pk: listPartition(row),
      gsi1sk: listSort(row),
      gsi2pk: row.skill,
      gsi2sk: listSort(row),
      gsi4pk: payer,
      gsi4sk: listSort(row),
      jseq: seq,
      jpending: seq,
      jv: version,
    });
  };

  /** Every row of one wallet's history, newest first; `product` filters to one skill, plan or `meter`. */
  const history = async (payer: string, product: string | undefined): Promise<LedgerRow[]> => {
    const rows: LedgerRow[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          // gsi3 is keyed on the rows' own `payer` and `recordedAt` (see LEDGER_TABLE).
          IndexName: 'gsi3',
          KeyConditionExpression: 'payer = :p',
          ExpressionAttributeValues: marshall({ ':p': payer, ...(product ? { ':s': product } : {}) }),
          ...(product ? { FilterExpression: 'skill = :s' } : {}),
          ScanIndexForward: false,
          ...(startKey ? { ExclusiveStartKey: startKey as never } : {}),
        }),
      );
      rows.push(...(out.Items ?? []).map((i) => toRow(unmarshall(i))));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return rows;
  };

  return {
    async claimAt(row, seq): Promise<ClaimResult> {
      // One transfer is claimed once: by the first of these two conditional writes that holds.
      // The first claim needs the key to be free; a re-claim needs the row to be reorged, for the
      // same skill, with its reorg already journaled and unchanged since it was read (`jv`).
      try {
        await client.send(
          new PutItemCommand({ TableName: table, Item: confirmedItem(row, seq, 1), ConditionExpression: 'attribute_not_exists(pk)' }),
        );
        return { claimed: true };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
      let existing = await get(row.network, row.txHash);
      if (!existing) throw new Error(`ledger row ${row.txHash} vanished after a failed conditional put`);
      if (existing.status === 'reorged' && existing.skill === row.skill && existing.jpending === undefined) {
        const before = existing.jv;
        try {
          await client.send(
            new PutItemCommand({
              TableName: table,
              // A row never journaled (no `jv`) is in no tally: its re-claim is the first state the journal knows.
              Item: confirmedItem(row, seq, before === undefined ? 1 : before + 1),
              ConditionExpression: `#status = :reorged AND skill = :skill AND attribute_not_exists(jpending) AND ${before === undefined ? 'attribute_not_exists(jv)' : 'jv = :jv'}`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: marshall({
                ':reorged': 'reorged',
                ':skill': row.skill,
                ...(before === undefined ? {} : { ':jv': before }),
              }),
            }),
          );
          return { claimed: true };
        } catch (e) {
          if (!isConditionFailure(e)) throw e;
          existing = (await get(row.network, row.txHash)) ?? existing;
        }
      }
      return { claimed: false, existing };
    },
    get,
    async reorgAt(network, txHash, seq) {
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: pk(network, txHash) }),
            // A row never journaled (no `jv`) is in no tally: its reorg is version 1, the first state the journal knows.
            UpdateExpression: `SET #status = :reorged, jseq = :seq, jpending = :seq, jv = if_not_exists(jv, :zero) + :one REMOVE ${CONFIRMED_KEYS}`,
            // Only a confirmed claim whose own change is journaled: a reorg is counted once.
            ConditionExpression: '#status = :confirmed AND attribute_not_exists(jpending)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: marshall({ ':reorged': 'reorged', ':confirmed': 'confirmed', ':seq': seq, ':zero': 0, ':one': 1 }),
          }),
        );
        return 'marked';
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const row = await get(network, txHash);
        if (row?.status === 'confirmed' && row.jpending !== undefined) return { pending: row.jpending };
        return 'not_confirmed';
      }
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
    async recent(limit, skill, after) {
      const sort = after === undefined ? undefined : sortOf(after);
      if (after !== undefined && sort === undefined) return undefined;
      const index = skill ? 'gsi2' : 'gsi1';
      // One page, read newest first from below the cursor: a key condition, so no row before it is read.
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: index,
          KeyConditionExpression: `${index}pk = :p${sort ? ` AND ${index}sk < :after` : ''}`,
          ExpressionAttributeValues: marshall({ ':p': skill ?? LIST_PARTITION, ...(sort ? { ':after': sort } : {}) }),
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      const rows = (out.Items ?? []).map((i) => toRow(unmarshall(i)));
      const last = rows.at(-1);
      return { rows, next: out.LastEvaluatedKey && last ? cursorOf(listSort(last)) : undefined };
    },
    async byPayer(payer, product) {
      // Rows carry the payer as the chain reported it, EIP-55; a wallet that is not an address has no rows.
      if (!isAddress(payer, { strict: false })) return [];
      // A wallet's history keeps its reorged rows too: a reorg leaves this index alone.
      return history(getAddress(payer), product);
    },
    async payerEdge(payer, which) {
      if (!isAddress(payer, { strict: false })) return undefined;
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'gsi4',
          KeyConditionExpression: 'gsi4pk = :p',
          ExpressionAttributeValues: marshall({ ':p': getAddress(payer) }),
          ScanIndexForward: which === 'first',
          Limit: 1,
        }),
      );
      return out.Items?.[0] ? toRow(unmarshall(out.Items[0])) : undefined;
    },
    source: dynamoJournalSource(
      client,
      table,
      (key) => ({ pk: key }),
      (item) => ledgerFact(toRow(item)),
      // A confirmed row from before gsi4 existed joins its wallet's confirmed payments when adopted.
      (item) => {
        const row = toRow(item);
        return row.status === 'confirmed' && item['gsi4pk'] === undefined && isAddress(row.payer, { strict: false })
          ? { gsi4pk: getAddress(row.payer), gsi4sk: listSort(row) }
          : {};
      },
    ),
    async *scan() {
      for await (const item of scanItems(client, table)) yield toRow(unmarshall(item));
    },
  };
}
