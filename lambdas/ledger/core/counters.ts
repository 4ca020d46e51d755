/**
 * The figures as pure arithmetic. Every figure the service prints is a sum of small counter items
 * (`TOTAL` per product, `DAY` per day and product, `WALLET` per payer and product), each holding
 * `n` (confirmed count), `a` (confirmed amount: atomic units, or cents for card sales), `r`
 * (claims a reorg dropped, standing now) and `f` (confirmed sales refunded in full, standing now).
 * `n` and `a` are gross: a refunded sale stays the confirmed sale it was (the books subtract
 * refunds); `f` lets a reader that wants demand, not revenue, leave the refunded ones out
 * (`/api/signals`) without reading a row.
 *
 * A stored record (a ledger row, a card sale) contributes counters according to its state, and a
 * change the table's stream reports is folded as `contribution(new image) − contribution(old
 * image)`; so folding every change ever made equals the recount of the records as they stand
 * (`recount`), which is what the reconcile job checks.
 */
import { refundedInFull } from './usdc-refunds';

/** What a ledger row paid for (the ports' LedgerKind, written out here so ports can import this file). */
type RowKind = 'unlock' | 'subscription' | 'meter_top_up';

/** The fields of a ledger row the figures read. */
export interface TalliedRow {
  kind?: RowKind;
  skill: string;
  amount: string;
  asset: 'USDC' | 'USDbC';
  payer: string;
  recordedAt: string;
  status: 'confirmed' | 'reorged';
  /** Atomic units the operator refunded so far (absent: none); equal to `amount` once refunded in full. */
  refundedAmount?: string;
}

/** The fields of a card sale the figures read. */
export interface TalliedSale {
  skill: string;
  amountCents: number;
  recordedAt: string;
  /** Cents Stripe refunded so far (absent: none). */
  refundedCents?: number;
}

/** How money arrived: an x402 unlock, a subscription period, a meter top-up (all on chain), or a card sale. */
export type Channel = 'x402' | 'subscriptions' | 'meters' | 'card';
export const CHANNELS: readonly Channel[] = ['x402', 'subscriptions', 'meters', 'card'];

/** On-chain assets in atomic units (6 decimals); card money in US cents. */
export type TallyAsset = 'USDC' | 'USDbC' | 'USD';
const ASSETS: readonly TallyAsset[] = ['USDC', 'USDbC', 'USD'];

/**
 * `n`: confirmed count, `a`: confirmed amount (atomic units, or cents for `USD`), `r`: claims a
 * reorg dropped (standing now), `f`: confirmed sales refunded in full (standing now; each also in `n` and `a`).
 */
export type Metric = 'n' | 'a' | 'r' | 'f';
export const METRICS: readonly Metric[] = ['n', 'a', 'r', 'f'];

/** One record's state as the figures see it. */
export interface TallyFact {
  channel: Channel;
  asset: TallyAsset;
  /** Skill id, plan id or `meter`. */
  product: string;
  /** Atomic units (cents for card sales), as a decimal string. */
  amount: string;
  /** UTC day of the record's time, `yyyy-mm-dd`. */
  day: string;
  /** Lower-case payer address; absent for card sales, whose buyers are not wallets. */
  payer?: string;
  /** Whether the record counts now: a confirmed claim or a paid sale. False for a claim a reorg dropped. */
  counted: boolean;
  /**
   * Whether all of it went back to the buyer (an operator's USDC refunds, or Stripe's refunds,
   * adding up to the amount). It still counts in `n` and `a`; it adds `f`. A sale refunded in part
   * is not: the buyer kept the skill, so it stays demand.
   */
  refundedInFull: boolean;
}

/** A counter item's key in the figures table. */
export interface CounterTarget {
  pk: string;
  sk: string;
}

/** One item's counters (or the change to them), by metric. */
export type MetricCounts = Map<Metric, bigint>;

/** Counters of several items, by `targetKey`. */
export type TallyDeltas = Map<string, { target: CounterTarget; counts: MetricCounts }>;

/**
 * Counters of one scope (all time, one day, one wallet) as readers use them, by flat name
 * `<metric>|<channel>|<asset>|<product>` (see `sumsOf`).
 */
export type Counters = Map<string, bigint>;

/**
 * Where a stream shard stands in an item: the attribute (`w` + a hash of the stream and shard) and
 * the sequence numbers of the first and last record of the batch that touch the item, zero-padded
 * to 40 digits (DynamoDB's longest) so that they compare as strings.
 */
export interface FoldMark {
  attribute: string;
  first: string;
  last: string;
}

export const TOTAL_PK = 'TOTAL';
const DAY_PREFIX = 'DAY#';
const WALLET_PREFIX = 'WALLET#';

export const targetKey = (t: CounterTarget): string => `${t.pk}\u001f${t.sk}`;
const lineKey = (f: Pick<TallyFact, 'product' | 'channel' | 'asset'>): string => `${f.product}|${f.channel}|${f.asset}`;
export const totalTarget = (f: Pick<TallyFact, 'product' | 'channel' | 'asset'>): CounterTarget => ({ pk: TOTAL_PK, sk: lineKey(f) });
/** A month's partition: a revenue window reads one Query per month. */
export const dayPartition = (day: string): string => `${DAY_PREFIX}${day.slice(0, 7)}`;
export const dayTarget = (f: Pick<TallyFact, 'product' | 'channel' | 'asset' | 'day'>): CounterTarget => ({
  pk: dayPartition(f.day),
  sk: `${f.day.slice(8, 10)}|${lineKey(f)}`,
});
export const walletPartition = (payer: string): string => `${WALLET_PREFIX}${payer.toLowerCase()}`;
export const walletTarget = (f: Pick<TallyFact, 'product' | 'channel' | 'asset'>, payer: string): CounterTarget => ({
  pk: walletPartition(payer),
  sk: lineKey(f),
});

const CHANNEL_OF: Record<RowKind, Channel> = { unlock: 'x402', subscription: 'subscriptions', meter_top_up: 'meters' };

/** A ledger row as a fact. */
export const ledgerFact = (row: TalliedRow): TallyFact => ({
  channel: CHANNEL_OF[row.kind ?? 'unlock'],
  asset: row.asset,
  product: row.skill,
  amount: row.amount,
  day: row.recordedAt.slice(0, 10),
  payer: row.payer.toLowerCase(),
  counted: row.status === 'confirmed',
  refundedInFull: refundedInFull(row),
});

/** A paid card sale as a fact: the card channel, in cents. */
export const cardSaleFact = (sale: TalliedSale): TallyFact => ({
  channel: 'card',
  asset: 'USD',
  product: sale.skill,
  amount: String(sale.amountCents),
  day: sale.recordedAt.slice(0, 10),
  counted: true,
  // As for a ledger row: refunds (Stripe's cumulative `amount_refunded`) adding up to the sale. A dispute is no refund here.
  refundedInFull: sale.refundedCents !== undefined && sale.refundedCents >= sale.amountCents,
});

function add(into: TallyDeltas, target: CounterTarget, metric: Metric, by: bigint): void {
  if (by === 0n) return;
  const key = targetKey(target);
  const entry = into.get(key) ?? { target, counts: new Map<Metric, bigint>() };
  const next = (entry.counts.get(metric) ?? 0n) + by;
  if (next === 0n) entry.counts.delete(metric);
  else entry.counts.set(metric, next);
  if (entry.counts.size === 0) into.delete(key);
  else into.set(key, entry);
}

/** Adds one state's contribution (times `sign`) to `into`. */
function contribute(into: TallyDeltas, f: TallyFact, sign: 1n | -1n): void {
  const targets = [totalTarget(f), ...(f.payer ? [walletTarget(f, f.payer)] : [])];
  if (f.counted) {
    for (const t of [...targets, dayTarget(f)]) {
      add(into, t, 'n', sign);
      add(into, t, 'a', sign * BigInt(f.amount));
    }
    // On the product's and the sale day's items, which signals read (no wallet figure asks it, so no
    // write there). The refund's own change of the row or sale (old image: not in full, new image: in
    // full) adds it, and the fold's marks apply it once per item like any change.
    if (f.refundedInFull) for (const t of [totalTarget(f), dayTarget(f)]) add(into, t, 'f', sign);
  } else {
    // A dropped claim is not revenue of any day; it stays on the product's and the wallet's record.
    for (const t of targets) add(into, t, 'r', sign);
  }
}

/** What one change adds to each counter item: the new state's contribution less the old one's. Items it leaves alone are absent. */
export function changeDeltas(before: TallyFact | undefined, after: TallyFact | undefined): TallyDeltas {
  const out: TallyDeltas = new Map();
  if (after) contribute(out, after, 1n);
  if (before) contribute(out, before, -1n);
  return out;
}

/** The counters as they must stand for these records: the sum of each one's current contribution. */
export function recount(facts: Iterable<TallyFact>): TallyDeltas {
  const out: TallyDeltas = new Map();
  for (const f of facts) contribute(out, f, 1n);
  return out;
}

/** Adds `delta` into `into`. */
export function addAll(into: TallyDeltas, delta: TallyDeltas): TallyDeltas {
  for (const { target, counts } of delta.values()) for (const [metric, by] of counts) add(into, target, metric, by);
  return into;
}

export interface TallyDifference {
  pk: string;
  sk: string;
  metric: Metric;
  expected: string;
  stored: string;
}

/** Every counter where the stored items differ from the recount (absent counts as zero). */
export function diffTallies(expected: TallyDeltas, stored: TallyDeltas): TallyDifference[] {
  const out: TallyDifference[] = [];
  const keys = [...new Set([...expected.keys(), ...stored.keys()])].sort();
  for (const key of keys) {
    const target = (expected.get(key) ?? stored.get(key))!.target;
    for (const metric of METRICS) {
      const want = expected.get(key)?.counts.get(metric) ?? 0n;
      const have = stored.get(key)?.counts.get(metric) ?? 0n;
      if (want !== have) out.push({ pk: target.pk, sk: target.sk, metric, expected: want.toString(), stored: have.toString() });
    }
  }
  return out;
}

/** The parts of a counter item's sort key, `[dd|]<product>|<channel>|<asset>`; undefined for anything else. */
export function parseLine(
  sk: string,
  withDay: boolean,
): { day?: string; product: string; channel: Channel; asset: TallyAsset } | undefined {
  const parts = sk.split('|');
  const asset = parts.pop() as TallyAsset;
  const channel = parts.pop() as Channel;
  const day = withDay ? parts.shift() : undefined;
  const product = parts.join('|');
  if (!ASSETS.includes(asset) || !CHANNELS.includes(channel) || product === '' || (withDay && !/^\d{2}$/.test(day ?? ''))) return undefined;
  return { ...(day === undefined ? {} : { day }), product, channel, asset };
}

export const counterName = (metric: Metric, channel: Channel, asset: TallyAsset, product: string): string =>
  `${metric}|${channel}|${asset}|${product}`;

/** Adds one item's counts into a scope's flat counters. */
export function addLine(into: Counters, line: { product: string; channel: Channel; asset: TallyAsset }, counts: MetricCounts): void {
  for (const [metric, value] of counts) {
    if (value === 0n) continue;
    const name = counterName(metric, line.channel, line.asset, line.product);
    into.set(name, (into.get(name) ?? 0n) + value);
  }
}

/** A counter name split back into its parts; undefined for anything that is not one. */
export function parseCounter(name: string): { metric: Metric; channel: Channel; asset: TallyAsset; product: string } | undefined {
  const [metric, channel, asset, ...rest] = name.split('|');
  if (!METRICS.includes(metric as Metric) || !CHANNELS.includes(channel as Channel) || rest.length === 0) return undefined;
  if (!ASSETS.includes(asset as TallyAsset)) return undefined;
  return { metric: metric as Metric, channel: channel as Channel, asset: asset as TallyAsset, product: rest.join('|') };
}

/** Sums of one scope, grouped the ways the figures are reported. */
export interface TallySums {
  /** Confirmed count and amount per (channel, asset, product). */
  lines: { channel: Channel; asset: TallyAsset; product: string; count: bigint; amount: bigint }[];
  /** Standing reorged claims per (channel, product). */
  reorged: { channel: Channel; product: string; count: bigint }[];
  /** Confirmed sales refunded in full per (channel, product), all assets together: each is also in `lines`. */
  refunded: { channel: Channel; product: string; count: bigint }[];
}

/** Reads a scope's counters into lines, sorted; zero lines are left out. */
export function sumsOf(counters: Counters): TallySums {
  const lines = new Map<string, TallySums['lines'][number]>();
  const reorged = new Map<string, TallySums['reorged'][number]>();
  const refunded = new Map<string, TallySums['refunded'][number]>();
  for (const [name, value] of counters) {
    const c = parseCounter(name);
    if (!c || value === 0n) continue;
    if (c.metric === 'r' || c.metric === 'f') {
      const into = c.metric === 'r' ? reorged : refunded;
      const key = `${c.channel}|${c.product}`;
      const line = into.get(key) ?? { channel: c.channel, product: c.product, count: 0n };
      line.count += value;
      into.set(key, line);
      continue;
    }
    const key = `${c.channel}|${c.asset}|${c.product}`;
    const line = lines.get(key) ?? { channel: c.channel, asset: c.asset, product: c.product, count: 0n, amount: 0n };
    if (c.metric === 'n') line.count += value;
    else line.amount += value;
    lines.set(key, line);
  }
  const order = (a: { channel: string; product: string }, b: { channel: string; product: string }) =>
    a.channel.localeCompare(b.channel) || a.product.localeCompare(b.product);
  return {
    lines: [...lines.values()]
      .filter((l) => l.count !== 0n || l.amount !== 0n)
      .sort((a, b) => order(a, b) || a.asset.localeCompare(b.asset)),
    reorged: [...reorged.values()].filter((l) => l.count !== 0n).sort(order),
    refunded: [...refunded.values()].filter((l) => l.count !== 0n).sort(order),
  };
}

/** Confirmed count and amount of one channel, per product (all assets together; same decimals within a channel). */
export function perProduct(sums: TallySums, channel: Channel): Map<string, { count: bigint; amount: bigint }> {
  const out = new Map<string, { count: bigint; amount: bigint }>();
  for (const l of sums.lines) {
    if (l.channel !== channel) continue;
    const p = out.get(l.product) ?? { count: 0n, amount: 0n };
    p.count += l.count;
    p.amount += l.amount;
    out.set(l.product, p);
  }
  return out;
}

/** A stream sequence number as marks store and compare it. */
export const padSequence = (sequence: string): string => sequence.padStart(40, '0');
/** The sequence number part of a stored mark (`<padded sequence>@<epoch seconds>`). */
export const markSequence = (stored: string): string => stored.split('@')[0]!;
