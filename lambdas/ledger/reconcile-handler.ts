/**
 * Lambda entry of the daily reconcile (EventBridge Scheduler in AWS; `npm run reconcile` locally):
 * recounts every ledger row and card sale and compares the figures the fold keeps.
 */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { METRICS } from '../contract/metrics';
import { countMetric } from '../platform/metrics';
import { reconcileFigures, type ReconcileReport } from './reconcile';

/** What a scheduled invocation sends (EventBridge Scheduler's input); `npm run reconcile` sends nothing. */
export interface ReconcileTask {
  task?: 'reconcile';
}

/** What an invocation that is not a reconcile gets back: nothing is read or written. */
export interface ReconcileRefused {
  error: string;
}

export async function handler(event?: ReconcileTask | null, context?: Context): Promise<ReconcileReport | ReconcileRefused> {
  if (context) logger.addContext(context);
  const task: unknown = (event as { task?: unknown } | null | undefined)?.task;
  if (task !== undefined && task !== 'reconcile') {
    logger.error('unknown task', { task: String(task) });
    return { error: `unknown task ${JSON.stringify(task)}: expected "reconcile"` };
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
