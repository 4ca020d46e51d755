import {
  BatchGetItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { getAddress, isAddress } from 'viem';
import { LEDGER_LIST_SHARDS, LEDGER_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { conditionally, isConditionFailure, scanItems } from '../../platform/adapters/dynamo-client';
import type { ClaimResult, LedgerKind, LedgerRow, Ledger, PaymentRef } from '../ports';

/** A row's key: `<network>#<lower-case tx hash>` (also what the refunds adapter updates a sale by). */
export const ledgerPk = (network: string, txHash: string): string => `${network}#${txHash.toLowerCase()}`;
const pk = ledgerPk;
const refOf = (key: string, recordedAt: string): PaymentRef => {
  const at = key.indexOf('#');
  return { network: key.slice(0, at), txHash: key.slice(at + 1), recordedAt };
};
/** The public lists' sort key, and the cursor of their pages: `<iso time>#<tx hash>`, unique. */
const listSort = (row: Pick<LedgerRow, 'recordedAt' | 'txHash'>): string => `${row.recordedAt}#${row.txHash.toLowerCase()}`;
const LIST_CURSOR = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z#0x[0-9a-f]{64}$/;
/** The public list's shard of a transfer: from its hash, so a row's shard never changes. */
const listKey = (txHash: string): string => `UNLOCK#${parseInt(txHash.slice(-2), 16) % LEDGER_LIST_SHARDS}`;
/** What a wallet owns, as the `owned` index keys it: `<lower-case payer>#<kind>#<product>`. */
const ownerKey = (payer: string, kind: LedgerKind, product: string): string => `${payer.toLowerCase()}#${kind}#${product}`;
/** Index keys only a confirmed row carries: a reorg removes them, so the row leaves the public list and what its payer owns. */
const CONFIRMED_KEYS = 'listKey, #owner';

function toRow(item: Record<string, unknown>): LedgerRow {
  const { pk: _pk, listKey: _l, listSort: _s, owner: _o, ...row } = item;
  return row as unknown as LedgerRow;
}

const cursorOf = (sort: string): string => Buffer.from(sort).toString('base64url');
/** A wallet's page cursor: the last row's `recordedAt` and key, the `byPayer` index's position (payer, time, table key). */
const PAYER_CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z)#([a-z0-9:-]{1,64}#0x[0-9a-f]{64})$/;
/** BatchGetItem reads at most 100 keys; a page of a wallet's purchases is far smaller. */
const MAX_PAYER_PAGE = 100;
function sortOf(cursor: string): string | undefined {
  const sort = Buffer.from(cursor, 'base64url').toString('utf8');
  return LIST_CURSOR.test(sort) ? sort : undefined;
}

/**
 * The ledger table: one item per claimed transfer (see LEDGER_TABLE). A claim is one conditional
 * PutItem and nothing else: the figures follow from the table's stream (lambdas/ledger/fold.ts).
 */
export function dynamoLedger(client: DynamoDBClient, table = tableName(LEDGER_TABLE)): Ledger {
  const get = async (network: string, txHash: string): Promise<LedgerRow | undefined> => {
    const out = await client.send(
      new GetItemCommand({ TableName: table, Key: marshall({ pk: pk(network, txHash) }), ConsistentRead: true }),
    );
    return out.Item ? toRow(unmarshall(out.Item)) : undefined;
  };

  /** The item of a confirmed row: the row and the keys of every index it belongs to. */
  const confirmedItem = (row: LedgerRow) => {
    // EIP-55, as the chain reader reports it: `byPayer` is keyed on it.
    const payer = getAddress(row.payer);
    const kind = row.kind ?? 'unlock';
    return marshall(
      {
        ...row,
        payer,
        pk: pk(row.network, row.txHash),
        listSort: listSort(row),
        // Only unlocks are listed publicly; subscription periods and meter top-ups are owned, not listed.
        ...(kind === 'unlock' ? { listKey: listKey(row.txHash) } : {}),
        owner: ownerKey(payer, kind, row.skill),
      },
      { removeUndefinedValues: true },
    );
  };

  /** The one write of a claim; the refusal carries the row that holds the key, without a second read. */
  const put = async (row: LedgerRow, condition: string, values?: Record<string, unknown>): Promise<LedgerRow | undefined> => {
    try {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: confirmedItem(row),
          ConditionExpression: condition,
          ...(values ? { ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: marshall(values) } : {}),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
      const item = (e as { Item?: Record<string, AttributeValue> }).Item;
      return item ? toRow(unmarshall(item)) : ((await get(row.network, row.txHash)) ?? row);
    }
  };

  /** The newest rows of one index partition below a cursor, `limit` of them that pass `keep`. */
  const page = async (
    index: 'recent' | 'bySkill',
    partition: { name: string; value: string },
    limit: number,
    below: string | undefined,
    keep: (row: LedgerRow) => boolean,
  ): Promise<{ rows: LedgerRow[]; more: boolean }> => {
    const rows: LedgerRow[] = [];
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: index,
          KeyConditionExpression: `#p = :p${below ? ' AND listSort < :below' : ''}`,
          ExpressionAttributeNames: { '#p': partition.name },
          ExpressionAttributeValues: marshall({ ':p': partition.value, ...(below ? { ':below': below } : {}) }),
          ScanIndexForward: false,
          Limit: limit - rows.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of out.Items ?? []) {
        const row = toRow(unmarshall(item));
        if (keep(row)) rows.push({ ...row, recordedAt: String(item['listSort']?.S ?? '').split('#')[0]! });
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey && rows.length < limit);
    return { rows, more: startKey !== undefined };
  };

  /** A wallet's first or last entry in one partition of an index keyed by time (`recordedAt`). */
  const edge = async (index: 'owned' | 'byPayer', name: string, value: string, which: 'first' | 'last', confirmedOnly: boolean) => {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: index,
          KeyConditionExpression: '#p = :p',
          ExpressionAttributeNames: { '#p': name },
          ExpressionAttributeValues: marshall({ ':p': value }),
          ScanIndexForward: which === 'first',
          // `owned` holds confirmed rows only: the first entry answers. `byPayer` keeps reorged ones, which are rare.
          Limit: confirmedOnly ? 5 : 1,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of out.Items ?? []) {
        if (confirmedOnly && item['status']?.S !== 'confirmed') continue;
        return { key: item['pk']!.S!, recordedAt: item['recordedAt']!.S! };
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return undefined;
  };

  /** Items by key, one BatchGetItem (at most 100 keys), `projection` only if given. */
  const batchGet = async (keys: string[], projection?: string): Promise<Map<string, LedgerRow>> => {
    const byKey = new Map<string, LedgerRow>();
    let pending: Record<string, AttributeValue>[] = keys.map((k) => marshall({ pk: k }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      // Keys DynamoDB left unprocessed (throttling) are asked again after a growing pause, as AWS advises.
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
      const out = await client.send(
        new BatchGetItemCommand({
          RequestItems: { [table]: { Keys: pending, ...(projection ? { ProjectionExpression: projection } : {}) } },
        }),
      );
      for (const item of out.Responses?.[table] ?? []) byKey.set(item['pk']!.S!, toRow(unmarshall(item)));
      pending = (out.UnprocessedKeys?.[table]?.Keys as Record<string, AttributeValue>[] | undefined) ?? [];
    }
    return byKey;
  };

  /**
   * Adds each listed row's refunds (`refundedAmount`, `refunds`), which the list indexes do not
   * copy: one BatchGetItem of the page's rows, those two attributes only. Not a projection of the
   * indexes: CloudFormation cannot change an existing index's projection, and refunds are rare.
   */
  const withRefunds = async (rows: LedgerRow[]): Promise<LedgerRow[]> => {
    if (rows.length === 0) return rows;
    const refunds = await batchGet(
      rows.map((r) => pk(r.network, r.txHash)),
      'pk, refundedAmount, refunds',
    );
    return rows.map((r) => {
      const got = refunds.get(pk(r.network, r.txHash));
      return got?.refundedAmount !== undefined ? { ...r, refundedAmount: got.refundedAmount, refunds: got.refunds ?? {} } : r;
    });
  };

  return {
    async claim(row): Promise<ClaimResult> {
      // One transfer is claimed once: by the first of these two conditional writes that holds.
      // The first claim needs the key to be free; a re-claim needs the row to be reorged, for the same skill.
      let existing = await put(row, 'attribute_not_exists(pk)');
      if (!existing) return { claimed: true };
      if (existing.status === 'reorged' && existing.skill === row.skill) {
        existing = await put(row, '#status = :reorged AND skill = :skill', { ':reorged': 'reorged', ':skill': row.skill });
        if (!existing) return { claimed: true };
      }
      return { claimed: false, existing };
    },
    get,
    async markReorged(network, txHash) {
      // Only a confirmed claim: a reorg is marked (and counted by the fold) once; a second mark changes nothing.
      await conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: pk(network, txHash) }),
            UpdateExpression: `SET #status = :reorged REMOVE ${CONFIRMED_KEYS}`,
            ConditionExpression: '#status = :confirmed',
            ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner' },
            ExpressionAttributeValues: marshall({ ':reorged': 'reorged', ':confirmed': 'confirmed' }),
          }),
        ),
      );
    },
    async markFinal(network, txHash) {
      // Only a confirmed row becomes final; a row a reorg already dropped stays dropped.
      await conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: pk(network, txHash) }),
            UpdateExpression: 'SET #final = :true',
            ConditionExpression: '#status = :confirmed',
            ExpressionAttributeNames: { '#final': 'final', '#status': 'status' },
            ExpressionAttributeValues: marshall({ ':true': true, ':confirmed': 'confirmed' }),
          }),
        ),
      );
    },
    async recordCapture(network, txHash, captureTx) {
      // The buyer's own row, once: the capture that paid the treasury for it.
      await conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: pk(network, txHash) }),
            UpdateExpression: 'SET #capture = :tx',
            ConditionExpression: '#scheme = :escrow AND attribute_not_exists(#capture)',
            ExpressionAttributeNames: { '#capture': 'captureTx', '#scheme': 'scheme' },
            ExpressionAttributeValues: marshall({ ':tx': captureTx.toLowerCase(), ':escrow': 'auth-capture' }),
          }),
        ),
      );
    },
    async recent(limit, skill, after) {
      const below = after === undefined ? undefined : sortOf(after);
      if (after !== undefined && below === undefined) return undefined;
      const confirmedUnlock = (r: LedgerRow) => r.status === 'confirmed' && (r.kind ?? 'unlock') === 'unlock';
      // One page from below the cursor: a key condition, so no row before it is read. The whole
      // list is spread over shards: each gives its newest `limit + 1`, and the merge keeps `limit`.
      const pages = skill
        ? [await page('bySkill', { name: 'skill', value: skill }, limit + 1, below, confirmedUnlock)]
        : await Promise.all(
            Array.from({ length: LEDGER_LIST_SHARDS }, (_, n) =>
              page('recent', { name: 'listKey', value: `UNLOCK#${n}` }, limit + 1, below, confirmedUnlock),
            ),
          );
      const merged = pages.flatMap((p) => p.rows).sort((a, b) => (listSort(a) < listSort(b) ? 1 : -1));
      const rows = merged.slice(0, limit);
      const more = merged.length > limit || pages.some((p) => p.more);
      const last = rows.at(-1);
      return { rows: await withRefunds(rows), next: more && last ? cursorOf(listSort(last)) : undefined };
    },
    async owned(payer, product, which) {
      if (!isAddress(payer, { strict: false })) return undefined;
      const found = await edge('owned', 'owner', ownerKey(payer, 'unlock', product), which, false);
      return found ? refOf(found.key, found.recordedAt) : undefined;
    },
    async ofPayer(payer, limit, after) {
      if (!isAddress(payer, { strict: false })) return { rows: [], next: undefined };
      const owner = getAddress(payer);
      const at = after === undefined ? undefined : PAYER_CURSOR.exec(Buffer.from(after, 'base64url').toString('utf8'));
      if (after !== undefined && !at) return undefined;
      const size = Math.min(Math.max(1, limit), MAX_PAYER_PAGE);
      const keys: { pk: string; recordedAt: string }[] = [];
      let startKey: Record<string, AttributeValue> | undefined = at ? marshall({ payer: owner, recordedAt: at[1], pk: at[2] }) : undefined;
      // The index holds keys and status only: the confirmed rows' keys first, then their items in one batch.
      do {
        const out = await client.send(
          new QueryCommand({
            TableName: table,
            IndexName: 'byPayer',
            KeyConditionExpression: 'payer = :p',
            ExpressionAttributeValues: marshall({ ':p': owner }),
            ScanIndexForward: false,
            Limit: size + 1 - keys.length,
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        );
        for (const item of out.Items ?? [])
          if (item['status']?.S === 'confirmed') keys.push({ pk: item['pk']!.S!, recordedAt: item['recordedAt']!.S! });
        startKey = out.LastEvaluatedKey;
      } while (startKey && keys.length <= size);
      const more = keys.length > size || startKey !== undefined;
      const wanted = keys.slice(0, size);
      const byKey = await batchGet(wanted.map((k) => k.pk));
      // A row reorged between the two reads is left out: it no longer belongs to the wallet.
      const rows = wanted.map((k) => byKey.get(k.pk)).filter((r): r is LedgerRow => r !== undefined && r.status === 'confirmed');
      const last = wanted.at(-1);
      return { rows, next: more && last ? Buffer.from(`${last.recordedAt}#${last.pk}`).toString('base64url') : undefined };
    },
    async payerEdge(payer, which) {
      // Rows carry the payer as the chain reported it, EIP-55; a wallet that is not an address has none.
      if (!isAddress(payer, { strict: false })) return undefined;
      const found = await edge('byPayer', 'payer', getAddress(payer), which, true);
      return found ? { recordedAt: found.recordedAt } : undefined;
    },
    async *scan() {
      for await (const item of scanItems(client, table)) yield toRow(unmarshall(item));
    },
  };
}
