/**
 * Builds the payments ports from the environment: the only file of the domain that names
 * adapters. Other functions that settle (access, agents, checkout) or read the ledger (discovery,
 * insights) build theirs from these, through the domain's face (index.ts), which loads this file
 * on first use.
 */
import { catalogFromEnv } from '../catalog';
import { cardSalesFromEnv, figuresFromEnv, ledgerFromEnv, recordRefundFromEnv, serviceSignerFromEnv } from '../ledger';
import { INFRA_ENV } from '../contract/env';
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
import { filePackVersionStore } from './adapters/file-pack-version-store';
import { joseLicenses } from './adapters/jose-licenses';
import { fileLicenseSecret, newLicenseKey, secretsManagerLicenseSecret } from './adapters/license-secret';
import { secretsManagerVersions } from '../platform/adapters/secret-versions';
import { localConfirmations } from './adapters/local-confirmations';
import { sfnConfirmations } from './adapters/sfn-confirmations';
import { viemChainIdProbe } from './adapters/viem-chain-id-probe';
import { viemChainReader } from './adapters/viem-chain-reader';
import { viemSiwe } from './adapters/viem-siwe';
import { x402PaymentRequiredHeader } from './adapters/x402-payment-required';
import { x402BazaarExtension } from './adapters/x402-bazaar';
import { challengeAnswer } from './challenge-answer';
import { confirmationTask } from './confirmation';
import { escrowOperatorPortsFromEnv, facilitatorFromEnv } from '../facilitator';
import type { EscrowRefundPorts } from './escrow-refund';
import type { PackVersionStore, PaymentsPorts, SecretVersions } from './ports';
import { versionsDataDir } from '../platform/data-dirs';
import { rpcUrlsFromEnv } from '../platform/rpc-urls';

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

export async function paymentsPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<PaymentsPorts> {
  const reading = readConfigFromEnv(env);
  const { config } = reading;
  const secretArn = env[INFRA_ENV.licenseSecretArn];
  const stateMachine = env[INFRA_ENV.confirmationStateMachineArn];
  // The providers, with the keyed ones from the RPC secret (AWS) read on first use.
  const rpcUrls = rpcUrlsFromEnv(env, config.rpcUrls);
  const x402 = await facilitatorFromEnv(env, rpcUrls, config);
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
    versions: packVersionStoreFromEnv(env),
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

/**
 * The published pack versions (issue 52): the versions bucket where the stack names one
 * (PACK_VERSIONS_BUCKET: in AWS, for the functions whose manifest says `packVersions: 'read'`),
 * else dist/versions (or VERSIONS_DATA_DIR: a test points the functions at a rebuilt copy). The S3
 * client loads on the first version asked for, not with the wiring.
 */
export function packVersionStoreFromEnv(env: NodeJS.ProcessEnv = process.env): PackVersionStore {
  const bucket = env[INFRA_ENV.packVersionsBucket];
  if (!bucket) return filePackVersionStore(versionsDataDir(env));
  const store = cacheUntilFailure(() => import('./adapters/s3-pack-version-store').then((m) => m.s3PackVersionStore(bucket)));
  return { get: async (digest) => (await store()).get(digest) };
}

/**
 * What the operator's refund of an escrowed sale reads and does (escrow-refund-handler.ts, `npm
 * run refund -- <sale tx>`): the sale's row, the escrow operator (its key, the escrow, the
 * settlement records) and the ledger's recording. A configuration with problems is refused, as the
 * ledger's refund recording refuses it.
 */
export async function escrowRefundPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<EscrowRefundPorts> {
  const { config, problems } = readConfigFromEnv(env);
  if (problems.length > 0 || !config.treasury) throw new Error(`the payment configuration is not usable: ${problems.join(' ')}`);
  return {
    ledger: await ledgerFromEnv(),
    operator: await escrowOperatorPortsFromEnv(env, rpcUrlsFromEnv(env, config.rpcUrls), config),
    record: (saleTx, refundTx) => recordRefundFromEnv(saleTx, refundTx, env),
    network: config.network.name,
    ethUsdFeed: config.ethUsdFeed,
    now: () => new Date(),
  };
}
