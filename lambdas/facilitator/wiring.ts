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
import { cacheUntilFailure, yesKept, type KeptYes } from '../platform/memo';
import { rpcUrlsFromEnv, type RpcUrls } from '../platform/rpc-urls';
import { dynamoInFlightSettlements, dynamoSettlements } from './adapters/dynamo-settlements';
import { dynamoRelayerLeases } from './adapters/dynamo-relayer-leases';
import { kmsRelayerAccount } from './adapters/kms-relayer-account';
import { privateKeyRelayerAccount, viemRelayer } from './adapters/viem-relayer';
import { viemPriceFeed } from './adapters/viem-price-feed';
import { x402AuthorizationVerifier } from './adapters/x402-authorization-verifier';
import { x402PaymentIdentifiers } from './adapters/x402-payment-identifier';
import { authCaptureVerifier, authorizeCall, operatorGuarded, viemEscrowContract } from './adapters/viem-auth-capture';
import type { EscrowOperator, EscrowSettlement, InFlightSettlements, X402Settlement } from './ports';

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
export async function facilitatorFromEnv(
  env: NodeJS.ProcessEnv,
  rpcUrls: RpcUrls,
  config: MarketConfig,
): Promise<X402Settlement | undefined> {
  const kmsKeys = listOf(env[INFRA_ENV.relayerKmsKeyIds]);
  const keys = listOf(env[INFRA_ENV.relayerPrivateKeys]);
  const accounts =
    kmsKeys.length > 0 ? kmsKeys.map((id) => cacheUntilFailure(() => kmsRelayerAccount(id))) : keys.map((k) => privateKeyRelayerAccount(k));
  if (accounts.length === 0) return undefined;
  const tip = env[INFRA_ENV.relayerPriorityFeeWei]?.trim();
  const leases = dynamoRelayerLeases(dynamoClient());
  const relayer = viemRelayer(
    rpcUrls,
    accounts,
    config.network,
    {
      leases,
      // One holder per process: a Lambda instance, or the local server (whose submissions each take their own key).
      holder: randomUUID(),
      minBalanceWei: BigInt(config.relayerMinBalanceWei),
      onLease: (event) => logger.info('relayer lease', { ...event }),
    },
    // A tip that is no whole number of wei is no tip setting: the node's suggestion, as without one.
    { priorityFeeWei: tip && /^\d+$/.test(tip) ? BigInt(tip) : undefined },
  );
  // An operator key that cannot be read (KMS refusing it, a disabled key) turns the escrow offer
  // off for this instance, never the service: `exact` goes on, and the error is logged (and the
  // watch's SignerFailures alarm counts the key's failures).
  const escrow = await escrowFromEnv(env, rpcUrls, config, leases, tip).catch((e: unknown) => {
    logger.error('escrow operator unavailable: auth-capture is not offered by this instance', { error: (e as Error).message });
    return undefined;
  });
  return {
    // x402's verifier only simulates the transfer from the relayer: any pool key does.
    verifier: x402AuthorizationVerifier(rpcUrls, accounts[0]!, config.network),
    // The operator's transactions are the relayer's own too: a capture pays the treasury, and must
    // never be claimable as a transfer by whoever saw it (payments' `relayed` rule asks this).
    relayer: escrow
      ? { ...relayer, isRelayer: async (a) => (await relayer.isRelayer(a)) || a.toLowerCase() === escrow.operator.toLowerCase() }
      : relayer,
    settlements: dynamoSettlements(dynamoClient()),
    priceFeed: viemPriceFeed(rpcUrls, config.network),
    paymentIds: x402PaymentIdentifiers,
    ...(escrow ? { escrow } : {}),
  };
}

/**
 * The escrow operator's own account (its KMS key in AWS, the local key otherwise), for the
 * operator's `npm run guard-operator`, which makes it delegate to its guard; undefined without a key.
 */
export async function escrowOperatorAccountFromEnv(env: NodeJS.ProcessEnv) {
  const kmsKey = env[INFRA_ENV.escrowOperatorKmsKeyId]?.trim();
  const privateKey = env[INFRA_ENV.escrowOperatorPrivateKey]?.trim();
  if (kmsKey) return kmsRelayerAccount(kmsKey);
  return privateKey ? privateKeyRelayerAccount(privateKey)() : undefined;
}

/**
 * The escrow operator's address while auth-capture is offered (the `captureAuthorizer` every offer
 * names), for a function that lists offers without settling them (discovery): undefined without a
 * key or an escrow, or while the operator's account does not delegate to its guard, read as the
 * payments function reads it (a no read again a minute later). A KMS key's public key is read once.
 */
export function escrowOfferFromEnv(env: NodeJS.ProcessEnv, config: MarketConfig): () => Promise<string | undefined> {
  const kmsKey = env[INFRA_ENV.escrowOperatorKmsKeyId]?.trim();
  const privateKey = env[INFRA_ENV.escrowOperatorPrivateKey]?.trim();
  if (!config.authCapture || (!kmsKey && !privateKey)) return async () => undefined;
  const address = cacheUntilFailure(
    async () => (await (kmsKey ? kmsRelayerAccount(kmsKey) : privateKeyRelayerAccount(privateKey!)())).address,
  );
  let guard: KeptYes | undefined;
  return async () => {
    const operator = await address();
    guard ??= yesKept(() => operatorGuarded(rpcUrlsFromEnv(env, config.rpcUrls), config.network, operator), GUARD_REREAD_MS);
    return (await guard.read()) ? operator : undefined;
  };
}

/**
 * x402 `auth-capture`: the escrow operator's key (KMS in AWS, a test key locally), read once here
 * since its address is every challenge's `captureAuthorizer`; its own relayer, a pool of that one
 * key under the same leases, whose `submit` is the escrow's `authorize`, sent through the operator's
 * guard. Offered only while the operator's account delegates to EscrowOperatorGuard (`offered`):
 * unguarded, a payer who moves its funds first costs the operator more than itself (I2). None
 * without a key or an escrow.
 */
async function escrowFromEnv(
  env: NodeJS.ProcessEnv,
  rpcUrls: RpcUrls,
  config: MarketConfig,
  leases: ReturnType<typeof dynamoRelayerLeases>,
  tip: string | undefined,
): Promise<EscrowSettlement | undefined> {
  const kmsKey = env[INFRA_ENV.escrowOperatorKmsKeyId]?.trim();
  const privateKey = env[INFRA_ENV.escrowOperatorPrivateKey]?.trim();
  const deployment = config.authCapture;
  if (!deployment || (!kmsKey && !privateKey)) return undefined;
  const account = kmsKey ? cacheUntilFailure(() => kmsRelayerAccount(kmsKey)) : privateKeyRelayerAccount(privateKey!);
  const operator = (await account()).address;
  const guard = await operatorGuard(rpcUrls, config, operator);
  return {
    operator,
    offered: () => guard.current(),
    escrow: deployment.escrow,
    tokenCollector: deployment.tokenCollector,
    verifier: authCaptureVerifier(rpcUrls, config.network),
    relayer: viemRelayer(
      rpcUrls,
      [account],
      config.network,
      {
        leases,
        holder: randomUUID(),
        minBalanceWei: BigInt(config.relayerMinBalanceWei),
        onLease: (event) => logger.info('escrow operator lease', { ...event }),
        // One key every instance shares: given back once idle, so nobody waits a lease out for it.
        options: { returnLastKey: true },
      },
      {
        priorityFeeWei: tip && /^\d+$/.test(tip) ? BigInt(tip) : undefined,
        // Only a payment this instance offered reaches here, and its offer needed the guard (kept once
        // read): never an authorize to an undelegated account, whose empty code would take the call and do nothing.
        callOf: async (_token, payment) => authorizeCall(payment, guard.current() ? operator : undefined),
        gasHeadroom: ESCROW_GAS_HEADROOM,
      },
    ),
    contract: viemEscrowContract(rpcUrls, config.network, deployment),
  };
}

/** How long a reading that the operator's account does not delegate to its guard stands before it is read again. */
export const GUARD_REREAD_MS = 60_000;

/**
 * Whether the operator's account delegates to EscrowOperatorGuard: read once before the first
 * offer, kept once it does (only the operator's key could undo it), and read again a minute after
 * a no (so `npm run guard-operator` turns the offer on without a deploy) or on the next use after a
 * failed read. A no is logged once per instance: the operator has a step left (docs/OPERATIONS.md).
 */
async function operatorGuard(rpcUrls: RpcUrls, config: MarketConfig, operator: string): Promise<KeptYes> {
  const guard = yesKept(async () => {
    const yes = await operatorGuarded(rpcUrls, config.network, operator);
    if (!yes) warnUnguarded(operator);
    return yes;
  }, GUARD_REREAD_MS);
  await guard.read().catch((e: unknown) => {
    logger.warn('escrow operator guard unread: auth-capture is offered once it is read', { error: (e as Error).message });
  });
  return guard;
}

/**
 * Gas over each estimate of the operator's calls: an authorize estimated while the operator's token
 * store holds another payment not yet captured, and mined once it was (the store's balance written
 * from zero, 17,100 gas more, at the third call down), ran out of gas, and its payer was cooled
 * down for the operator's own misjudgement; a void meets the same when its payer empties its wallet
 * meanwhile. Unused gas is not paid.
 */
const ESCROW_GAS_HEADROOM = 25_000n;

let warned = false;
/** Said once per instance: without the guard, escrow payments are not offered (docs/SECURITY.md, I2). */
function warnUnguarded(operator: string): void {
  if (warned) return;
  warned = true;
  logger.warn(
    'escrow operator not delegated to EscrowOperatorGuard: auth-capture is not offered until it is (npm run guard-operator, docs/OPERATIONS.md)',
    { operator },
  );
}

/**
 * The escrow operator alone, for a call on an escrowed payment outside a request (the operator's
 * refund, `npm run refund`): its relayer, the escrow and the settlements table; no relayer pool
 * needed. None without an operator key or an escrow.
 */
export async function escrowOperatorPortsFromEnv(
  env: NodeJS.ProcessEnv,
  rpcUrls: RpcUrls,
  config: MarketConfig,
): Promise<EscrowOperator | undefined> {
  const tip = env[INFRA_ENV.relayerPriorityFeeWei]?.trim();
  const escrow = await escrowFromEnv(env, rpcUrls, config, dynamoRelayerLeases(dynamoClient()), tip);
  return escrow ? { escrow, settlements: dynamoSettlements(dynamoClient()), priceFeed: viemPriceFeed(rpcUrls, config.network) } : undefined;
}

/**
 * What the scheduled watch reads: the relayer's pool (none when not configured), the escrow
 * operator's key (none without one: it pays the gas of authorize, capture, void and refund, and
 * keeps the same minimum), and the balance each key must keep.
 */
export async function relayerWatchFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<{
  relayer: Pick<X402Settlement['relayer'], 'balances'> | undefined;
  escrowOperator: Pick<X402Settlement['relayer'], 'balances'> | undefined;
  minimumWei: string;
}> {
  const { config } = readConfigFromEnv(env);
  const x402 = await facilitatorFromEnv(env, rpcUrlsFromEnv(env, config.rpcUrls), config);
  return { relayer: x402?.relayer, escrowOperator: x402?.escrow?.relayer, minimumWei: config.relayerMinBalanceWei };
}

/** What the watch's `stuck_settlements` task reads: the settlements in flight, from their table's sparse index. */
export function inFlightSettlementsFromEnv(): InFlightSettlements {
  return dynamoInFlightSettlements(dynamoClient());
}
