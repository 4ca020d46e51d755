/**
 * Starts the whole marketplace on real local parts: DynamoDB Local for every table, anvil
 * (chain 8453) with test USDC and USDbC, and the edge server that runs the Lambda
 * handlers and serves the static tree. Used by `npm start`, the test suite and bench/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Address } from 'viem';
import { INFRA_ENV } from '../lambdas/contract/env';
import { readRelayerKeys, SETTINGS } from '../lambdas/contract/settings';
import { startStreamFolds } from './stream-poller';
import { readConfigFromEnv } from '../lambdas/platform/config';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readOrCreateOriginSecret } from '../lambdas/platform/adapters/file-origin-secret';
import { TABLES } from '../lambdas/contract/tables';
import {
  BASE_LIKE_PRIORITY_FEE_WEI,
  LOCAL_LEGACY_TREASURY,
  TREASURY_ACCOUNT_INDEX,
  ensureRelayers,
  ensureTestTokens,
  startAnvil,
  testAccount,
} from './anvil';
import { chainSnapshot } from './chain-snapshot';
import { createTables } from './create-tables';
import { ensureAuthCaptureEscrow, ensureEscrowOperator } from './escrow';
import { ensureIdentityRegistry, type LocalIdentityRegistry } from './identity-registry';
import { ensureEthUsdFeed } from './price-feed';
import { JAVA_REQUIRED, startDynamoDbLocal } from './dynamodb-local';
import { startEdgeServer } from './edge-server';

/** How long a table creation at start may take before the SDK warns: as long as DynamoDB Local is given to listen. */
const TABLE_CREATION_TIMEOUT_MS = 60_000;

export interface StackOptions {
  /** Edge server port (0: any free port). */
  port: number;
  anvilPort: number;
  dynamoPort: number;
  /** Where DynamoDB Local and anvil keep their data; undefined runs everything in memory. */
  dataDir: string | undefined;
  /** Overrides as environment variables (RPC_URLS, DYNAMODB_ENDPOINT, TREASURY_ADDRESS, …). */
  env: NodeJS.ProcessEnv;
  /** Work the edge must not listen before (`npm start`'s catalog build); its failure stops the start. */
  beforeListening?: Promise<void> | undefined;
}

export interface RunningStack {
  /** The base URL the service advertises (agent card, challenges, links): PUBLIC_BASE_URL, else `listenUrl`. */
  baseUrl: string;
  /** Where the edge server listens on this machine. */
  listenUrl: string;
  rpcUrls: string[];
  dynamoEndpoint: string;
  /** Whether anvil was started by us (false when RPC_URLS points elsewhere). */
  localChain: boolean;
  /** Whether DynamoDB Local was started by us (false when DYNAMODB_ENDPOINT points elsewhere). */
  localDatabase: boolean;
  tokens: { USDC: Address | undefined; USDbC: Address | undefined; reused: boolean };
  treasury: string | undefined;
  legacyTreasury: string | undefined;
  minConfirmations: number;
  /** The ERC-8004 Identity Registry deployed on the local chain, with its one test agent (undefined off anvil). */
  identity: LocalIdentityRegistry | undefined;
  /** The local relayer pool of x402 v2 settlements (on anvil only): each key's address and ETH balance in wei. */
  relayers: { address: string; balance: bigint }[] | undefined;
  stop: () => Promise<void>;
}

/** A start-up failure the user can fix, e.g. a busy port; `envVar` names the setting to change. */
export class StackStartError extends Error {
  constructor(
    message: string,
    readonly envVar?: string,
  ) {
    super(message);
  }
}

const portError = (what: string, envVar: string, port: number) => (e: Error) => {
  if (/busy|EADDRINUSE/.test(e.message)) {
    throw new StackStartError(`${what} cannot listen on 127.0.0.1:${port}: the port is busy. Set ${envVar} to a free port.`, envVar);
  }
  throw e;
};

/** Starts DynamoDB Local, anvil and the edge server (each unless configured elsewhere); stops what started on failure. */
export async function startStack(opts: StackOptions): Promise<RunningStack> {
  const env = opts.env;
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  // Awaited before listening; a failure after another one stopped the start is already reported.
  opts.beforeListening?.catch(() => undefined);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };

  try {
    // An empty setting is no setting: the part is started here (an empty endpoint would send the SDK to AWS).
    const externalDynamo = env[INFRA_ENV.dynamodbEndpoint]?.trim() || undefined;
    const externalRpc = env[SETTINGS.rpcUrls.env]?.trim() || undefined;
    // Local machines run Node 20; Lambda runs 22. The SDK's notice about that is noise here.
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    // Embedded-metric lines are for CloudWatch; locally they would only flood the terminal.
    process.env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';
    process.env['AWS_REGION'] ??= 'us-east-1';

    // Each part is set up as soon as it listens, not when both do: the chain's set-up (one
    // thread's JavaScript and anvil's round trips) runs while DynamoDB Local's JVM still boots
    // (~3 s, against anvil's ~0.1 s).
    const dynamoUp = externalDynamo
      ? undefined
      : startDynamoDbLocal({ port: opts.dynamoPort, path: opts.dataDir && join(opts.dataDir, 'dynamodb') })
          .catch((e: Error) => {
            // No Java: said at once, in one line that names what to install.
            throw e.message === JAVA_REQUIRED ? new StackStartError(JAVA_REQUIRED) : e;
          })
          .catch(portError('DynamoDB Local', 'DYNAMODB_PORT', opts.dynamoPort));
    // A chain that begins empty begins from the set-up's snapshot, once one was made (chain-snapshot.ts).
    const snapshot = externalRpc ? undefined : chainSnapshot();
    const anvilUp = externalRpc
      ? undefined
      : startAnvil({
          port: opts.anvilPort,
          statePath: opts.dataDir && join(opts.dataDir, 'anvil-state.json'),
          initialState: snapshot?.exists ? snapshot.path : undefined,
        }).catch(portError('anvil', 'ANVIL_PORT', opts.anvilPort));
    // A part that started is stopped on any failure, whichever finished first.
    void dynamoUp?.then(
      (d) => stops.push(d.stop),
      () => undefined,
    );
    void anvilUp?.then(
      (a) => stops.push(a.stop),
      () => undefined,
    );
    // The relayer pool's size (relayerKeys): that many test accounts are funded and handed to the handlers.
    // Read by the settings' own rule (an invalid value: the default, and the handlers report it).
    const relayerKeyCount = readRelayerKeys(env[SETTINGS.relayerKeys.env] ?? process.env[SETTINGS.relayerKeys.env]).keys;
    const chainSetUp = anvilUp?.then(async (anvil) => {
      const done = await Promise.all([
        ensureTestTokens(anvil.rpcUrl),
        // Its own deployer account, so it cannot move the tokens' deterministic addresses.
        ensureIdentityRegistry(anvil.rpcUrl),
        ensureRelayers(anvil.rpcUrl, relayerKeyCount),
        // Its own owner account too; at Chainlink's ETH / USD address, where the relayer's gas is priced.
        ensureEthUsdFeed(anvil.rpcUrl),
        // x402 auth-capture's escrow and its ERC-3009 collector (issue 53): their own deployer, at the
        // published v1.0 addresses, the only ones the stock x402 client accepts.
        ensureAuthCaptureEscrow(anvil.rpcUrl),
        ensureEscrowOperator(anvil.rpcUrl),
      ]);
      // Before anything else can reach the chain: it holds the set-up and nothing more.
      if (anvil.fresh) {
        await snapshot
          ?.save(anvil.rpcUrl)
          .catch((e: Error) => console.warn(`keeping the chain's set-up failed (the next start makes it again): ${e.message}`));
      }
      return done;
    });
    const tablesUp = (dynamoUp ?? Promise.resolve(undefined)).then(async (dynamo) => {
      // The handlers read their configuration from process.env, exactly as in a Lambda.
      process.env[INFRA_ENV.dynamodbEndpoint] = externalDynamo ?? dynamo!.endpoint;
      // Not the handlers' client, whose 3 s is for a request's path: DynamoDB Local's first table
      // creations (a JVM still warming up, every table at once) took longer than that each on a
      // loaded machine, and the SDK warned of every one before the banner. The start waits for them
      // as long as DynamoDB Local is given to listen.
      const client = new DynamoDBClient({
        endpoint: process.env[INFRA_ENV.dynamodbEndpoint]!,
        region: process.env['AWS_REGION'] ?? 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        requestHandler: { connectionTimeout: 1_000, requestTimeout: TABLE_CREATION_TIMEOUT_MS },
      });
      try {
        return await createTables(client, TABLES);
      } finally {
        client.destroy();
      }
    });
    // Everything settles before a failure is reported, so that nothing started is left running.
    const [dynamoDone, anvilDone, chainDone, tablesDone] = await Promise.allSettled([dynamoUp, anvilUp, chainSetUp, tablesUp]);
    for (const done of [dynamoDone, anvilDone, chainDone, tablesDone]) if (done.status === 'rejected') throw done.reason;
    const anvil = anvilDone.status === 'fulfilled' ? anvilDone.value : undefined;
    const [tokens, identity, relayers, , , operator] = chainDone.status === 'fulfilled' && chainDone.value ? chainDone.value : [];
    const dynamoEndpoint = process.env[INFRA_ENV.dynamodbEndpoint]!;
    const rpcUrls = externalRpc ? externalRpc.split(',').map((s) => s.trim()) : [anvil!.rpcUrl];
    process.env[SETTINGS.rpcUrls.env] = rpcUrls.join(',');

    const setDefault = (name: string, value: string | undefined): void => {
      if (env[name] !== undefined) process.env[name] = env[name];
      else if (value !== undefined) process.env[name] = value;
    };
    setDefault(SETTINGS.treasury.env, anvil ? testAccount(TREASURY_ACCOUNT_INDEX).address : undefined);
    setDefault(SETTINGS.legacyTreasury.env, LOCAL_LEGACY_TREASURY);
    setDefault(SETTINGS.usdc.env, tokens?.USDC);
    setDefault(SETTINGS.usdbc.env, tokens?.USDbC);
    setDefault(SETTINGS.identityRegistry.env, identity?.registry);
    // A local chain has no block explorer: the ledger links nowhere unless the user names one.
    setDefault(SETTINGS.explorerUrl.env, anvil ? '' : undefined);
    // x402 v2 settlement: the relayer pool that submits signed authorizations (anvil test accounts).
    setDefault(INFRA_ENV.relayerPrivateKeys, relayers?.map((r) => r.privateKey).join(','));
    // x402 auth-capture: the escrow's operator, the challenges' captureAuthorizer (a test account of its own).
    setDefault(INFRA_ENV.escrowOperatorPrivateKey, operator?.privateKey);
    // Base's tip on anvil, whose own suggestion is never under 1 gwei (anvil.ts, BASE_LIKE_BASE_FEE_WEI).
    setDefault(INFRA_ENV.relayerPriorityFeeWei, anvil ? String(BASE_LIKE_PRIORITY_FEE_WEI) : undefined);
    for (const name of [SETTINGS.minConfirmations.env, SETTINGS.paymentsEnabled.env]) setDefault(name, undefined);
    // Keys every handler shares, as Lambdas share Secrets Manager and KMS: under the data dir,
    // or for an in-memory run in a temporary directory removed on stop.
    let keyDir = opts.dataDir;
    if (!keyDir) {
      const tmp = mkdtempSync(join(tmpdir(), 'skill-market-keys-'));
      stops.push(async () => rmSync(tmp, { recursive: true, force: true }));
      keyDir = tmp;
    }
    setDefault(INFRA_ENV.licenseSecretFile, join(keyDir, 'license-secret'));
    // The file keeps the name it had when it signed the agent card only, so a data dir keeps its published key.
    setDefault(INFRA_ENV.serviceKeyFile, join(keyDir, 'agent-card-key.json'));
    // The origin secret the edge adds and every handler checks, as CloudFront and the functions
    // share the Secrets Manager secret: always on, so a local request takes the same path as in AWS.
    setDefault(INFRA_ENV.originSecretFile, join(keyDir, 'origin-secret'));
    const originSecret = readOrCreateOriginSecret(process.env[INFRA_ENV.originSecretFile]!);

    // The advertised base URL never comes from a request's Host: the user's PUBLIC_BASE_URL, else
    // the address the edge listens on, set before the first request can reach a handler.
    const configuredBase = env[SETTINGS.publicBaseUrl.env]?.trim();
    let baseUrl = '';
    let listenUrl = '';
    const advertise = (port: number): void => {
      listenUrl = `http://127.0.0.1:${port}`;
      baseUrl = configuredBase ? configuredBase.replace(/\/+$/, '') : listenUrl;
      process.env[SETTINGS.publicBaseUrl.env] = configuredBase || listenUrl;
    };
    await opts.beforeListening;
    const server: Server = await startEdgeServer({ port: opts.port, onListening: advertise, originSecret }).catch(
      portError('the API', 'PORT', opts.port),
    );
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    // The fold's event source mappings: a poller of each streamed table, calling the fold's Lambda
    // entry with the event Lambda would send (the figures follow purchases by a poll or two).
    const folds = startStreamFolds({
      endpoint: dynamoEndpoint,
      tables: TABLES,
      load: () => import('../lambdas/ledger/fold-handler.ts'),
    });
    // A stop lets a batch under way finish before the table it writes goes (bounded: a fold stuck on
    // a table that stopped answering must not hold Ctrl-C).
    stops.push(async () => {
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([folds.stop(), new Promise<void>((resolve) => (giveUp = setTimeout(resolve, 5_000)))]);
      clearTimeout(giveUp);
    });
    const { config } = readConfigFromEnv();

    return {
      baseUrl,
      listenUrl,
      rpcUrls,
      dynamoEndpoint,
      localChain: anvil !== undefined,
      localDatabase: externalDynamo === undefined,
      tokens: { USDC: config.assets.USDC, USDbC: config.assets.USDbC, reused: tokens?.reused ?? true },
      treasury: config.treasury,
      legacyTreasury: config.legacyTreasury,
      minConfirmations: config.minConfirmations,
      identity,
      relayers: relayers?.map((r) => ({ address: r.address, balance: r.balance })),
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
