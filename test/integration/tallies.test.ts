/**
 * The aggregate model against a DynamoDB Local of its own: the journal, the fold and the reconcile
 * job. After mixed claims, replays, reorgs, re-claims, card sales and racing writers, every
 * tally equals a recount of the records; writers that stop half-way are finished by a fold; a
 * tampered tally is reported.
 */
import { PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CARD_SALES_TABLE, LEDGER_TABLE, TALLIES_TABLE, type TableDefinition } from '../../lambdas/contract/tables';
import { tableName } from '../../lambdas/platform/table-names';
import { dynamoCardSales } from '../../lambdas/payments/adapters/dynamo-card-sales';
import { dynamoLedger } from '../../lambdas/payments/adapters/dynamo-ledger';
import { dynamoTallies } from '../../lambdas/payments/adapters/dynamo-tallies';
import { sumsOf, TOTAL_TARGET } from '../../lambdas/payments/core/tally';
import { unlockFigures, walletFigures } from '../../lambdas/payments/figures';
import { reconcileTallies, type ReconcilePorts } from '../../lambdas/payments/reconcile';
import { talliedCardSales, talliedLedger, tallyJournal } from '../../lambdas/payments/tally-journal';
import { createTables } from '../../local/create-tables';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';
import { cardSale, ledgerRow, PAYERS, tx } from '../support/records';

let db: ThrowawayDynamo;
let client: DynamoDBClient;
let run = 0;

beforeAll(async () => {
  db = await throwawayDynamo();
  client = db.client;
});
afterAll(() => db?.stop());

/** Fresh tables per test (suffixed names), so every test starts from zeros. */
function world(graceSeconds = 30) {
  const suffix = `-${++run}`;
  const named = (def: TableDefinition) => {
    const suffixed = { ...def, logicalName: `${def.logicalName}${suffix}` };
    return { ...suffixed, name: tableName(suffixed, {}) };
  };
  const tables = { ledger: named(LEDGER_TABLE), sales: named(CARD_SALES_TABLE), tallies: named(TALLIES_TABLE) };
  let clock = new Date('2026-11-20T10:00:00Z');
  const now = () => clock;
  const ledgerStore = dynamoLedger(client, tables.ledger.name);
  const saleStore = dynamoCardSales(client, tables.sales.name);
  const tallies = dynamoTallies(client, tables.tallies.name);
  const journal = tallyJournal({ tallies, sources: { ledger: ledgerStore.source, card: saleStore.source }, now, graceSeconds });
  const ports: ReconcilePorts = { ledger: ledgerStore, cardSales: saleStore, tallies, journal, now };
  return {
    tables,
    ledgerStore,
    saleStore,
    tallies,
    journal,
    ledger: talliedLedger(ledgerStore, journal),
    sales: talliedCardSales(saleStore, journal),
    reconcile: () => reconcileTallies(ports),
    tick: (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000)),
    setup: () => createTables(client, Object.values(tables)),
  };
}

// createTables names tables by tableName(def), which reads the env var first: keep it unset here.
beforeEach(() => {
  for (const def of [LEDGER_TABLE, CARD_SALES_TABLE, TALLIES_TABLE]) delete process.env[def.env];
});

const row = ledgerRow;
const sale = (id: string, cents: number) => cardSale(id, cents);

describe('the tallies', () => {
  it('start at zero, and a fresh reconcile finds nothing to differ', async () => {
    const w = world();
    await w.setup();
    expect(unlockFigures(await w.tallies.totals())).toEqual({ confirmed: 0, volumeAtomic: 0n, perSkill: {}, reorgedPerSkill: {} });
    expect(await w.tallies.days('2026-01-01', '2026-12-31')).toEqual(new Map());
    const report = await w.reconcile();
    expect(report).toMatchObject({ state: 'equal', ledger_rows: 0, card_sales: 0, journal_entries: 0, difference_count: 0 });
  });

  it('equal a recount after claims, replays, reorgs, re-claims, other kinds and card sales', async () => {
    const w = world();
    await w.setup();
    for (let n = 1; n <= 12; n++) {
      const kind =
        n % 4 === 0
          ? { kind: 'subscription' as const, skill: 'pro-monthly' }
          : n % 5 === 0
            ? { kind: 'meter_top_up' as const, skill: 'meter' }
            : {};
      expect((await w.ledger.claim(row(n, { ...kind, asset: n % 3 === 0 ? 'USDbC' : 'USDC', amount: String(10000 * n) }))).claimed).toBe(
        true,
      );
    }
    // Replays claim nothing and count nothing.
    for (const n of [1, 2, 3]) expect((await w.ledger.claim(row(n))).claimed).toBe(false);
    // Two reorgs, one of them re-claimed (for the same skill), one marked twice.
    await w.ledger.markReorged('base', tx(1));
    await w.ledger.markReorged('base', tx(1));
    await w.ledger.markReorged('base', tx(2));
    expect((await w.ledger.claim(row(2, { recordedAt: '2026-11-22T13:00:00.000Z', amount: '20000' }))).claimed).toBe(true);
    // A re-claim for another skill is refused: one transfer pays for one thing.
    expect((await w.ledger.claim(row(1, { skill: 'csv-cleaner' }))).claimed).toBe(false);
    await w.sales.record(sale('chk_a', 1900));
    await w.sales.record(sale('chk_a', 1900));
    await w.sales.record(sale('chk_b', 2500));

    const totals = unlockFigures(await w.tallies.totals());
    // Unlocks: 12 claims less 3 subscriptions (4, 8, 12) less 2 meters (5, 10) = 7; tx 1 reorged.
    expect(totals.confirmed).toBe(6);
    expect(totals.reorgedPerSkill).toEqual({ 'ten-send': 1 });
    expect(totals.volumeAtomic).toBe([2, 3, 6, 7, 9, 11].reduce((s, n) => s + 10000n * BigInt(n), 0n));
    const card = sumsOf(await w.tallies.totals()).lines.filter((l) => l.channel === 'card');
    expect(card).toEqual([{ channel: 'card', asset: 'USD', product: 'csv-cleaner', count: 2n, amount: 4400n }]);
    // tx 2 moved to the 22nd when it was re-claimed.
    const days = await w.tallies.days('2026-11-20', '2026-11-22');
    expect([...days.keys()]).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
    const wallet = walletFigures(await w.tallies.wallet(PAYERS[1].toLowerCase()));
    expect(wallet.reorged).toBe(1);

    const report = await w.reconcile();
    expect(report).toMatchObject({ state: 'equal', ledger_rows: 12, card_sales: 2, adopted: 0, difference_count: 0 });
  });

  it('count 40 racing claims of one transfer once', async () => {
    const w = world();
    await w.setup();
    const results = await Promise.all(Array.from({ length: 40 }, () => w.ledger.claim(row(7))));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    await w.journal.fold();
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(1);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 1 });
  });

  it('count racing writers of different records exactly, each folding as it goes', async () => {
    const w = world();
    await w.setup();
    await Promise.all([
      ...Array.from({ length: 15 }, (_, i) => w.ledger.claim(row(100 + i))),
      ...Array.from({ length: 5 }, (_, i) => w.sales.record(sale(`chk_${i}`, 1000 + i))),
    ]);
    await Promise.all([w.ledger.markReorged('base', tx(100)), w.ledger.markReorged('base', tx(101)), w.journal.fold()]);
    await w.journal.fold();
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(13);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 15, card_sales: 5 });
  });

  it('leave no writer unfolded when a later one finishes first', async () => {
    const w = world();
    await w.setup();
    // Writer A holds entry 1 and is still writing; writer B takes entry 2 and finishes first.
    const a = await w.tallies.allocate();
    await w.tallies.reserve(a, { kind: 'ledger', key: `base#${tx(50)}` }, new Date());
    await w.ledger.claim(row(51));
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(0);
    // A finishes as a writer does: its write, its publication, its fold through its own entry.
    await w.ledgerStore.claimAt(row(50), a);
    await w.journal.publish({ kind: 'ledger', key: `base#${tx(50)}` }, a);
    await w.journal.fold(200, a);
    // B's entry, behind A's, was folded by A: no schedule needed.
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(2);
  });

  it('fold a change whose writer stopped before publishing, from the record itself', async () => {
    const w = world();
    await w.setup();
    const seq = await w.tallies.allocate();
    await w.tallies.reserve(seq, { kind: 'ledger', key: `base#${tx(9)}` }, new Date());
    await w.ledgerStore.claimAt(row(9), seq);
    // The writer is gone: nothing published, nothing folded.
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(0);
    expect(await w.journal.fold()).toMatchObject({ state: 'caught_up', folded: 1 });
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(1);
    expect((await w.ledgerStore.get('base', tx(9)))?.jpending).toBeUndefined();
    expect(await w.reconcile()).toMatchObject({ state: 'equal' });
  });

  it('void a number nobody used after the grace period, and move a change voided under its writer', async () => {
    const w = world(30);
    await w.setup();
    // A number taken, never reserved: the fold waits, then voids it.
    await w.tallies.allocate();
    expect(await w.journal.fold()).toMatchObject({ state: 'waiting', next: 1 });
    w.tick(31);
    expect(await w.journal.fold()).toMatchObject({ state: 'caught_up', next: 2 });
    // A reserved entry whose writer is slow: voided after the grace period, then its write lands.
    const seq = await w.tallies.allocate();
    await w.tallies.reserve(seq, { kind: 'ledger', key: `base#${tx(5)}` }, w.tick(0));
    expect(await w.journal.fold()).toMatchObject({ state: 'waiting', next: seq });
    w.tick(31);
    expect(await w.journal.fold()).toMatchObject({ state: 'caught_up' });
    expect(await w.tallies.entry(seq)).toMatchObject({ state: 'void' });
    await w.ledgerStore.claimAt(row(5), seq);
    await w.journal.publish({ kind: 'ledger', key: `base#${tx(5)}` }, seq);
    const moved = await w.ledgerStore.get('base', tx(5));
    expect(moved?.jseq).toBeGreaterThan(seq);
    expect(moved?.jpending).toBeUndefined();
    await w.journal.fold();
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(1);
    expect(await w.reconcile()).toMatchObject({ state: 'equal' });
  });

  it('add a journal entry to an item once, however often the fold is retried', async () => {
    const w = world();
    await w.setup();
    await w.ledger.claim(row(3));
    const counters = new Map([['n|x402|USDC|ten-send', 1n]]);
    // Entry 1 was folded by the claim: applying it again changes nothing.
    expect(await w.tallies.apply(TOTAL_TARGET, counters, 1)).toBe(false);
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(1);
  });

  it('count the first journaled change of a row from before the journal as its first state', async () => {
    const w = world();
    await w.setup();
    const legacy = (n: number, status: 'confirmed' | 'reorged') => {
      const r = row(n, { status });
      return client.send(
        new PutItemCommand({
          TableName: w.tables.ledger.name,
          Item: marshall({
            ...r,
            pk: `base#${r.txHash}`,
            ...(status === 'confirmed' ? { gsi1pk: 'UNLOCK', gsi1sk: `${r.recordedAt}#${r.txHash}` } : {}),
          }),
        }),
      );
    };
    // Neither row was ever journaled, so neither is in the tallies: a reorg of the first and a
    // re-claim of the second must add only their new state, not take away an old one never added.
    await legacy(60, 'confirmed');
    await legacy(61, 'reorged');
    await w.ledger.markReorged('base', tx(60));
    expect((await w.ledger.claim(row(61))).claimed).toBe(true);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 2, adopted: 0, difference_count: 0 });
    expect(unlockFigures(await w.tallies.totals())).toMatchObject({ confirmed: 1, reorgedPerSkill: { 'ten-send': 1 } });
  });

  it('journal records written before the journal existed, once, and report a tampered tally', async () => {
    const w = world();
    await w.setup();
    await w.ledger.claim(row(1));
    // A row from before the journal: no marks.
    const legacy = row(2);
    await client.send(
      new PutItemCommand({
        TableName: w.tables.ledger.name,
        Item: marshall({ ...legacy, pk: `base#${legacy.txHash}`, gsi1pk: 'UNLOCK', gsi1sk: `${legacy.recordedAt}#${legacy.txHash}` }),
      }),
    );
    // Before adoption it is in no wallet's confirmed payments (it has no gsi4 keys); after, it is.
    expect(await w.ledgerStore.payerEdge(legacy.payer, 'first')).toBeUndefined();
    expect(await w.reconcile()).toMatchObject({ state: 'equal', adopted: 1, ledger_rows: 2 });
    expect(unlockFigures(await w.tallies.totals()).confirmed).toBe(2);
    expect((await w.ledgerStore.payerEdge(legacy.payer, 'first'))?.txHash).toBe(legacy.txHash);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', adopted: 0 });

    await client.send(
      new UpdateItemCommand({
        TableName: w.tables.tallies.name,
        Key: marshall({ pk: 'TOTAL', sk: '-' }),
        UpdateExpression: 'ADD #c :one',
        ExpressionAttributeNames: { '#c': 'n|x402|USDC|ten-send' },
        ExpressionAttributeValues: marshall({ ':one': 1 }),
      }),
    );
    const report = await w.reconcile();
    expect(report.state).toBe('different');
    expect(report.differences).toEqual([{ target: 'TOTAL', counter: 'n|x402|USDC|ten-send', expected: '2', stored: '3' }]);
  });
});

describe('local tables kept by an older version', () => {
  it('are rebuilt with a new index of their definition, items kept', async () => {
    const w = world();
    const older = { ...w.tables.ledger, indexes: w.tables.ledger.indexes.filter((i) => i.name !== 'gsi4') };
    await createTables(client, [older]);
    await w.ledgerStore.claimAt(row(4), 1);
    expect(await createTables(client, [w.tables.ledger])).toEqual([w.tables.ledger.name]);
    expect((await w.ledgerStore.get('base', tx(4)))?.txHash).toBe(tx(4));
    expect((await w.ledgerStore.payerEdge(PAYERS[0], 'first'))?.txHash).toBe(tx(4));
    // Nothing to add the second time: the table is left as it is.
    expect(await createTables(client, [w.tables.ledger])).toEqual([]);
  });
});
