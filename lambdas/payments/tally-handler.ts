/**
 * Lambda entry of the scheduled tally tasks (EventBridge Scheduler in AWS, a timer and
 * `npm run reconcile` locally): `fold` brings the tallies up to every journaled change,
 * finishing what an interrupted writer left; `reconcile` recounts the records and compares.
 */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { reconcileTallies, type ReconcileReport } from './reconcile';
import type { FoldResult } from './tally-journal';
import { METRICS } from '../contract/metrics';
import { countMetric } from '../platform/metrics';

export interface TallyTask {
  task: 'fold' | 'reconcile';
}

/** What a task that is neither gets back: nothing is read or written. */
export interface TallyTaskRefused {
  error: string;
}

export async function handler(event: TallyTask, context?: Context): Promise<FoldResult | ReconcileReport | TallyTaskRefused> {
  if (context) logger.addContext(context);
  const task: unknown = (event as { task?: unknown } | null)?.task;
  if (task !== 'fold' && task !== 'reconcile') {
    logger.error('unknown tally task', { task: String(task) });
    return { error: `unknown task ${JSON.stringify(task ?? null)}: expected "fold" or "reconcile"` };
  }
  // The adapters load from their own chunk once a task is known, as the routes' ports do.
  const ports = (await import('./wiring')).tallyPortsFromEnv();
  if (task === 'reconcile') {
    const report = await reconcileTallies(ports);
    // Published every run, zero included, so the alarm sees a quiet day as data, not silence.
    if (report.state !== 'busy') countMetric(METRICS.reconcileDifferences, {}, report.difference_count);
    if (report.state === 'different') logger.error('tallies differ from a recount of the records', { ...report });
    else
      logger.info('reconcile', {
        state: report.state,
        ledger_rows: report.ledger_rows,
        card_sales: report.card_sales,
        adopted: report.adopted,
      });
    return report;
  }
  const result = await ports.journal.fold();
  logger.info('fold', { ...result });
  return result;
}
