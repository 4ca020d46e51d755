/**
 * Builds the facilitator's ports from the environment: the only file of the facilitator that names
 * adapters. Payments' wiring builds its `x402` port from it through the face (index.ts), which loads
 * this file on first use; so does the watch.
 */
import { randomUUID } from 'node:crypto';
import { INFRA_ENV } from '../contract/env';
import type { MarketConfig } from '../contract/settings';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { readConfigFromEnv } from '../platform/config';
import { logger } from '../platform/logger';
import { cacheUntilFailure } from '../platform/memo';
import { rpcUrlsFromEnv, type RpcUrls } from '../platform/rpc-urls';
import { dynamoInFlightSettlements, dynamoSettlements } from './adapters/dynamo-settlements';
import { dynamoRelayerLeases } from './adapters/dynamo-relayer-leases';
import { kmsRelayerAccount } from './adapters/kms-relayer-account';
import { privateKeyRelayerAccount, viemRelayer } from './adapters/viem-relayer';
import { viemPriceFeed } from './adapters/viem-price-feed';
import { x402AuthorizationVerifier } from './adapters/x402-authorization-verifier';
import { x402PaymentIdentifiers } from './adapters/x402-payment-identifier';
import type { InFlightSettlements, X402Settlement } from './ports';

/** A comma-separated list in one variable, blanks dropped. */
const listOf = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * x402 v2 settlement: the relayer's key pool (KMS keys in AWS, each read on first use; test keys
 * locally) with its leases, x402's verification, the settlements table; none without a key.
 */
export function facilitatorFromEnv(env: NodeJS.ProcessEnv, rpcUrls: RpcUrls, config: MarketConfig): X402Settlement | undefined {
  const kmsKeys = listOf(env[INFRA_ENV.relayerKmsKeyIds]);
  const keys = listOf(env[INFRA_ENV.relayerPrivateKeys]);
  const accounts =
    kmsKeys.length > 0 ? kmsKeys.map((id) => cacheUntilFailure(() => kmsRelayerAccount(id))) : keys.map((k) => privateKeyRelayerAccount(k));
  if (accounts.length === 0) return undefined;
  const tip = env[INFRA_ENV.relayerPriorityFeeWei]?.trim();
  const relayer = viemRelayer(
    rpcUrls,
    accounts,
    config.network,
    {
      leases: dynamoRelayerLeases(dynamoClient()),
      // One holder per process: a Lambda instance, or the local server (whose submissions each take their own key).
      holder: randomUUID(),
      minBalanceWei: BigInt(config.relayerMinBalanceWei),
      onLease: (event) => logger.info('relayer lease', { ...event }),
    },
    // A tip that is no whole number of wei is no tip setting: the node's suggestion, as without one.
    { priorityFeeWei: tip && /^\d+$/.test(tip) ? BigInt(tip) : undefined },
  );
  return {
    // x402's verifier only simulates the transfer from the relayer: any pool key does.
    verifier: x402AuthorizationVerifier(rpcUrls, accounts[0]!, config.network),
    relayer,
    settlements: dynamoSettlements(dynamoClient()),
    priceFeed: viemPriceFeed(rpcUrls, config.network),
    paymentIds: x402PaymentIdentifiers,
  };
}

/** What the scheduled watch reads: the relayer's pool (none when not configured) and the balance each key must keep. */
export async function relayerWatchFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ relayer: Pick<X402Settlement['relayer'], 'balances'> | undefined; minimumWei: string }> {
  const { config } = readConfigFromEnv(env);
  return {
    relayer: facilitatorFromEnv(env, rpcUrlsFromEnv(env, config.rpcUrls), config)?.relayer,
    minimumWei: config.relayerMinBalanceWei,
  };
}

/** What the watch's `stuck_settlements` task reads: the settlements in flight, from their table's sparse index. */
export function inFlightSettlementsFromEnv(): InFlightSettlements {
  return dynamoInFlightSettlements(dynamoClient());
}
