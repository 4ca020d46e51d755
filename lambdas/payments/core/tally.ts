/**
 * The aggregate model, as pure arithmetic. Every figure the service prints is a sum of
 * counters held in a few tally items: `TOTAL` (everything), `DAY#<yyyy-mm-dd>` (confirmed
 * revenue of one UTC day) and `WALLET#<address>` (one payer's reputation).
 *
 * Each stored record (a ledger row, a card sale) contributes counters according to its state;
 * a change of state is folded in as `contribution(after) - contribution(before)`, so the fold of
 * every change ever journaled equals the recount of the records as they stand (`recount`), and
 * the reconcile job checks exactly that. Counter names are flat (`n|x402|USDC|<skill>`) so that
 * one UpdateItem can ADD to any of them without the map paths existing first.
 */

/** What a ledger row paid for (the ports' LedgerKind; written out here so ports can import this file). */
type RowKind = 'unlock' | 'subscription' | 'meter_top_up';

/** The fields of a ledger row the tallies read. */
export interface TalliedRow {
  kind?: RowKind;
  skill: string;
  amount: string;
  asset: 'USDC' | 'USDbC';
  payer: string;
  recordedAt: string;
  status: 'confirmed' | 'reorged';
  jv?: number;
}

/** The fields of a card sale the tallies read. */
export interface TalliedSale {
  skill: string;
  amountCents: number;
  recordedAt: string;
}

/** How money arrived: an x402 unlock, a subscription period, a meter top-up (all on chain), or a card sale. */
export type Channel = 'x402' | 'subscriptions' | 'meters' | 'card';
export const CHANNELS: readonly Channel[] = ['x402', 'subscriptions', 'meters', 'card'];

/** On-chain assets in atomic units (6 decimals); card money in US cents. */
export type TallyAsset = 'USDC' | 'USDbC' | 'USD';

/** `n`: confirmed count, `a`: confirmed amount (atomic units, or cents for `USD`), `r`: claims a reorg dropped (standing now). */
export type Metric = 'n' | 'a' | 'r';

/** One record's state as the tallies see it. */
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
   * The record's change number: 1 for its first state. A ledger row alternates between counted
   * (confirmed) and not (reorged), so with `counted` it says what the state before this one was.
   */
  version: number;
}

/** Counters of one tally item, by counter name. */
export type Counters = Map<string, bigint>;
/** Counters of several tally items, by target (`TOTAL`, `DAY#…`, `WALLET#…`). */
export type TallyDeltas = Map<string, Counters>;

export const TOTAL_TARGET = 'TOTAL';
export const dayTarget = (day: string): string => `DAY#${day}`;
export const walletTarget = (payer: string): string => `WALLET#${payer.toLowerCase()}`;

export const counterName = (metric: Metric, channel: Channel, asset: TallyAsset, product: string): string =>
  `${metric}|${channel}|${asset}|${product}`;

/** A counter name split back into its parts; undefined for anything that is not one. */
export function parseCounter(name: string): { metric: Metric; channel: Channel; asset: TallyAsset; product: string } | undefined {
  const [metric, channel, asset, ...rest] = name.split('|');
  if ((metric !== 'n' && metric !== 'a' && metric !== 'r') || !CHANNELS.includes(channel as Channel) || rest.length === 0) return undefined;
  if (asset !== 'USDC' && asset !== 'USDbC' && asset !== 'USD') return undefined;
  return { metric, channel: channel as Channel, asset, product: rest.join('|') };
}

const CHANNEL_OF: Record<RowKind, Channel> = { unlock: 'x402', subscription: 'subscriptions', meter_top_up: 'meters' };

/** A ledger row as a fact; `version` is its change number (rows written before tallies existed count as first). */
export function ledgerFact(row: TalliedRow): TallyFact {
  return {
    channel: CHANNEL_OF[row.kind ?? 'unlock'],
    asset: row.asset,
    product: row.skill,
    amount: row.amount,
    day: row.recordedAt.slice(0, 10),
    payer: row.payer.toLowerCase(),
    counted: row.status === 'confirmed',
    version: row.jv ?? 1,
  };
}

/** A paid card sale as a fact: the card channel, in cents. */
export const cardSaleFact = (sale: TalliedSale): TallyFact => ({
  channel: 'card',
  asset: 'USD',
  product: sale.skill,
  amount: String(sale.amountCents),
  day: sale.recordedAt.slice(0, 10),
  counted: true,
  version: 1,
});

function add(into: TallyDeltas, target: string, name: string, by: bigint): void {
  if (by === 0n) return;
  const counters = into.get(target) ?? new Map<string, bigint>();
  const next = (counters.get(name) ?? 0n) + by;
  if (next === 0n) counters.delete(name);
  else counters.set(name, next);
  if (counters.size === 0) into.delete(target);
  else into.set(target, counters);
}

/** Adds one state's contribution (times `sign`) to `into`. */
function contribute(into: TallyDeltas, f: TallyFact, sign: 1n | -1n): void {
  const name = (metric: Metric) => counterName(metric, f.channel, f.asset, f.product);
  const targets = [TOTAL_TARGET, ...(f.payer ? [walletTarget(f.payer)] : [])];
  if (f.counted) {
    for (const t of [...targets, dayTarget(f.day)]) {
      add(into, t, name('n'), sign);
      add(into, t, name('a'), sign * BigInt(f.amount));
    }
  } else {
    // A dropped claim is not revenue of any day; it stays on the skill's and the wallet's record.
    for (const t of targets) add(into, t, name('r'), sign);
  }
}

/**
 * What folding one change adds to each tally item. Version 1 has no state before it; a later
 * ledger change flips `counted`, and the state before it had the same product, amount, asset and
 * payer (a re-claim is only allowed for the same skill, and it is the same transfer).
 */
export function changeDeltas(f: TallyFact): TallyDeltas {
  const out: TallyDeltas = new Map();
  contribute(out, f, 1n);
  if (f.version > 1) contribute(out, { ...f, counted: !f.counted }, -1n);
  return out;
}

/** The tallies as they must stand for these records: the sum of each one's current contribution. */
export function recount(facts: Iterable<TallyFact>): TallyDeltas {
  const out: TallyDeltas = new Map();
  for (const f of facts) contribute(out, f, 1n);
  return out;
}

/** Adds `delta` into `into` (used to fold changes in memory, e.g. in tests and the reconcile report). */
export function addAll(into: TallyDeltas, delta: TallyDeltas): TallyDeltas {
  for (const [target, counters] of delta) for (const [name, by] of counters) add(into, target, name, by);
  return into;
}

export interface TallyDifference {
  target: string;
  counter: string;
  expected: string;
  stored: string;
}

/** Every counter where the stored tallies differ from the recount (absent counts as zero). */
export function diffTallies(expected: TallyDeltas, stored: TallyDeltas): TallyDifference[] {
  const out: TallyDifference[] = [];
  const targets = new Set([...expected.keys(), ...stored.keys()]);
  for (const target of [...targets].sort()) {
    const e = expected.get(target) ?? new Map<string, bigint>();
    const s = stored.get(target) ?? new Map<string, bigint>();
    for (const counter of [...new Set([...e.keys(), ...s.keys()])].sort()) {
      const want = e.get(counter) ?? 0n;
      const have = s.get(counter) ?? 0n;
      if (want !== have) out.push({ target, counter, expected: want.toString(), stored: have.toString() });
    }
  }
  return out;
}

/** Sums of one tally item, grouped the ways the figures are reported. */
export interface TallySums {
  /** Confirmed count and amount per (channel, asset, product). */
  lines: { channel: Channel; asset: TallyAsset; product: string; count: bigint; amount: bigint }[];
  /** Standing reorged claims per (channel, product). */
  reorged: { channel: Channel; product: string; count: bigint }[];
}

/** Reads the counters of one tally item into lines, sorted; zero lines are left out. */
export function sumsOf(counters: Counters): TallySums {
  const lines = new Map<string, TallySums['lines'][number]>();
  const reorged = new Map<string, TallySums['reorged'][number]>();
  for (const [name, value] of counters) {
    const c = parseCounter(name);
    if (!c || value === 0n) continue;
    if (c.metric === 'r') {
      const key = `${c.channel}|${c.product}`;
      const line = reorged.get(key) ?? { channel: c.channel, product: c.product, count: 0n };
      line.count += value;
      reorged.set(key, line);
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
