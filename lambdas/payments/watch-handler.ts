/**
 * Lambda entry of payments' scheduled task (EventBridge Scheduler in AWS, every few minutes):
 * `relayer_balance` reads the x402 relayer's ETH balance and publishes it as `RelayerBalanceGwei`,
 * which the `RelayerBalanceLow` alarm watches. /api/ready says the same when someone asks; this
 * tells the operator when nobody does (a drained relayer refuses every signed authorization).
 * A balance that cannot be read fails the run: the scheduler retries it, its failed-runs queue and
 * the alarm's missing data both say so.
 */
import type { Context } from 'aws-lambda';
import { formatDecimal } from '../contract/chain';
import { METRICS } from '../contract/metrics';
import { logger } from '../platform/logger';
import { levelMetric } from '../platform/metrics';

/** What the scheduler sends. */
export interface WatchTask {
  task?: unknown;
}

export type WatchReport =
  | { task: 'relayer_balance'; relayer: null; reason: string }
  | { task: 'relayer_balance'; relayer: string; balance_wei: string; balance_eth: string; minimum_wei: string; short: boolean }
  | { error: string };

const WEI_PER_GWEI = 10n ** 9n;

export async function handler(event?: WatchTask | null, context?: Context): Promise<WatchReport> {
  if (context) logger.addContext(context);
  const task = event?.task;
  if (task !== 'relayer_balance') {
    logger.error('unknown task', { task: String(task) });
    return { error: `unknown task ${JSON.stringify(task)}: expected "relayer_balance"` };
  }
  // The adapters load from their own chunk, as the routes' ports do.
  const watch = await (await import('./wiring')).relayerWatchFromEnv();
  if (!watch.relayer) {
    const reason = 'no relayer configured: signed authorizations are refused, nothing to watch';
    logger.warn(reason);
    return { task, relayer: null, reason };
  }
  const address = await watch.relayer.address();
  const balance = await watch.relayer.balance();
  const minimum = BigInt(watch.minimumWei);
  // Gwei as a number: exact below 2^53 gwei (9 million ETH), and CloudWatch's alarm compares numbers.
  levelMetric(METRICS.relayerBalanceGwei, Number(balance / WEI_PER_GWEI));
  const report = {
    task,
    relayer: address,
    balance_wei: balance.toString(),
    balance_eth: formatDecimal(balance, 18),
    minimum_wei: minimum.toString(),
    short: balance < minimum,
  } as const;
  if (report.short) logger.error('the relayer is short of ETH for gas: top it up (docs/OPERATIONS.md)', { ...report });
  else logger.info('relayer balance', { ...report });
  return report;
}
