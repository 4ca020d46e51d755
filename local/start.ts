/**
 * `npm start` (bundled and run by local/run.mjs): builds the catalog, runs the whole marketplace
 * locally and prints how to use it.
 * Data persists under .data/ (EPHEMERAL=1 keeps everything in memory). Ctrl-C stops every child.
 */
import { formatEther } from 'viem';
import { BUYER_ACCOUNT_INDEXES, BUYER_TOKEN_BALANCE, testAccount } from './anvil';
import {
  DEFAULT_DATA_DIR,
  DEFAULT_PORTS,
  ENDPOINTS_FILE_ENV,
  endpointsCandidates,
  endpointsFileFor,
  recordedSettings,
  removeEndpoints,
  writeEndpoints,
} from './endpoints';
import { StackStartError, startStack } from './stack';
import { CHAIN_ID } from '../lambdas/contract/chain';
import { links } from '../lambdas/contract/links';
import { SECRET_SETTINGS, SETTINGS } from '../lambdas/contract/settings';
import { AppError } from '../lambdas/platform/errors';

const env = process.env;
const intEnv = (name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`${name} must be a port number from 0 to 65535, got "${raw}"`);
    process.exit(2);
  }
  return n;
};

const dataDir = env['EPHEMERAL'] === '1' ? undefined : (env['DATA_DIR'] ?? DEFAULT_DATA_DIR);
// Quiet by default: one warning line per failure, not one JSON line per request.
process.env['POWERTOOLS_LOG_LEVEL'] ??= 'WARN';

/** Whether the checkout domain will find Stripe keys (it reads the same variables), and where the SDK connects. */
function cardCheckoutLine(e: NodeJS.ProcessEnv, baseUrl: string): string {
  const missing = Object.values(SECRET_SETTINGS)
    .map((s) => s.env)
    .filter((name) => !e[name]?.trim());
  if (missing.length > 0) return `off (set ${missing.join(' and ')}; ACP/UCP creation answers 503 CHECKOUT_NOT_CONFIGURED)`;
  return `on, Stripe at ${e[SETTINGS.stripeApiBase.env]?.trim() || 'api.stripe.com'}; webhook ${links(baseUrl).stripe_webhook}`;
}

/**
 * The catalog build (the storefront, the catalog data and the sealed packs the edge serves), run
 * beside the stack's start: its modules load once DynamoDB Local and anvil are spawned. The edge listens
 * once it is done; an invalid catalog stops the start with the catalog's own message.
 */
async function buildCatalog(): Promise<void> {
  const { buildSite, CatalogError } = await import('../catalog/build');
  try {
    await buildSite();
  } catch (e) {
    throw e instanceof CatalogError ? new StackStartError(e.message) : e;
  }
}

try {
  const stack = await startStack({
    // BUILD_SITE=0 serves the dist/ an earlier build left (the tests' setup builds it once for every start they spawn).
    beforeListening: env['BUILD_SITE'] === '0' ? undefined : buildCatalog(),
    port: intEnv('PORT', DEFAULT_PORTS.api),
    anvilPort: intEnv('ANVIL_PORT', DEFAULT_PORTS.anvil),
    dynamoPort: intEnv('DYNAMODB_PORT', DEFAULT_PORTS.dynamodb),
    dataDir,
    env,
  });
  // Since the process started: the launcher's build and the catalog build included.
  const seconds = (performance.now() / 1000).toFixed(1);
  // Where it runs, for the tools (local/endpoints.ts): they read it unless a flag or the environment names another.
  const endpointsFile = endpointsFileFor(env, dataDir);
  writeEndpoints(endpointsFile, {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    baseUrl: stack.baseUrl,
    rpcUrls: stack.rpcUrls,
    dynamodbEndpoint: stack.dynamoEndpoint,
    dataDir: dataDir ?? null,
    settings: recordedSettings(process.env),
  });
  process.on('exit', () => removeEndpoints(endpointsFile, process.pid));
  // A tool in a plain shell looks in .data/ and the in-memory run's place; elsewhere it needs ENDPOINTS_FILE (or DATA_DIR).
  const found = endpointsCandidates({}).includes(endpointsFile);
  const toolEnv = found ? '' : `${ENDPOINTS_FILE_ENV}=${endpointsFile} `;
  const buyer = testAccount(1);
  const lines = [
    '',
    `  Skill marketplace running (ready in ${seconds} s)`,
    '',
    `  Base URL        ${stack.baseUrl}`,
    ...(stack.listenUrl === stack.baseUrl ? [] : [`  Listening on    ${stack.listenUrl}  (PUBLIC_BASE_URL is what the API advertises)`]),
    `  Health          ${stack.listenUrl}/api/health    Readiness  ${stack.listenUrl}/api/ready`,
    `  RPC             ${stack.rpcUrls.join(', ')}  (chain id ${CHAIN_ID}${stack.localChain ? ', anvil' : ''})`,
    `  DynamoDB        ${stack.dynamoEndpoint}${stack.localDatabase ? ' (DynamoDB Local)' : ''}`,
    `  USDC            ${stack.tokens.USDC}`,
    `  USDbC           ${stack.tokens.USDbC}`,
    `  Treasury        ${stack.treasury}  (payTo of every challenge)`,
    `  Legacy (banned) ${stack.legacyTreasury}`,
    `  Confirmations   ${stack.minConfirmations}`,
    ...(stack.relayers && stack.relayers.length > 0
      ? stack.relayers.map(
          (r, i) =>
            `  x402 relayer    ${r.address}  (${formatEther(r.balance)} ETH; key ${i + 1} of ${stack.relayers!.length}; settles PAYMENT-SIGNATURE)`,
        )
      : ['  x402 relayer    none (PAYMENT-SIGNATURE is refused; set RELAYER_PRIVATE_KEYS)']),
    ...(stack.identity
      ? [
          `  ERC-8004        ${stack.identity.registry}  (Identity Registry)`,
          `  Test agent      #${stack.identity.testAgent.agentId} owned by ${stack.identity.testAgent.owner}  (GET /api/agent-identity?address=…&agent_id=${stack.identity.testAgent.agentId})`,
        ]
      : []),
    `  Card checkout   ${cardCheckoutLine(env, stack.baseUrl)}`,
    `  Data            ${dataDir ?? 'in memory (EPHEMERAL=1)'}`,
    `  Endpoints       ${endpointsFile}  (${found ? 'every tool below reads it' : `the tools read it with ${ENDPOINTS_FILE_ENV} set to it`}; removed on stop)`,
    `  Buyer tools     ${toolEnv}npm run buy -- <skill> | ${toolEnv}npm run verify-receipt -- @packs/<skill>.receipt.jws`,
    `  Operator tools  ${toolEnv}npm run reconcile | ${toolEnv}npm run export | ${toolEnv}npm run revenue | ${toolEnv}npm run unmatched | ${toolEnv}npm run refund -- <sale tx> [<refund tx>]`,
    '',
  ];
  if (stack.localChain) {
    lines.push(
      `  Test buyers: anvil accounts ${BUYER_ACCOUNT_INDEXES[0]}-${BUYER_ACCOUNT_INDEXES.at(-1)} of the mnemonic "test test ... junk",`,
      `  each with ${BUYER_TOKEN_BALANCE} USDC, ${BUYER_TOKEN_BALANCE} USDbC and ETH for gas. Account 1: ${buyer.address}`,
      '  To buy: npm run buy -- <id> (account 1 pays), or GET /api/pay?skill=<id> (402 challenge),',
      '  transfer the amount to payTo, then POST /api/pay with header X-PAYMENT: {"txHash":"0x…","skill":"<id>"}.',
      '',
    );
  }
  lines.push('  Ctrl-C stops everything.', '');
  console.log(lines.join('\n'));

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    // First, so no tool reaches for a stack going away.
    removeEndpoints(endpointsFile, process.pid);
    console.log(`\n  ${signal}: stopping DynamoDB Local, anvil and the API…`);
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Last resort once serving: one bad request must not stop the marketplace. Installed only now,
  // so a failed start-up still exits; the test suite's in-process stack has none of this.
  const report = (what: string) => (err: unknown) => {
    if (err instanceof AppError) console.error(`  ${what}: ${err.code}: ${err.message}`);
    else console.error(`  ${what} (still serving): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  };
  process.on('unhandledRejection', report('unhandled rejection'));
  process.on('uncaughtException', report('uncaught exception'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (e) {
  if (e instanceof StackStartError) {
    console.error(`\n  Cannot start: ${e.message}\n`);
    process.exit(1);
  }
  throw e;
}
