/**
 * The figures' arithmetic and the fold's redelivery rule. Folding every change a stream reports
 * (old image → new image), in any order of records, equals the recount of the records as they end
 * up: the property the reconcile job checks. And a batch delivered again, whole or split, or after
 * a fold stopped half-way, adds nothing twice.
 */
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../lambdas/catalog';
import type { ApiRequest } from '../../lambdas/platform/http';
import { getSignals } from '../../lambdas/insights/signals';
import type { InsightsPorts } from '../../lambdas/insights/ports';
import {
  addAll,
  addLine,
  cardSaleFact,
  changeDeltas,
  counterName,
  diffTallies,
  ledgerFact,
  markSequence,
  parseCounter,
  parseLine,
  recount,
  sumsOf,
  targetKey,
  type CounterTarget,
  type Counters,
  type FoldMark,
  type MetricCounts,
  type TalliedRow,
  type TallyDeltas,
  type TallyFact,
} from '../../lambdas/ledger/core/counters';
import { foldBatch, type StreamChange } from '../../lambdas/ledger/fold';
import type { CounterStore } from '../../lambdas/ledger/ports';

/** A small deterministic generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const KINDS = ['unlock', 'subscription', 'meter_top_up'] as const;
const PAYERS = ['0xAbC0000000000000000000000000000000000001', '0x00000000000000000000000000000000000000d2'];

/**
 * A random history of claims, refunds (in part, the rest, or all at once), reorgs and re-claims, as
 * the changes a stream reports, and the rows and card sales it ends with.
 */
function history(seed: number, steps = 200): { changes: StreamChange[]; facts: TallyFact[] } {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const rows = new Map<number, TalliedRow>();
  const changes: StreamChange[] = [];
  for (let step = 0; step < steps; step++) {
    const id = Math.floor(r() * 25);
    const row = rows.get(id);
    let next: TalliedRow;
    if (!row) {
      next = {
        kind: pick(KINDS),
        skill: pick(['ten-send', 'csv-cleaner', 'pro-monthly']),
        amount: String(1 + Math.floor(r() * 5_000_000)),
        asset: pick(['USDC', 'USDbC'] as const),
        payer: pick(PAYERS),
        recordedAt: `2026-11-${String(10 + Math.floor(r() * 9))}T08:00:00.000Z`,
        status: 'confirmed',
      };
    } else if (row.status === 'confirmed' && (row.kind ?? 'unlock') === 'unlock' && row.refundedAmount !== row.amount && r() < 0.5) {
      // An operator's refund of a skill sale: half of what is left, or all of it.
      const left = BigInt(row.amount) - BigInt(row.refundedAmount ?? '0');
      const back = r() < 0.5 ? left / 2n : left;
      next = { ...row, refundedAmount: (BigInt(row.refundedAmount ?? '0') + back).toString() };
    } else if (row.status === 'confirmed') {
      next = { ...row, status: 'reorged' };
    } else {
      // A re-claim: same transfer, same skill; it may land on another day.
      next = { ...row, status: 'confirmed', recordedAt: `2026-11-${String(10 + Math.floor(r() * 9))}T09:00:00.000Z` };
    }
    changes.push({ sequence: String(1000 + step), before: row && ledgerFact(row), after: ledgerFact(next) });
    rows.set(id, next);
  }
  const sales = Array.from({ length: 5 }, (_, i) => ({
    skill: 'csv-cleaner',
    amountCents: 99 + i,
    recordedAt: '2026-11-12T00:00:00.000Z',
  }));
  sales.forEach((s, i) => changes.push({ sequence: String(1000 + steps + i), before: undefined, after: cardSaleFact(s) }));
  // Stripe refunds two of them, one in part and one in full.
  const refunded = [
    { ...sales[1]!, refundedCents: 50 },
    { ...sales[3]!, refundedCents: sales[3]!.amountCents },
  ];
  changes.push({ sequence: String(1000 + steps + 5), before: cardSaleFact(sales[1]!), after: cardSaleFact(refunded[0]!) });
  changes.push({ sequence: String(1000 + steps + 6), before: cardSaleFact(sales[3]!), after: cardSaleFact(refunded[1]!) });
  const standing = [sales[0]!, refunded[0]!, sales[2]!, refunded[1]!, sales[4]!];
  return { changes, facts: [...[...rows.values()].map(ledgerFact), ...standing.map(cardSaleFact)] };
}

/** One confirmed unlock of ten-send by the first payer. */
const ONE_ROW: TalliedRow = {
  skill: 'ten-send',
  amount: '10000',
  asset: 'USDC',
  payer: PAYERS[0]!,
  recordedAt: '2026-11-20T00:00:00Z',
  status: 'confirmed',
};

/** The counter table in memory, with DynamoDB's conditional update and the marks it keeps. */
function memoryCounters() {
  const items = new Map<string, { target: CounterTarget; counts: MetricCounts; marks: Map<string, string> }>();
  let writes = 0;
  const store: CounterStore = {
    async apply(target, counts, mark: FoldMark, expected) {
      const key = targetKey(target);
      const item = items.get(key) ?? { target, counts: new Map(), marks: new Map() };
      const stored = item.marks.get(mark.attribute);
      const holds = expected === null ? stored === undefined || stored < mark.first : stored === expected;
      if (!holds) return { stale: stored! };
      for (const [m, v] of counts) item.counts.set(m, (item.counts.get(m) ?? 0n) + v);
      item.marks.set(mark.attribute, `${mark.last}@1`);
      items.set(key, item);
      writes++;
      return 'applied';
    },
    async all() {
      const out: TallyDeltas = new Map();
      for (const [key, { target, counts }] of items) {
        const nonzero = new Map([...counts].filter(([, v]) => v !== 0n));
        if (nonzero.size > 0) out.set(key, { target, counts: nonzero });
      }
      return out;
    },
    async prune() {
      return 0;
    },
  };
  return { store, writes: () => writes };
}

const shard = { streamArn: 'arn:aws:dynamodb:us-east-1:1:table/Ledger/stream/x', shardId: 'shardId-1' };

describe('figures arithmetic', () => {
  it('folds any history of claims, refunds, reorgs and re-claims to the recount of the final rows', () => {
    let standingRefunds = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { changes, facts } = history(seed);
      standingRefunds += facts.filter((f) => f.counted && f.refundedInFull && f.channel === 'x402').length;
      const folded: TallyDeltas = new Map();
      for (const c of changes) addAll(folded, changeDeltas(c.before, c.after));
      expect(diffTallies(recount(facts), folded), `seed ${seed}`).toEqual([]);
    }
    // The histories end with unlocks refunded in full and standing (else this test would say nothing of them).
    expect(standingRefunds).toBeGreaterThan(10);
  });

  it('notices a change folded twice, or one left out', () => {
    const claim = ledgerFact(ONE_ROW);
    const twice = addAll(addAll(new Map(), changeDeltas(undefined, claim)), changeDeltas(undefined, claim));
    expect(diffTallies(recount([claim]), twice)).toContainEqual({
      pk: 'TOTAL',
      sk: 'ten-send|x402|USDC',
      metric: 'n',
      expected: '1',
      stored: '2',
    });
    expect(diffTallies(recount([claim]), new Map())).toHaveLength(6); // n and a on the product, the day and the wallet
  });

  it('writes nothing for a change no figure reads (a row marked final)', () => {
    const row = ONE_ROW;
    expect(changeDeltas(ledgerFact(row), ledgerFact(row)).size).toBe(0);
  });

  it('keeps a dropped claim out of revenue but on the product and the wallet', () => {
    const dropped = recount([ledgerFact({ ...ONE_ROW, status: 'reorged' })]);
    expect([...dropped.values()].map((d) => d.target.pk).sort()).toEqual(['TOTAL', `WALLET#${PAYERS[0]!.toLowerCase()}`]);
    expect([...dropped.values()].every((d) => [...d.counts.keys()].join() === 'r')).toBe(true);
  });

  it('reads item keys and counter names back, products with bars included, and refuses anything else', () => {
    expect(parseLine('a|b|card|USD', false)).toEqual({ product: 'a|b', channel: 'card', asset: 'USD' });
    expect(parseLine('07|ten-send|x402|USDbC', true)).toEqual({ day: '07', product: 'ten-send', channel: 'x402', asset: 'USDbC' });
    for (const bad of ['ten-send|x402', 'p|wire|USDC', 'p|x402|EUR', '|x402|USDC']) expect(parseLine(bad, false)).toBeUndefined();
    expect(parseLine('x|p|x402|USDC', true)).toBeUndefined();
    expect(parseCounter(counterName('a', 'card', 'USD', 'a|b'))).toEqual({ metric: 'a', channel: 'card', asset: 'USD', product: 'a|b' });
    expect(
      sumsOf(
        new Map([
          ['n|x402|USDC|p', 2n],
          ['a|x402|USDC|p', 20n],
        ]),
      ).lines,
    ).toEqual([{ channel: 'x402', asset: 'USDC', product: 'p', count: 2n, amount: 20n }]);
    expect(markSequence('0000000123@1700000000')).toBe('0000000123');
  });
});

describe('the fold under redelivery', () => {
  it('equals the recount after each batch is delivered once, twice, and split in halves again', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const { changes, facts } = history(seed, 120);
      const { store } = memoryCounters();
      for (let i = 0; i < changes.length; i += 16) {
        const batch = changes.slice(i, i + 16);
        await foldBatch(batch, shard, store);
        await foldBatch(batch, shard, store); // a retry of the whole batch
        await foldBatch(batch.slice(0, 8), shard, store); // bisected halves of it
        await foldBatch(batch.slice(8), shard, store);
      }
      expect(diffTallies(recount(facts), await store.all()), `seed ${seed}`).toEqual([]);
    }
  });

  it('equals the recount after the fold stopped half-way through a batch and the batch came again', async () => {
    const { changes, facts } = history(7, 120);
    let crashed = 0;
    // One store whose writes fail once, mid-batch, every batch.
    const items = memoryCounters();
    let failNext = true;
    const flaky: CounterStore = {
      ...items.store,
      async apply(target, counts, mark, expected) {
        if (failNext && items.writes() % 7 === 3) {
          failNext = false;
          crashed++;
          throw new Error('the fold stopped here');
        }
        return items.store.apply(target, counts, mark, expected);
      },
    };
    for (let i = 0; i < changes.length; i += 20) {
      const batch = changes.slice(i, i + 20);
      failNext = true;
      for (;;) {
        try {
          await foldBatch(batch, shard, flaky);
          break;
        } catch {
          // The event source mapping delivers the batch again.
        }
      }
    }
    expect(crashed).toBeGreaterThan(0);
    expect(diffTallies(recount(facts), await items.store.all())).toEqual([]);
  });

  it('counts twice without the marks: the test can fail', async () => {
    const { changes } = history(3, 30);
    const { store } = memoryCounters();
    await foldBatch(changes, shard, store);
    // Another shard (another mark) folding the same records is counted again.
    await foldBatch(changes, { ...shard, shardId: 'shardId-2' }, store);
    const once: TallyDeltas = new Map();
    for (const c of changes) addAll(once, changeDeltas(c.before, c.after));
    expect(diffTallies(once, await store.all()).length).toBeGreaterThan(0);
  });
});

/** The figures signals read (`TOTAL` and the `DAY#` items), from the counter items as the fold left them. */
function figuresOf(store: CounterStore): InsightsPorts['figures'] {
  return {
    async totals() {
      const out: Counters = new Map();
      for (const { target, counts } of (await store.all()).values()) {
        const line = target.pk === 'TOTAL' ? parseLine(target.sk, false) : undefined;
        if (line) addLine(out, line, counts);
      }
      return out;
    },
    async days(from, to) {
      const out = new Map<string, Counters>();
      for (const { target, counts } of (await store.all()).values()) {
        const line = target.pk.startsWith('DAY#') ? parseLine(target.sk, true) : undefined;
        const day = line && `${target.pk.slice('DAY#'.length)}-${line.day}`;
        if (!line || !day || day < from || day > to) continue;
        const counters = out.get(day) ?? new Map<string, bigint>();
        addLine(counters, line, counts);
        out.set(day, counters);
      }
      return out;
    },
  };
}

/** GET /api/signals over `store`, on the day of ONE_ROW's sale: each product's confirmed demand by window. */
async function signalsOf(store: CounterStore): Promise<Record<string, Record<string, number>>> {
  const ports: InsightsPorts = {
    // Signals read a product's name from the catalog when it has one; these products need none.
    catalog: { get: () => undefined } as unknown as Catalog,
    figures: figuresOf(store),
    reports: undefined as unknown as InsightsPorts['reports'],
    now: () => new Date('2026-11-20T12:00:00Z'),
  };
  const res = await getSignals({ baseUrl: 'https://market.example', query: {} } as unknown as ApiRequest, ports);
  const body = JSON.parse(res.body as string) as { demand: { channel: string; product: string; confirmed: Record<string, number> }[] };
  return Object.fromEntries(body.demand.map((d) => [`${d.channel}|${d.product}`, d.confirmed]));
}

describe('sales refunded in full are no confirmed demand (issue 50, finding 10)', () => {
  it('an unlock, then a partial refund (still demand), then the rest: signals leave it out, even with every batch delivered twice', async () => {
    const { store } = memoryCounters();
    const other = { ...ONE_ROW, payer: PAYERS[1]! };
    const partly = { ...ONE_ROW, refundedAmount: '4000' };
    const inFull = { ...ONE_ROW, refundedAmount: ONE_ROW.amount };
    const steps: StreamChange[][] = [
      [
        { sequence: '1', before: undefined, after: ledgerFact(ONE_ROW) },
        { sequence: '2', before: undefined, after: ledgerFact(other) },
      ],
      [{ sequence: '3', before: ledgerFact(ONE_ROW), after: ledgerFact(partly) }],
      [{ sequence: '4', before: ledgerFact(partly), after: ledgerFact(inFull) }],
    ];
    const seen = [];
    for (const batch of steps) {
      await foldBatch(batch, shard, store);
      await foldBatch(batch, shard, store); // the stream delivers it again: nothing counts twice
      seen.push((await signalsOf(store))['x402|ten-send']);
    }
    expect(seen).toEqual([
      { '7d': 2, '30d': 2, all: 2 },
      { '7d': 2, '30d': 2, all: 2 },
      { '7d': 1, '30d': 1, all: 1 },
    ]);
    // What the fold kept is what a recount of the rows as they stand gives (the reconcile job's check).
    expect(diffTallies(recount([ledgerFact(inFull), ledgerFact(other)]), await store.all())).toEqual([]);
  });

  it('a card sale Stripe refunded in full is left out too; the only sale of a product refunded, the product is not listed', async () => {
    const { store } = memoryCounters();
    const sale = { skill: 'csv-cleaner', amountCents: 1900, recordedAt: '2026-11-19T10:00:00.000Z' };
    const partly = { ...sale, refundedCents: 500 };
    const inFull = { ...sale, refundedCents: 1900 };
    await foldBatch([{ sequence: '1', before: undefined, after: cardSaleFact(sale) }], shard, store);
    await foldBatch([{ sequence: '2', before: cardSaleFact(sale), after: cardSaleFact(partly) }], shard, store);
    expect((await signalsOf(store))['card|csv-cleaner']).toEqual({ '7d': 1, '30d': 1, all: 1 });
    await foldBatch([{ sequence: '3', before: cardSaleFact(partly), after: cardSaleFact(inFull) }], shard, store);
    expect(await signalsOf(store)).toEqual({});
    expect(diffTallies(recount([cardSaleFact(inFull)]), await store.all())).toEqual([]);
  });
});
