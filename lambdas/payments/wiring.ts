/**
 * Builds the payments ports from the environment: the only file of the domain that names
 * adapters. Other functions that settle (access, agents, checkout) or read the ledger (discovery,
 * insights) build theirs from these, through the domain's face (index.ts), which loads this file
 * on first use.
 */
import { catalogFromEnv } from '../catalog';
import { cardSalesFromEnv, figuresFromEnv, ledgerFromEnv, serviceSignerFromEnv } from '../ledger';
import { randomUUID } from 'node:crypto';
import { INFRA_ENV } from '../contract/env';
import type { MarketConfig } from '../contract/settings';
import { TABLES } from '../contract/tables';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { readConfigFromEnv } from '../platform/config';
import { AppError } from '../platform/errors';
import { errorResponse, type ApiRequest } from '../platform/http';
import { logger } from '../platform/logger';
import { cacheFor, cacheUntilFailure } from '../platform/memo';
import { withNegativeCache } from './adapters/cached-chain-reader';
import { dynamoNonces } from './adapters/dynamo-nonces';
import { dynamoTableProbe } from './adapters/dynamo-table-probe';
import { filePackStore } from './adapters/file-pack-store';
import { joseLicenses } from './adapters/jose-licenses';
import { fileLicenseSecret, newLicenseKey, secretsManagerLicenseSecret } from './adapters/license-secret';
import { secretsManagerVersions } from '../platform/adapters/secret-versions';
import { localConfirmations } from './adapters/local-confirmations';
import { sfnConfirmations } from './adapters/sfn-confirmations';
import { viemChainIdProbe } from './adapters/viem-chain-id-probe';
import { viemChainReader } from './adapters/viem-chain-reader';
import { viemSiwe } from './adapters/viem-siwe';
import { dynamoInFlightSettlements, dynamoSettlements } from './adapters/dynamo-settlements';
import { kmsRelayerAccount } from './adapters/kms-relayer-account';
import { dynamoRelayerLeases } from './adapters/dynamo-relayer-leases';
import { privateKeyRelayerAccount, viemRelayer } from './adapters/viem-relayer';
import { viemPriceFeed } from './adapters/viem-price-feed';
import { x402AuthorizationVerifier } from './adapters/x402-authorization-verifier';
import { x402PaymentRequiredHeader } from './adapters/x402-payment-required';
import { x402BazaarExtension } from './adapters/x402-bazaar';
import { x402PaymentIdentifiers } from './adapters/x402-payment-identifier';
import { challengeAnswer } from './challenge-answer';
import { confirmationTask } from './confirmation';
import type { InFlightSettlements, PaymentsPorts, SecretVersions, X402Settlement } from './ports';
import { rpcUrlsFromEnv, type RpcUrls } from '../platform/rpc-urls';

/** How long /api/ready's probes of tables and RPC providers are shared between callers. */
const READY_PROBE_TTL_MS = 5_000;

/** The canary's challenge exactly as GET /api/pay answers it (`challengeAnswer`, which access's route calls), in-process (no HTTP, no fabricated event). */
function liveChallenge(ports: PaymentsPorts) {
  return async (baseUrl: string): Promise<{ status: number; body: string }> => {
    const canary = ports.catalog.pricing.canary;
    const request: ApiRequest = {
      method: 'GET',
      path: '/api/pay',
      routeKey: 'GET /api/pay',
      query: { skill: canary },
      headers: {},
      pathParameters: {},
      body: undefined,
      requestId: 'readiness',
      baseUrl,
      sourceIp: '127.0.0.1',
    };
    try {
      const res = challengeAnswer(request, ports);
      return { status: res.statusCode, body: String(res.body ?? '') };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const res = errorResponse(e);
      return { status: res.statusCode, body: String(res.body ?? '') };
    }
  };
}

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
function x402FromEnv(env: NodeJS.ProcessEnv, rpcUrls: RpcUrls, config: MarketConfig): X402Settlement | undefined {
  const kmsKeys = listOf(env[INFRA_ENV.relayerKmsKeyIds]);
  const keys = listOf(env[INFRA_ENV.relayerPrivateKeys]);
  const accounts =
    kmsKeys.length > 0 ? kmsKeys.map((id) => cacheUntilFailure(() => kmsRelayerAccount(id))) : keys.map((k) => privateKeyRelayerAccount(k));
  if (accounts.length === 0) return undefined;
  const relayer = viemRelayer(rpcUrls, accounts, config.network, {
    leases: dynamoRelayerLeases(dynamoClient()),
    // One holder per process: a Lambda instance, or the local server (whose submissions each take their own key).
    holder: randomUUID(),
    minBalanceWei: BigInt(config.relayerMinBalanceWei),
    onLease: (event) => logger.info('relayer lease', { ...event }),
  });
  return {
    // x402's verifier only simulates the transfer from the relayer: any pool key does.
    verifier: x402AuthorizationVerifier(rpcUrls, accounts[0]!, config.network),
    relayer,
    settlements: dynamoSettlements(dynamoClient()),
    priceFeed: viemPriceFeed(rpcUrls, config.network),
    paymentIds: x402PaymentIdentifiers,
  };
}

/** What payments' scheduled watch reads: the relayer's pool (none when not configured) and the balance each key must keep. */
export async function relayerWatchFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ relayer: Pick<X402Settlement['relayer'], 'balances'> | undefined; minimumWei: string }> {
  const { config } = readConfigFromEnv(env);
  return {
    relayer: x402FromEnv(env, rpcUrlsFromEnv(env, config.rpcUrls), config)?.relayer,
    minimumWei: config.relayerMinBalanceWei,
  };
}

/** What the watch's `stuck_settlements` task reads: the settlements in flight, from their table's sparse index. */
export function inFlightSettlementsFromEnv(): InFlightSettlements {
  return dynamoInFlightSettlements(dynamoClient());
}

export async function paymentsPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<PaymentsPorts> {
  const reading = readConfigFromEnv(env);
  const { config } = reading;
  const secretArn = env[INFRA_ENV.licenseSecretArn];
  const stateMachine = env[INFRA_ENV.confirmationStateMachineArn];
  // The providers, with the keyed ones from the RPC secret (AWS) read on first use.
  const rpcUrls = rpcUrlsFromEnv(env, config.rpcUrls);
  const x402 = x402FromEnv(env, rpcUrls, config);
  const ports: PaymentsPorts = {
    config,
    configReading: reading,
    // /api/ready may be called often; its probes (a paid RPC call, table describes) answer once per few seconds.
    probeTables: cacheFor(READY_PROBE_TTL_MS, dynamoTableProbe(dynamoClient(), TABLES)),
    rpcUrls,
    probeChainIds: cacheFor(READY_PROBE_TTL_MS, viemChainIdProbe()),
    liveChallenge: (baseUrl) => liveChallenge(ports)(baseUrl),
    probeRelayer: cacheFor(READY_PROBE_TTL_MS, async () => x402?.relayer.balances()),
    catalog: await catalogFromEnv(),
    chain: withNegativeCache(viemChainReader(rpcUrls, config.network.chainId)),
    ledger: await ledgerFromEnv(),
    cardSales: await cardSalesFromEnv(),
    figures: await figuresFromEnv(),
    packs: filePackStore(),
    licenses: joseLicenses(
      secretArn ? secretsManagerLicenseSecret(secretArn) : fileLicenseSecret(env[INFRA_ENV.licenseSecretFile], (m) => logger.warn(m)),
    ),
    // In AWS a Step Functions execution re-verifies; locally the same task runs in-process.
    confirmations: stateMachine
      ? sfnConfirmations(stateMachine)
      : localConfirmations(
          (job) => confirmationTask(job, ports),
          () => ports.config.reorgWindowSeconds,
        ),
    signatures: viemSiwe(rpcUrls, config.network),
    nonces: dynamoNonces(dynamoClient()),
    x402,
    paymentRequiredHeader: x402PaymentRequiredHeader,
    discoveryExtension: x402BazaarExtension,
    serviceSigner: await serviceSignerFromEnv(env),
    now: () => new Date(),
  };
  return ports;
}

/** What the license key's rotation steps need (license-rotation-handler.ts): the secret's versions and a new key. */
export function rotationPortsFromEnv(secretId: string): { secret: SecretVersions; newKey: () => string } {
  return { secret: secretsManagerVersions(secretId), newKey: newLicenseKey };
}
