/**
 * Keeps the tallies exact with single-item conditional writes only (designed when the local database, DynamoDB Local, had neither
 * transactions nor streams, and the same code runs on DynamoDB).
 *
 * Every change of a tallied record (a claim, a reorg, a re-claim, a card sale) is one entry of a
 * journal with a gap-free order:
 * 1. The writer takes the next sequence number and reserves that entry for its record.
 * 2. Its own conditional write on the record stores the number (`jseq`, `jpending`), so the change
 *    and its entry cannot come apart; a write that does not happen voids the entry.
 * 3. It publishes the record's new state into the entry, then clears `jpending`.
 * 4. Folding applies the entries in order. Each tally item remembers the last entry it folded
 *    (`appliedSeq`), and its UpdateItem adds only if the entry is newer, so a retried or racing
 *    fold adds nothing twice. The cursor moves past an entry only once every item has it.
 *
 * A writer that stops half-way leaves a reserved entry (or a gap) that any fold completes from
 * the record itself, or voids after a grace period; a record whose entry was voided under it
 * moves its change to a new entry. Writers fold after their change (so a buyer reads their own
 * unlock in the figures), and a schedule folds what an interrupted writer left.
 */
import { logger } from '../platform/logger';
import { changeDeltas, type TallyFact } from './core/tally';
import type {
  CardSale,
  CardSales,
  CardSaleStore,
  ClaimResult,
  JournalSource,
  Ledger,
  LedgerStore,
  SourceKind,
  SourceRef,
  TallyStore,
} from './ports';

/** How long a reserved entry or a gap may hold up the fold before it is voided; only liveness depends on it. */
export const JOURNAL_GRACE_SECONDS = 30;

export interface TallyJournalPorts {
  tallies: TallyStore;
  sources: Record<SourceKind, JournalSource>;
  now: () => Date;
  graceSeconds?: number;
}

/** How a fold ended: caught up, waiting on an unfinished change, or stopped early (out of steps, or past `until`). */
export interface FoldResult {
  folded: number;
  state: 'caught_up' | 'waiting' | 'more';
  next: number;
}

export interface TallyJournal {
  /** Runs one change: `attempt` gets the reserved sequence number and says whether it wrote. */
  change<T>(source: SourceRef, attempt: (seq: number) => Promise<{ written: boolean; result: T }>): Promise<T>;
  /** Publishes the change at `seq` of `source` if the record still holds it unpublished. */
  publish(source: SourceRef, seq: number): Promise<void>;
  /** Folds entries in order, at most `maxSteps`; past `until` (if given) only entries already published or void. */
  fold(maxSteps?: number, until?: number): Promise<FoldResult>;
}

export function tallyJournal(ports: TallyJournalPorts): TallyJournal {
  const { tallies, sources, now } = ports;
  const graceMs = (ports.graceSeconds ?? JOURNAL_GRACE_SECONDS) * 1000;
  const older = (at: string): boolean => now().getTime() - Date.parse(at) >= graceMs;

  /** A fresh entry reserved for `source`; a number whose gap a fold already voided is skipped. */
  const reserve = async (source: SourceRef): Promise<number> => {
    for (;;) {
      const seq = await tallies.allocate();
      if (await tallies.reserve(seq, source, now())) return seq;
    }
  };

  /** Publishes the change at `seq` (or where it moved); what was published, or undefined if nothing was left to. */
  const publishEntry = async (source: SourceRef, seq: number): Promise<{ at: number; fact: TallyFact } | undefined> => {
    const src = sources[source.kind];
    for (let at = seq; ;) {
      const snap = await src.snapshot(source.key);
      // Already published (and settled), or moved on: nothing of this change is left to do here.
      if (!snap || snap.marks.jpending !== at) return undefined;
      if ((await tallies.publish(at, source, snap.fact, now())) === 'published') return { at, fact: snap.fact };
      // A fold voided the entry while the change was under way: the change moves to a new entry.
      const moved = await reserve(source);
      if (!(await src.repoint(source.key, at, moved))) {
        await tallies.void(moved, now());
        return undefined;
      }
      at = moved;
    }
  };

  const publish = async (source: SourceRef, seq: number): Promise<void> => {
    const done = await publishEntry(source, seq);
    if (done) await sources[source.kind].settle(source.key, done.at);
  };

  const fold = async (maxSteps = 200, until?: number, known?: { at: number; fact: TallyFact }): Promise<FoldResult> => {
    let folded = 0;
    for (let step = 0; step < maxSteps; step++) {
      const cursor = await tallies.cursor();
      const seq = cursor.next;
      // The entry this writer just published needs no read.
      let fact = known?.at === seq ? known.fact : undefined;
      if (!fact) {
        let entry = await tallies.entry(seq);
        // Past its own entry a writer folds what others already published (a writer that finished
        // first may have left its entry behind one still under way), and stops at the first that is not.
        if (until !== undefined && seq > until && entry?.state !== 'published' && entry?.state !== 'void')
          return { folded, state: 'more', next: seq };
        if (!entry) {
          if ((await tallies.head()) < seq) return { folded, state: 'caught_up', next: seq };
          // A number was taken but its entry never written (the writer stopped in between).
          if (cursor.stall?.seq !== seq) {
            await tallies.stall(seq, now());
            return { folded, state: 'waiting', next: seq };
          }
          if (!older(cursor.stall.since)) return { folded, state: 'waiting', next: seq };
          await tallies.void(seq, now());
          continue;
        }
        if (entry.state === 'reserved') {
          // The record may already carry the change (its writer stopped before publishing): finish it.
          await publish(entry.source, seq);
          entry = (await tallies.entry(seq))!;
          if (entry.state === 'reserved') {
            if (!older(entry.at)) return { folded, state: 'waiting', next: seq };
            await tallies.void(seq, now());
            continue;
          }
        }
        if (entry.state === 'published') fact = entry.fact;
      }
      if (fact) {
        // Different items, each applying the entry at most once: in parallel.
        const deltas = [...changeDeltas(fact)];
        await Promise.all(deltas.map(([target, counters]) => tallies.apply(target, counters, seq)));
      }
      if (await tallies.advance(seq)) folded++;
    }
    return { folded, state: 'more', next: (await tallies.cursor()).next };
  };

  return {
    async change(source, attempt) {
      const seq = await reserve(source);
      // If this throws, the write may or may not have landed: a fold settles which, since a
      // record that holds `seq` is published from the record and an entry nobody holds is voided.
      const out = await attempt(seq);
      if (!out.written) {
        await tallies.void(seq, now());
        return out.result;
      }
      // The change stands from here; what follows only brings the tallies up to it, and the
      // scheduled fold finishes it if this fails, so a failure is logged, not answered.
      try {
        const done = await publishEntry(source, seq);
        // Through its own entry, and on over entries already published, so a writer that finished
        // before an earlier one is never left unfolded; it never waits on another writer's entry.
        // Clearing the record's pending mark touches another item, so it runs beside the fold.
        if (done) await Promise.all([sources[source.kind].settle(source.key, done.at), fold(200, done.at, done)]);
      } catch (e) {
        logger.warn('tallies not yet brought up to a change; the scheduled fold will', { source, seq, error: (e as Error).message });
      }
      return out.result;
    },
    publish,
    fold,
  };
}

/** A change that waits on an earlier unpublished one publishes it and tries again, this many times in all. */
const MAX_TRIES = 4;

const ledgerRef = (network: string, txHash: string): SourceRef => ({ kind: 'ledger', key: `${network}#${txHash.toLowerCase()}` });

/** The Ledger the routes use: claims and reorgs are journaled changes; reads go straight to the table. */
export function talliedLedger(store: LedgerStore, journal: TallyJournal): Ledger {
  const { claimAt: _c, reorgAt: _r, source: _s, scan: _scan, ...reads } = store;
  return {
    ...reads,
    async claim(row): Promise<ClaimResult> {
      const ref = ledgerRef(row.network, row.txHash);
      for (let tries = 1; ; tries++) {
        const result = await journal.change(ref, async (seq) => {
          const r = await store.claimAt(row, seq);
          return { written: r.claimed, result: r };
        });
        // A re-claim waits for the reorg before it to be published; finish that, then try again.
        if (!result.claimed && result.existing.status === 'reorged' && result.existing.jpending !== undefined && tries < MAX_TRIES) {
          await journal.publish(ref, result.existing.jpending);
          continue;
        }
        return result;
      }
    },
    async markReorged(network, txHash) {
      const ref = ledgerRef(network, txHash);
      for (let tries = 1; ; tries++) {
        const marked = await journal.change(ref, async (seq) => {
          const r = await store.reorgAt(network, txHash, seq);
          return { written: r === 'marked', result: r };
        });
        if (typeof marked !== 'object') return;
        // The claim before it is not yet published: finish that, then mark.
        if (tries >= MAX_TRIES) throw new Error(`reorg of ${txHash} still waits on journal entry ${marked.pending}`);
        await journal.publish(ref, marked.pending);
      }
    },
  };
}

/** The CardSales the routes use: recording a sale is a journaled change. */
export function talliedCardSales(store: CardSaleStore, journal: TallyJournal): CardSales {
  return {
    get: store.get,
    record(sale: CardSale) {
      return journal.change({ kind: 'card', key: sale.id }, async (seq) => {
        const r = await store.recordAt(sale, seq);
        return { written: r.recorded, result: r };
      });
    },
  };
}
