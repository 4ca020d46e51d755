/**
 * The reconcile job: recounts every figure from the records themselves (every ledger row and card
 * sale) and compares the recount with the stored counter items, counter by counter. It must find
 * no difference; one is a defect, reported and alarmed on, never papered over.
 *
 * The fold runs seconds behind the tables, so a difference is reported only if it outlasts the
 * fold: the records are read again after `settleMs`, and only counters that still differ while
 * no record changed count. Records changing all the while make the run `busy`.
 */
import { createHash } from 'node:crypto';
import { cardSaleFact, diffTallies, ledgerFact, recount, type TallyDifference, type TallyFact } from './core/counters';
import type { CardSales, CounterStore, Ledger } from './ports';

export interface ReconcilePorts {
  ledger: Pick<Ledger, 'scan'>;
  cardSales: Pick<CardSales, 'scan'>;
  counters: Pick<CounterStore, 'all' | 'prune'>;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
}

export interface ReconcileReport {
  /** `equal`: every figure is its recount; `different`: see `differences`; `busy`: records kept changing, try again. */
  state: 'equal' | 'different' | 'busy';
  checked_at: string;
  ledger_rows: number;
  card_sales: number;
  counter_items: number;
  /** Shard marks of drained stream shards removed by this run. */
  pruned_marks: number;
  difference_count: number;
  /** The first 100 differences. */
  differences: TallyDifference[];
}

/** How long a stream shard's mark is kept: a shard that old is drained (DynamoDB keeps stream records 24 hours). */
const MARK_LIFETIME_MS = 2 * 86_400_000;

async function readRecords(ports: ReconcilePorts) {
  const facts: TallyFact[] = [];
  let rows = 0;
  let sales = 0;
  for await (const row of ports.ledger.scan()) {
    rows++;
    facts.push(ledgerFact(row));
  }
  for await (const sale of ports.cardSales.scan()) {
    sales++;
    facts.push(cardSaleFact(sale));
  }
  // What the records say, in one digest: two reads that agree saw the same records.
  const digest = createHash('sha256')
    .update(
      facts
        .map((f) => JSON.stringify(f))
        .sort()
        .join('\n'),
    )
    .digest('hex');
  return { facts, rows, sales, digest };
}

export async function reconcileFigures(
  ports: ReconcilePorts,
  opts: { settleMs?: number; attempts?: number } = {},
): Promise<ReconcileReport> {
  const settleMs = opts.settleMs ?? 10_000;
  const attempts = opts.attempts ?? 3;
  const pruned = await ports.counters.prune(new Date(ports.now().getTime() - MARK_LIFETIME_MS));
  let records = await readRecords(ports);
  let last: ReconcileReport | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const stored = await ports.counters.all();
    const differences = diffTallies(recount(records.facts), stored);
    last = {
      state: differences.length === 0 ? 'equal' : 'different',
      checked_at: ports.now().toISOString(),
      ledger_rows: records.rows,
      card_sales: records.sales,
      counter_items: stored.size,
      pruned_marks: pruned,
      difference_count: differences.length,
      differences: differences.slice(0, 100),
    };
    if (differences.length === 0) return last;
    // The fold may not have reached the latest records yet: give it time, then look again.
    await ports.sleep(settleMs);
    const again = await readRecords(ports);
    const settled = again.digest === records.digest;
    records = again;
    if (settled) {
      const still = diffTallies(recount(records.facts), await ports.counters.all());
      return {
        ...last,
        state: still.length === 0 ? 'equal' : 'different',
        checked_at: ports.now().toISOString(),
        difference_count: still.length,
        differences: still.slice(0, 100),
      };
    }
  }
  return { ...last!, state: 'busy' };
}
