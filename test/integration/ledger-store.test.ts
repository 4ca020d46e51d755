/**
 * The ledger, card sales and the figures on AWS's DynamoDB Local, with the fold fed by the tables'
 * real streams (the local poller, the event source mapping's twin): every figure equals a recount
 * of the records, after concurrent buyers and after the fold stopped half-way through a batch.
 */
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CARD_SALES_TABLE, LEDGER_TABLE, TALLIES_TABLE, type TableDefinition } from '../../lambdas/contract/tables';
import { tableName } from '../../lambdas/platform/table-names';
import { dynamoCardSales } from '../../lambdas/ledger/adapters/dynamo-card-sales';
import { dynamoCounters } from '../../lambdas/ledger/adapters/dynamo-counters';
import { dynamoLedger } from '../../lambdas/ledger/adapters/dynamo-ledger';
import { sumsOf } from '../../lambdas/ledger/core/counters';
import { unlockFigures, walletFigures } from '../../lambdas/ledger/figures';
import type { CounterStore } from '../../lambdas/ledger/ports';
import { reconcileFigures } from '../../lambdas/ledger/reconcile';
import { createTables } from '../../local/create-tables';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';
import { foldNow, startFold } from '../support/fold';
import { cardSale, ledgerRow, PAYERS, tx } from '../support/records';

let db: ThrowawayDynamo;
let client: DynamoDBClient;
let run = 0;

beforeAll(async () => {
  db = await throwawayDynamo();
  client = db.client;
});
afterAll(() => db?.stop());

// createTables names tables by tableName(def), which reads the env var first: keep it unset here.
beforeEach(() => {
  for (const def of [LEDGER_TABLE, CARD_SALES_TABLE, TALLIES_TABLE]) delete process.env[def.env];
});

/** Fresh tables per test (suffixed names), so every test starts from zeros. */
async function world() {
  const suffix = `-${++run}`;
  const named = (def: TableDefinition) => {
    const suffixed = { ...def, logicalName: `${def.logicalName}${suffix}` };
    return { ...suffixed, name: tableName(suffixed, {}) };
  };
  const tables = { ledger: named(LEDGER_TABLE), sales: named(CARD_SALES_TABLE), counters: named(TALLIES_TABLE) };
  await createTables(client, Object.values(tables));
  const ledger = dynamoLedger(client, tables.ledger.name);
  const sales = dynamoCardSales(client, tables.sales.name);
  const counters = dynamoCounters(client, tables.counters.name);
  const target = { endpoint: db.endpoint, client, streams: [tables.ledger.name, tables.sales.name], counters: tables.counters.name };
  return {
    tables,
    ledger,
    sales,
    counters,
    target,
    fold: () => foldNow(target),
    reconcile: () =>
      reconcileFigures(
        { ledger, cardSales: sales, counters, now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
        { settleMs: 200 },
      ),
  };
}

const row = ledgerRow;

describe('the figures', () => {
  it('start at zero, and a fresh reconcile finds nothing to differ', async () => {
    const w = await world();
    expect(unlockFigures(await w.counters.totals())).toEqual({ confirmed: 0, volumeAtomic: 0n, perSkill: {}, reorgedPerSkill: {} });
    expect(await w.counters.days('2026-01-01', '2026-12-31')).toEqual(new Map());
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 0, card_sales: 0, difference_count: 0 });
  });

  it('equal a recount after claims, replays, reorgs, re-claims, other kinds and card sales', async () => {
    const w = await world();
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
    // Two reorgs, one of them re-claimed (for the same skill), one marked twice; a row marked final changes no figure.
    await w.ledger.markReorged('base', tx(1));
    await w.ledger.markReorged('base', tx(1));
    await w.ledger.markReorged('base', tx(2));
    await w.ledger.markFinal('base', tx(3));
    expect((await w.ledger.claim(row(2, { recordedAt: '2026-11-22T13:00:00.000Z', amount: '20000' }))).claimed).toBe(true);
    // A re-claim for another skill is refused: one transfer pays for one thing.
    expect((await w.ledger.claim(row(1, { skill: 'csv-cleaner' }))).claimed).toBe(false);
    await w.sales.record(cardSale('chk_a', 1900));
    await w.sales.record(cardSale('chk_a', 1900));
    await w.sales.record(cardSale('chk_b', 2500));
    await w.fold();

    const totals = unlockFigures(await w.counters.totals());
    // Unlocks: 12 claims less 3 subscriptions (4, 8, 12) less 2 meters (5, 10) = 7; tx 1 reorged.
    expect(totals.confirmed).toBe(6);
    expect(totals.reorgedPerSkill).toEqual({ 'ten-send': 1 });
    expect(totals.volumeAtomic).toBe([2, 3, 6, 7, 9, 11].reduce((s, n) => s + 10000n * BigInt(n), 0n));
    const card = sumsOf(await w.counters.totals()).lines.filter((l) => l.channel === 'card');
    expect(card).toEqual([{ channel: 'card', asset: 'USD', product: 'csv-cleaner', count: 2n, amount: 4400n }]);
    // tx 2 moved to the 22nd when it was re-claimed.
    expect([...(await w.counters.days('2026-11-20', '2026-11-22')).keys()]).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
    expect(walletFigures(await w.counters.wallet(PAYERS[1].toLowerCase())).reorged).toBe(1);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 12, card_sales: 2, difference_count: 0 });
    // Folding the streams again from their start (a restarted fold) adds nothing.
    await w.fold();
    expect(await w.reconcile()).toMatchObject({ state: 'equal', difference_count: 0 });
  });

  it('count 40 racing claims of one transfer once', async () => {
    const w = await world();
    const results = await Promise.all(Array.from({ length: 40 }, () => w.ledger.claim(row(7))));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    // Every loser is told whose row it is, from the refused write itself.
    for (const r of results) if (!r.claimed) expect(r.existing.txHash).toBe(tx(7));
    await w.fold();
    expect(unlockFigures(await w.counters.totals()).confirmed).toBe(1);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 1 });
  });

  it('equal a recount after 1,000 claims by 8 concurrent buyers, folded while they buy', async () => {
    const w = await world();
    const fold = startFold(w.target);
    const skills = ['ten-send', 'csv-cleaner', 'json-fixer', 'agent-x402-first-buy'];
    await Promise.all(
      Array.from({ length: 8 }, async (_, buyer) => {
        for (let i = 0; i < 125; i++) {
          const n = 10_000 + buyer * 1000 + i;
          const r = await w.ledger.claim(
            row(n, { skill: skills[n % skills.length]!, payer: PAYERS[buyer % 2]!, amount: String(1000 + i) }),
          );
          expect(r.claimed).toBe(true);
        }
      }),
    );
    await fold.caughtUp();
    await fold.stop();
    expect(unlockFigures(await w.counters.totals()).confirmed).toBe(1000);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 1000, difference_count: 0 });
  }, 120_000);

  it('equal a recount after the fold is killed half-way through a batch and restarted', async () => {
    const w = await world();
    for (let n = 1; n <= 60; n++) await w.ledger.claim(row(n, { skill: n % 3 ? 'ten-send' : 'csv-cleaner', amount: String(100 * n) }));
    // The first fold dies after a few of the batch's item writes: some items took the batch, the rest did not.
    let writes = 0;
    const errors: Error[] = [];
    const dying = (store: CounterStore): CounterStore => ({
      ...store,
      apply: async (...args) => {
        if (++writes > 4) throw new Error('killed');
        return store.apply(...args);
      },
    });
    const first = startFold(w.target, dying, (e) => errors.push(e));
    await new Promise<void>((resolve) => {
      const wait = setInterval(() => errors.length > 0 && (clearInterval(wait), resolve()), 20);
    });
    await first.stop();
    expect(writes).toBeGreaterThan(4);
    // Half-way: some figures moved, not all.
    expect(unlockFigures(await w.counters.totals()).confirmed).toBeLessThan(60);
    // A fresh fold reads the streams from their start again; the items that took the batch add it once.
    await w.fold();
    expect(unlockFigures(await w.counters.totals()).confirmed).toBe(60);
    expect(await w.reconcile()).toMatchObject({ state: 'equal', ledger_rows: 60, difference_count: 0 });
  });

  it('report a counter that differs from the recount', async () => {
    const w = await world();
    await w.ledger.claim(row(1));
    await w.fold();
    await client.send(
      new UpdateItemCommand({
        TableName: w.tables.counters.name,
        Key: { pk: { S: 'TOTAL' }, sk: { S: 'ten-send|x402|USDC' } },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    );
    const report = await w.reconcile();
    expect(report.state).toBe('different');
    expect(report.differences).toEqual([{ pk: 'TOTAL', sk: 'ten-send|x402|USDC', metric: 'n', expected: '1', stored: '2' }]);
  });
});

describe('what a wallet owns', () => {
  it('is its confirmed unlocks of the skill, one Query whatever its history; a reorg removes one, a re-claim restores it', async () => {
    const w = await world();
    const payer = PAYERS[0];
    // tx 2 and tx 4 are the payer's (n % 2 = 0); other kinds of the same product id are not unlocks.
    await w.ledger.claim(row(2, { recordedAt: '2026-11-01T00:00:00.000Z' }));
    await w.ledger.claim(row(4, { recordedAt: '2026-11-02T00:00:00.000Z' }));
    await w.ledger.claim(row(6, { kind: 'subscription', skill: 'csv-cleaner' }));
    expect(await w.ledger.owned(payer.toLowerCase(), 'ten-send', 'first')).toEqual({
      network: 'base',
      txHash: tx(2),
      recordedAt: '2026-11-01T00:00:00.000Z',
    });
    expect((await w.ledger.owned(payer, 'ten-send', 'last'))?.txHash).toBe(tx(4));
    expect(await w.ledger.owned(payer, 'csv-cleaner', 'first')).toBeUndefined();
    expect(await w.ledger.owned(PAYERS[1], 'ten-send', 'first')).toBeUndefined();
    expect(await w.ledger.owned('not-an-address', 'ten-send', 'first')).toBeUndefined();
    await w.ledger.markReorged('base', tx(2));
    expect((await w.ledger.owned(payer, 'ten-send', 'first'))?.txHash).toBe(tx(4));
    await w.ledger.markReorged('base', tx(4));
    expect(await w.ledger.owned(payer, 'ten-send', 'first')).toBeUndefined();
    expect((await w.ledger.payerEdge(payer, 'first'))?.recordedAt).toBe(row(6).recordedAt);
    await w.ledger.claim(row(4, { recordedAt: '2026-11-03T00:00:00.000Z' }));
    expect((await w.ledger.owned(payer, 'ten-send', 'last'))?.recordedAt).toBe('2026-11-03T00:00:00.000Z');
  });
});

describe('the public list', () => {
  it('pages through every confirmed unlock across its shards, newest first, never twice, and refuses a foreign cursor', async () => {
    const w = await world();
    // 30 unlocks in one millisecond and 10 more later: the cursor still orders them (time, then tx).
    for (let n = 1; n <= 40; n++)
      await w.ledger.claim(
        row(n, { recordedAt: n <= 30 ? '2026-11-20T12:00:00.000Z' : `2026-11-21T12:00:${String(n).padStart(2, '0')}.000Z` }),
      );
    await w.ledger.claim(row(41, { kind: 'subscription', skill: 'pro-monthly' }));
    await w.ledger.markReorged('base', tx(5));
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await w.ledger.recent(7, undefined, after);
      seen.push(...page!.rows.map((r) => r.txHash));
      for (const r of page!.rows) expect(r.status).toBe('confirmed');
      if (!page!.next) break;
      after = page!.next;
    }
    expect(seen).toHaveLength(39);
    expect(new Set(seen).size).toBe(39);
    expect(seen.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => tx(40 - i)));
    const bySkill = await w.ledger.recent(100, 'ten-send');
    expect(bySkill!.rows).toHaveLength(39);
    expect(bySkill!.next).toBeUndefined();
    expect(await w.ledger.recent(5, undefined, 'bm90IGEgY3Vyc29y')).toBeUndefined();
  });
});
