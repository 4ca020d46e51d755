/**
 * Lambda entry of the ledger's daily jobs (EventBridge Scheduler in AWS): `reconcile` (also `npm
 * run reconcile` locally) recounts every ledger row and card sale and compares the figures the
 * fold keeps; `unmatched` (also `npm run unmatched`) lists treasury transfers no claim matches.
 */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { METRICS } from '../contract/metrics';
import { countMetric } from '../platform/metrics';
import { reconcileFigures, type ReconcileReport } from './reconcile';
import { unmatchedReceipts, type UnmatchedReport } from './unmatched';

export type { UnmatchedReport };

/** What a scheduled invocation sends (EventBridge Scheduler's input); `npm run reconcile` sends nothing. */
export interface ReconcileTask {
  task?: 'reconcile' | 'unmatched';
  /** `unmatched` only: the blocks to read (decimal strings); the daily window by default. */
  fromBlock?: string;
  toBlock?: string;
  /** `unmatched` only: an unclaimed transfer younger than this is too recent to judge (default 600 s: a buyer may still claim). */
  graceSeconds?: number;
}

async function unmatched(event: ReconcileTask): Promise<UnmatchedReport> {
  const block = (v: unknown): bigint | undefined => (typeof v === 'string' && /^\d{1,20}$/.test(v) ? BigInt(v) : undefined);
  const report = await unmatchedReceipts(await (await import('./wiring')).unmatchedPortsFromEnv(), {
    from: block(event.fromBlock),
    to: block(event.toBlock),
    graceSeconds: typeof event.graceSeconds === 'number' && event.graceSeconds >= 0 ? event.graceSeconds : undefined,
  });
  countMetric(METRICS.unmatchedTransfers, {}, report.unmatched.length);
  // Support reads these lines to deliver or refund (docs/FINANCE.md, "Money received but not delivered").
  if (report.unmatched.length > 0) logger.warn('treasury transfers no claim matches', { ...report });
  else logger.info('unmatched', { from_block: report.from_block, to_block: report.to_block, transfers: report.transfers });
  if (report.too_recent.length > 0) logger.info(report.note!, { grace_seconds: report.grace_seconds, too_recent: report.too_recent });
  return report;
}

/** What an invocation that is not a reconcile gets back: nothing is read or written. */
export interface ReconcileRefused {
  error: string;
}

export async function handler(
  event?: ReconcileTask | null,
  context?: Context,
): Promise<ReconcileReport | UnmatchedReport | ReconcileRefused> {
  if (context) logger.addContext(context);
  const task: unknown = (event as { task?: unknown } | null | undefined)?.task;
  if (task === 'unmatched') return unmatched(event!);
  if (task !== undefined && task !== 'reconcile') {
    logger.error('unknown task', { task: String(task) });
    return { error: `unknown task ${JSON.stringify(task)}: expected "reconcile" or "unmatched"` };
  }
  // The adapters load from their own chunk, as the routes' ports do.
  const report = await reconcileFigures((await import('./wiring')).reconcilePortsFromEnv());
  // Published every run, zero included, so the alarm sees a quiet day as data, not silence.
  if (report.state !== 'busy') countMetric(METRICS.reconcileDifferences, {}, report.difference_count);
  if (report.state === 'different') logger.error('figures differ from a recount of the records', { ...report });
  else
    logger.info('reconcile', {
      state: report.state,
      ledger_rows: report.ledger_rows,
      card_sales: report.card_sales,
      pruned_marks: report.pruned_marks,
    });
  return report;
}
