/**
 * Lambda entry of payments' synthetic purchase (EventBridge Scheduler where the stage turns it on,
 * and the pipeline's post-deploy step, which invokes it with no payload): a fresh wallet buys the
 * canary end to end through the public base URL (synthetic/core.ts). Every run publishes
 * `SyntheticPurchaseFailures` (0 when it passed, 1 with its `Step` when it failed), which the
 * `SyntheticPurchaseFailed` alarm watches; a failure throws, so the invocation reports FunctionError.
 */
import type { Context } from 'aws-lambda';
import { METRICS } from '../contract/metrics';
import { logger } from '../platform/logger';
import { countMetric } from '../platform/metrics';
import { runSyntheticPurchase, SyntheticPurchaseFailure, type SyntheticPurchaseReport } from './synthetic/core';

export const SYNTHETIC_PURCHASE_TASK = 'synthetic_purchase';

/** What the scheduler sends (`{ task: 'synthetic_purchase' }`); an empty event (a manual invoke) runs it too. */
export interface SyntheticTask {
  task?: unknown;
}

export async function handler(event?: SyntheticTask | null, context?: Context): Promise<SyntheticPurchaseReport | { error: string }> {
  if (context) logger.addContext(context);
  const task = event?.task;
  if (task !== undefined && task !== SYNTHETIC_PURCHASE_TASK) {
    logger.error('unknown task', { task: String(task) });
    return { error: `unknown task ${JSON.stringify(task)}: expected "${SYNTHETIC_PURCHASE_TASK}" or no task` };
  }
  try {
    // The adapters (viem, the x402 client, Secrets Manager) load from their own chunk.
    const ports = await (await import('./synthetic/wiring')).syntheticPurchaseFromEnv();
    const report = await runSyntheticPurchase(ports);
    countMetric(METRICS.syntheticPurchaseFailures, {}, 0);
    logger.info('synthetic purchase passed', { ...report });
    return report;
  } catch (e) {
    const failure = e instanceof SyntheticPurchaseFailure ? e : new SyntheticPurchaseFailure('setup', (e as Error).message);
    countMetric(METRICS.syntheticPurchaseFailures, { Step: failure.step });
    logger.error(failure.message, { step: failure.step });
    throw failure;
  }
}
