/**
 * The facilitator's scheduled tasks (payments' watch-handler.ts is their Lambda entry) (EventBridge Scheduler in AWS, every few minutes):
 * - `relayer_balance` reads the x402 relayer's ETH balance and publishes it as `RelayerBalanceGwei`,
 *   which the `RelayerBalanceLow` alarm watches. /api/ready says the same when someone asks; this
 *   tells the operator when nobody does (a drained relayer refuses every signed authorization).
 *   The escrow operator's key (x402 `auth-capture`) is read and published the same way, marked
 *   `escrow_operator`: it pays its own gas, and short of the minimum it authorizes nothing new.
 * - `stuck_settlements` counts the x402 settlements still in flight STUCK_SETTLEMENT_AFTER_MINUTES
 *   after their claim (within the last STUCK_SETTLEMENT_WINDOW_HOURS) and publishes the count as
 *   `StuckSettlements`, which the `StuckSettlements` alarm watches; it logs their keys.
 * A balance or an index that cannot be read fails the run: the scheduler retries it, and its
 * failed-runs queue (and, for the balance, the alarm's missing data) says so.
 */
import type { Context } from 'aws-lambda';
import { formatDecimal } from '../contract/chain';
import { METRICS } from '../contract/metrics';
import { STUCK_SETTLEMENT_AFTER_MINUTES, STUCK_SETTLEMENT_WINDOW_HOURS } from '../contract/schedules';
import { logger } from '../platform/logger';
import { levelMetric } from '../platform/metrics';
import type { InFlightSettlements, Relayer } from './ports';

/** What the scheduler sends. */
export interface WatchTask {
  task?: unknown;
}

export type WatchReport =
  | { task: 'relayer_balance'; relayer: null; reason: string }
  | {
      task: 'relayer_balance';
      keys: { relayer: string; balance_wei: string; balance_eth: string; short: boolean; escrow_operator?: true }[];
      minimum_wei: string;
      short: boolean;
    }
  | { task: 'stuck_settlements'; from: string; to: string; stuck: number; oldest: string | null; keys: string[] }
  | { error: string };

const TASKS = ['relayer_balance', 'stuck_settlements'] as const;
/** At most this many stuck settlements' keys are logged and returned: enough to start with. */
const KEYS_SHOWN = 20;

const WEI_PER_GWEI = 10n ** 9n;

/** What the watch reads, built by the facilitator's wiring (loaded by the face on the first run, with the adapters). */
export interface WatchPorts {
  relayerWatch(): Promise<{
    relayer: Pick<Relayer, 'balances'> | undefined;
    /** The escrow operator's key, when `auth-capture` is offered: watched beside the pool. */
    escrowOperator?: Pick<Relayer, 'balances'> | undefined;
    minimumWei: string;
  }>;
  inFlight(): InFlightSettlements;
}

export async function watch(
  event: WatchTask | null | undefined,
  context: Context | undefined,
  ports: () => Promise<WatchPorts>,
): Promise<WatchReport> {
  if (context) logger.addContext(context);
  const task = event?.task;
  if (task === 'stuck_settlements') return stuckSettlements((await ports()).inFlight());
  if (task !== 'relayer_balance') {
    logger.error('unknown task', { task: String(task) });
    return { error: `unknown task ${JSON.stringify(task)}: expected one of ${TASKS.map((t) => `"${t}"`).join(', ')}` };
  }
  const watch = await (await ports()).relayerWatch();
  if (!watch.relayer) {
    const reason = 'no relayer configured: signed authorizations are refused, nothing to watch';
    logger.warn(reason);
    return { task, relayer: null, reason };
  }
  const minimum = BigInt(watch.minimumWei);
  const [pool, operator] = await Promise.all([watch.relayer.balances(), watch.escrowOperator?.balances() ?? []]);
  const operators = new Set(operator.map((k) => k.address));
  const balances = [...pool, ...operator];
  // A key whose balance cannot be read fails the run before anything is published: no reading,
  // which RelayerBalanceLow treats as a low balance.
  const unread = balances.flatMap((k) => ('error' in k ? [`${k.address} (${k.error})`] : []));
  if (unread.length > 0) throw new Error(`relayer balance unreadable: ${unread.join('; ')}`);
  const keys = balances.flatMap((k) => ('balanceWei' in k ? [k] : []));
  const report = {
    task: 'relayer_balance' as const,
    // Each key of the pool: a short one leaves the pool (it settles nothing new) until it is topped up.
    // The escrow operator's likewise: short, it authorizes no escrowed payment (its pool is itself).
    keys: keys.map((k) => ({
      relayer: k.address,
      balance_wei: k.balanceWei.toString(),
      balance_eth: formatDecimal(k.balanceWei, 18),
      short: k.balanceWei < minimum,
      ...(operators.has(k.address) ? { escrow_operator: true as const } : {}),
    })),
    minimum_wei: minimum.toString(),
    short: keys.some((k) => k.balanceWei < minimum),
  };
  // Gwei as a number: exact below 2^53 gwei (9 million ETH), and CloudWatch's alarm compares numbers.
  // Each key under its own dimension (`key`, the dashboard) and under the service alone, where
  // RelayerBalanceLow's Minimum is the lowest key: one alarm covers every key, whatever the pool's
  // size, and the escrow operator's.
  for (const k of keys) levelMetric(METRICS.relayerBalanceGwei, Number(k.balanceWei / WEI_PER_GWEI), { key: k.address });
  if (report.short)
    logger.error('a relayer key is short of ETH for gas: top it up (docs/OPERATIONS.md)', {
      ...report,
      short_keys: report.keys.filter((k) => k.short).map((k) => k.relayer),
    });
  else logger.info('relayer balance', { ...report });
  return report;
}

async function stuckSettlements(inFlight: InFlightSettlements, now = Date.now()): Promise<WatchReport> {
  const from = new Date(now - STUCK_SETTLEMENT_WINDOW_HOURS * 3_600_000).toISOString();
  const to = new Date(now - STUCK_SETTLEMENT_AFTER_MINUTES * 60_000).toISOString();
  const rows = await inFlight.claimedBetween(from, to);
  levelMetric(METRICS.stuckSettlements, rows.length);
  const report = {
    task: 'stuck_settlements',
    from,
    to,
    stuck: rows.length,
    oldest: rows[0]?.claimedAt ?? null,
    keys: rows.slice(0, KEYS_SHOWN).map((r) => r.pk),
  } as const;
  if (rows.length > 0)
    logger.error('x402 settlements stuck in flight: see docs/OPERATIONS.md, "A settlement stuck in flight"', { ...report });
  else logger.info('no x402 settlement stuck in flight', { from, to });
  return report;
}
