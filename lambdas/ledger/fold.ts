/**
 * The fold: brings the figures up to a batch of changes from the ledger's and card sales' streams.
 * Off the purchase path: a purchase writes its own ledger row only, and this function (an event
 * source mapping in AWS, a poller of DynamoDB Local's stream locally) adds each change to the
 * few small counter items it touches, one conditional UpdateItem per item and batch.
 *
 * **Exact under redelivery.** A stream delivers at least once: a batch that failed half-way comes
 * again (whole, in AWS; the rule holds for parts too). Each counter item remembers, per stream shard, the sequence number of the
 * last record it applied (`FoldMark`); records of one shard reach the fold in order, so the item
 * takes a batch's sum only if it has applied nothing at or after the batch's first record, and a
 * batch it has partly applied adds only the records after its mark. A figure thus never counts a
 * change twice or misses one the stream delivered. (Lambda gives the shard's id only to
 * tumbling-window invocations, which is why the mapping has a window; figures are written on every
 * invocation, not at the window's end.)
 */
import { createHash } from 'node:crypto';
import { changeDeltas, markSequence, padSequence, type CounterTarget, type MetricCounts, type TallyFact } from './core/counters';
import type { CounterStore } from './ports';

/** One change a stream reported, as facts: absent before an insert, and after a removal. */
export interface StreamChange {
  /** The record's sequence number within its shard. */
  sequence: string;
  before: TallyFact | undefined;
  after: TallyFact | undefined;
}

export interface FoldSummary {
  records: number;
  /** Counter items written. */
  items: number;
  /** Items that had already applied some of the batch (a redelivery), written with the rest only or left alone. */
  redelivered: number;
}

/** The mark attribute of one stream shard: `w` and 12 hex digits of a hash of the stream and shard ids. */
export const shardAttribute = (streamArn: string, shardId: string): string =>
  `w${createHash('sha256').update(`${streamArn}\n${shardId}`).digest('hex').slice(0, 12)}`;

/** How often an item that moved under the fold (another delivery of the same shard) is tried again. */
const MAX_TRIES = 5;

interface Pending {
  target: CounterTarget;
  /** The item's change from each record, in stream order. */
  parts: { sequence: string; counts: MetricCounts }[];
}

const sum = (parts: Pending['parts']): MetricCounts => {
  const out: MetricCounts = new Map();
  for (const p of parts) for (const [m, v] of p.counts) out.set(m, (out.get(m) ?? 0n) + v);
  for (const [m, v] of out) if (v === 0n) out.delete(m);
  return out;
};

/** Applies one item's share of the batch: its sum, or after a redelivery the records past its mark. */
async function applyItem(store: CounterStore, attribute: string, item: Pending): Promise<'applied' | 'redelivered' | 'nothing'> {
  let parts = item.parts;
  let expected: string | null = null;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const counts = sum(parts);
    // Changes that cancel out (a claim and its reorg in one batch, a row marked final) write nothing.
    if (counts.size === 0) return expected === null ? 'nothing' : 'redelivered';
    const mark = { attribute, first: padSequence(parts[0]!.sequence), last: padSequence(parts.at(-1)!.sequence) };
    const out = await store.apply(item.target, counts, mark, expected);
    if (out === 'applied') return expected === null ? 'applied' : 'redelivered';
    // The item has applied records of this shard up to its mark: only later ones remain.
    const applied = markSequence(out.stale);
    parts = parts.filter((p) => padSequence(p.sequence) > applied);
    if (parts.length === 0) return 'redelivered';
    expected = out.stale;
  }
  throw new Error(`counter item ${item.target.pk} ${item.target.sk} kept moving under the fold`);
}

/**
 * Folds one batch of one stream shard. Throws if any item could not be written: the batch then
 * comes again, and items that took it already add nothing twice.
 */
export async function foldBatch(
  changes: readonly StreamChange[],
  shard: { streamArn: string; shardId: string },
  store: CounterStore,
): Promise<FoldSummary> {
  const attribute = shardAttribute(shard.streamArn, shard.shardId);
  const items = new Map<string, Pending>();
  for (const change of changes) {
    for (const [key, { target, counts }] of changeDeltas(change.before, change.after)) {
      const item = items.get(key) ?? { target, parts: [] };
      item.parts.push({ sequence: change.sequence, counts });
      items.set(key, item);
    }
  }
  // Different items, each applied at most once: in parallel.
  const outcomes = await Promise.all([...items.values()].map((item) => applyItem(store, attribute, item)));
  return {
    records: changes.length,
    items: outcomes.filter((o) => o === 'applied').length,
    redelivered: outcomes.filter((o) => o === 'redelivered').length,
  };
}
