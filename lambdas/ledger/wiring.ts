/**
 * The ledger function's composition, and the stores other functions read the ledger through (by
 * the face's `*FromEnv`): the only file of the domain that names adapters, loaded with `import()`
 * on first use so a cold start that does not touch the ledger does not parse them.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { catalogFromEnv } from '../catalog';
import { INFRA_ENV } from '../contract/env';
import { SETTINGS } from '../contract/settings';
import { readConfigFromEnv } from '../platform/config';
import { rpcUrlsFromEnv } from '../platform/rpc-urls';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { dynamoCardSales } from './adapters/dynamo-card-sales';
import { dynamoCounters } from './adapters/dynamo-counters';
import { dynamoLedger } from './adapters/dynamo-ledger';
import { dynamoRefunds } from './adapters/dynamo-refunds';
import { keyFileServiceSigner } from './adapters/key-file-service-signer';
import { kmsServiceSigner } from './adapters/kms-service-signer';
import { streamChanges } from './adapters/stream-changes';
import { viemRefundChain } from './adapters/viem-refund-receipts';
import { viemTreasuryTransfers } from './adapters/viem-treasury-transfers';
import { foldBatch, type FoldSummary } from './fold';
import type { CardSales, CounterStore, Figures, Ledger, ProofPorts, ServiceSigner } from './ports';
import type { ReconcilePorts } from './reconcile';
import type { RefundPorts } from './refunds';
import type { UnmatchedPorts } from './unmatched';

/** The proof ledger in DynamoDB: a claim is one conditional write; the figures follow from its stream. */
export const ledgerFromEnv = (): Ledger => dynamoLedger(dynamoClient());
/** Card sales in DynamoDB: recording one is one conditional write. */
export const cardSalesFromEnv = (): CardSales => dynamoCardSales(dynamoClient());
/** The figures (counter items), for every domain that reports a number. */
export const figuresFromEnv = (): Figures => dynamoCounters(dynamoClient());

/**
 * The service key: KMS in AWS (a function whose manifest says `signsWithServiceKey` gets its id),
 * the key file locally. A function given neither has no key: its signer refuses to sign, rather
 * than sign with a key nobody published.
 */
export function serviceSignerFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceSigner {
  const kmsKey = env[INFRA_ENV.serviceKeyKmsKeyId];
  if (kmsKey) return kmsServiceSigner(kmsKey);
  const file = env[INFRA_ENV.serviceKeyFile];
  if (file) {
    // Read (or made) on first use, so a function that never signs never touches the file.
    let signer: ServiceSigner | undefined;
    const kept = (): ServiceSigner => (signer ??= keyFileServiceSigner(file));
    return { sign: (input) => kept().sign(input), publicJwk: () => kept().publicJwk() };
  }
  const unconfigured = async (): Promise<never> => {
    throw new Error(`This function has no service key: neither ${INFRA_ENV.serviceKeyKmsKeyId} nor ${INFRA_ENV.serviceKeyFile} is set.`);
  };
  return { sign: unconfigured, publicJwk: unconfigured };
}
const countersFromEnv = (): CounterStore => dynamoCounters(dynamoClient());

/** The fold of one stream batch (fold-handler.ts). */
export function foldFromEnv(): (records: readonly DynamoDBRecord[], shard: { streamArn: string; shardId: string }) => Promise<FoldSummary> {
  const counters = countersFromEnv();
  return (records, shard) => foldBatch(streamChanges(records), shard, counters);
}

/** What the reconcile job reads and compares (reconcile-handler.ts, `npm run reconcile`). */
export const reconcilePortsFromEnv = (): ReconcilePorts => ({
  ledger: ledgerFromEnv(),
  cardSales: cardSalesFromEnv(),
  counters: countersFromEnv(),
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
});

/** The ledger function's ports (GET /api/proof). */
export async function proofPortsFromEnv(): Promise<ProofPorts> {
  return { ledger: ledgerFromEnv(), figures: figuresFromEnv(), catalog: await catalogFromEnv(), config: readConfigFromEnv().config };
}

/**
 * What the unmatched-receipts report reads (reconcile-handler.ts's `unmatched` task, `npm run
 * unmatched`): the treasury's transfers on chain, the ledger, the catalog's prices. A configuration
 * with problems (no treasury, say) is refused: a report over the wrong address would be silent.
 */
export async function unmatchedPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<UnmatchedPorts> {
  const { config, problems } = readConfigFromEnv(env);
  if (problems.length > 0 || !config.treasury) throw new Error(`the payment configuration is not usable: ${problems.join(' ')}`);
  return {
    transfers: viemTreasuryTransfers(rpcUrlsFromEnv(env, config.rpcUrls), config.treasury, config.assets),
    ledger: ledgerFromEnv(),
    catalog: await catalogFromEnv(),
    network: config.network.name,
    minConfirmations: config.minConfirmations,
    explorerUrl:
      env[SETTINGS.explorerUrl.env] === undefined && config.rpcUrls.length > 0 && config.rpcUrls.every(isLoopback)
        ? undefined
        : config.explorerUrl,
    now: () => new Date(),
  };
}

/**
 * Whether a provider is on this machine. A chain reached only there is a local one (`npm start`'s
 * anvil, on chain 8453 as Base is), whose transactions no public explorer shows: the network's
 * default explorer would link to pages that do not exist, so there is none unless EXPLORER_URL names one.
 */
function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}

/**
 * What recording an operator's refund reads and writes (refund-handler.ts, `npm run refund`): the
 * sale's row, the refunds table, the refund transaction on chain (with the configured escrow's
 * refunds, for an escrowed sale), the treasury it must come from and the confirmations a payment needs. A configuration with problems is refused, as for the
 * unmatched report: a refund checked against the wrong treasury would be recorded wrongly.
 */
export function refundPortsFromEnv(env: NodeJS.ProcessEnv = process.env): RefundPorts {
  const { config, problems } = readConfigFromEnv(env);
  if (problems.length > 0 || !config.treasury) throw new Error(`the payment configuration is not usable: ${problems.join(' ')}`);
  return {
    ledger: ledgerFromEnv(),
    refunds: dynamoRefunds(dynamoClient()),
    chain: viemRefundChain(rpcUrlsFromEnv(env, config.rpcUrls), config.assets, config.authCapture?.escrow),
    treasury: config.treasury,
    network: config.network.name,
    minConfirmations: config.minConfirmations,
    now: () => new Date(),
  };
}
