/**
 * The public face of the facilitator: x402's facilitator role (coinbase/x402 splits client,
 * resource server and facilitator the same way). It verifies a signed authorization, settles it
 * from the relayer's key pool under the money invariants of docs/SECURITY.md, and ends it; it
 * knows resources, not skills, and nothing of the ledger or delivery, which are payments' (the
 * resource server). It imports the contract and the platform only (the linter holds this).
 */
import type { MarketConfig } from '../contract/settings';
import type { RpcUrls } from '../platform/rpc-urls';
import type { X402Settlement } from './ports';
import type { WatchReport, WatchTask } from './watch';
import type { Context } from 'aws-lambda';

export type * from './ports';
export type { WatchReport, WatchTask } from './watch';
export { authorizationOfKey, settlementKey } from './core/settlement-key';
export { CONSUMED, consumedExpiry, PAYMENT_IN_FLIGHT, validBeforeTooFar } from './core/authorization-life';
export { holdEnded, holdOf, judgeFunds, pendingShortfall, revertCoolUntil, VALIDITY_MARGIN_SECONDS } from './core/relayer-funds';
export { alongside, endRelayedSettlement, gasOf, gasUsdOf, lostGas, recordReverted, recordSettled } from './settlement-end';

/**
 * The facilitator's ports from the environment (undefined without a relayer key), built by its own
 * wiring, which loads with the first call in a chunk of its own (viem, the AWS SDK).
 */
export const facilitatorFromEnv = async (
  env: NodeJS.ProcessEnv,
  rpcUrls: RpcUrls,
  config: MarketConfig,
): Promise<X402Settlement | undefined> => (await import('./wiring')).facilitatorFromEnv(env, rpcUrls, config);

/** The scheduled watch of the relayer's gas and of settlements stuck in flight (watch.ts), loaded on its first run. */
export const watchTask = async (event?: WatchTask | null, context?: Context): Promise<WatchReport> =>
  (await import('./watch')).watch(event, context, async () => {
    // The adapters load from their own chunk, as the routes' ports do.
    const wiring = await import('./wiring');
    return { relayerWatch: () => wiring.relayerWatchFromEnv(), inFlight: () => wiring.inFlightSettlementsFromEnv() };
  });
