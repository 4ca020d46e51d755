/**
 * The reconcile job: recounts every tally from the records themselves (every ledger row and card
 * sale) and compares the recount with the stored tally items, counter by counter. It must find
 * no difference; one is a defect, reported and alarmed on, never papered over.
 *
 * It compares only a quiet journal: it first folds everything, and starts again if a change
 * arrived while it read. Records written before the journal existed are journaled first
 * (`adopt`), as ordinary changes, so their state counts once like any other.
 */
import { diffTallies, ledgerFact, cardSaleFact, recount, type TallyDifference, type TallyFact } from './core/tally';
import type { CardSaleStore, LedgerStore, SourceRef, TallyStore } from './ports';
import type { TallyJournal } from './tally-journal';

export interface ReconcilePorts {
  ledger: Pick<LedgerStore, 'scan' | 'source'>;
  cardSales: Pick<CardSaleStore, 'scan' | 'source'>;
  tallies: TallyStore;
  journal: TallyJournal;
  now: () => Date;
}

export interface ReconcileReport {
  /** `equal`: every tally is its recount; `different`: see `differences`; `busy`: changes kept arriving, try again. */
  state: 'equal' | 'different' | 'busy';
  checked_at: string;
  ledger_rows: number;
  card_sales: number;
  /** Journal entries handed out so far; the tallies have folded all of them when compared. */
  journal_entries: number;
  tally_items: number;
  /** Records written before the journal existed, journaled by this run. */
  adopted: number;
  difference_count: number;
  /** The first 100 differences. */
  differences: TallyDifference[];
}

const MAX_FOLD_ROUNDS = 50;

/** Folds until the journal is caught up; false if an unfinished change holds it (a writer is mid-way). */
async function foldAll(journal: TallyJournal): Promise<boolean> {
  for (let round = 0; round < MAX_FOLD_ROUNDS; round++) {
    const r = await journal.fold(500);
    if (r.state === 'caught_up') return true;
    if (r.state === 'waiting') return false;
  }
  return false;
}

export async function reconcileTallies(ports: ReconcilePorts, attempts = 3): Promise<ReconcileReport> {
  let adopted = 0;
  let last: Omit<ReconcileReport, 'state' | 'difference_count' | 'differences' | 'adopted'> | undefined;
  for (let attempt = 0, adoptRounds = 0; attempt < attempts; attempt++) {
    if (!(await foldAll(ports.journal))) continue;
    const head = await ports.tallies.head();
    const facts: TallyFact[] = [];
    const unjournaled: SourceRef[] = [];
    let pending = false;
    let rows = 0;
    let sales = 0;
    for await (const row of ports.ledger.scan()) {
      rows++;
      if (row.jseq === undefined) unjournaled.push({ kind: 'ledger', key: `${row.network}#${row.txHash.toLowerCase()}` });
      if (row.jpending !== undefined) pending = true;
      facts.push(ledgerFact(row));
    }
    for await (const sale of ports.cardSales.scan()) {
      sales++;
      if (sale.jseq === undefined) unjournaled.push({ kind: 'card', key: sale.id });
      if (sale.jpending !== undefined) pending = true;
      facts.push(cardSaleFact(sale));
    }
    if (unjournaled.length > 0) {
      for (const ref of unjournaled) {
        const source = ref.kind === 'ledger' ? ports.ledger.source : ports.cardSales.source;
        const done = await ports.journal.change(ref, async (seq) => {
          const written = await source.adopt(ref.key, seq);
          return { written, result: written };
        });
        if (done) adopted++;
      }
      // Adopting is progress, not a failed attempt (bounded all the same).
      if (adoptRounds++ < attempts) attempt--;
      continue;
    }
    const stored = await ports.tallies.all();
    last = {
      checked_at: ports.now().toISOString(),
      ledger_rows: rows,
      card_sales: sales,
      journal_entries: head,
      tally_items: stored.size,
    };
    // A change that arrived while the records were read makes the comparison meaningless: again.
    if (pending || (await ports.tallies.head()) !== head) continue;
    const differences = diffTallies(recount(facts), stored);
    return {
      state: differences.length === 0 ? 'equal' : 'different',
      ...last,
      adopted,
      difference_count: differences.length,
      differences: differences.slice(0, 100),
    };
  }
  return {
    state: 'busy',
    ...(last ?? {
      checked_at: ports.now().toISOString(),
      ledger_rows: 0,
      card_sales: 0,
      journal_entries: await ports.tallies.head(),
      tally_items: 0,
    }),
    adopted,
    difference_count: 0,
    differences: [],
  };
}
