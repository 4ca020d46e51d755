/**
 * Issue 17's cost per 1,000 purchases, from what one purchase measurably uses on the local stack
 * (the same handlers, DynamoDB Local, anvil):
 * - API requests, their response bytes and the time each takes (what Lambda bills as duration);
 * - DynamoDB request units, counted at a proxy between the marketplace and DynamoDB Local: the units
 *   DynamoDB Local reports by DynamoDB's rules (1 KB a write unit, 4 KB a read unit, half for an
 *   eventually consistent read), and one write unit for a write whose condition failed;
 * - JSON-RPC requests, counted at a proxy in front of anvil;
 * - log bytes the functions print (Powertools JSON and the embedded-metric lines).
 * Three agent purchases: x402 v2 with the stock client (a signed authorization the relayer
 * settles), the same paid by escrow (x402 auth-capture: the operator's authorize, then its
 * capture once the pack is delivered; issue 53), and v1 (the buyer's own transfer, then its proof).
 * The chain's gas per sale is printed for the two signed flows (exact: one transfer; escrow:
 * authorize and capture). Prices are us-east-1 list prices,
 * named in PRICES; the figures are computed from them and the counts, nothing else.
 * anvil mines at once and answers in a millisecond; on Base the relayer's request waits for the
 * next block and every JSON-RPC request for a provider's round trip. A second duration line
 * adds those, BASE_BLOCK_MS (the chain's block time) and a round trip given on the command line.
 * The fixed monthly costs are counted from the synthesized template (alarms, secrets, keys, the
 * web ACL and its rules, the dashboard).
 * Usage: npx tsx bench/purchase-cost.ts [purchases=20] [rpcRoundTripMs=100]
 */
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { createPublicClient, http, parseEventLogs, type Address, type Hex } from 'viem';
import { AUTH_CAPTURE_ESCROW_ABI, ensureAuthCaptureEscrow, ensureEscrowOperator, LOCAL_AUTH_CAPTURE_ESCROW } from '../local/escrow';
import { ensureRelayer, ensureTestTokens, startAnvil, testAccount, TREASURY_ACCOUNT_INDEX } from '../local/anvil';
import { DEFAULT_MEMORY_MB } from '../lambdas/contract/infra';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { chainTools } from '../test/support/chain';
import { percentile, startDynamoProxy, startMarket, startRpcCounter, transferForChallenge } from './harness';

const purchases = Number(process.argv[2] ?? '20');
const rpcRoundTripMs = Number(process.argv[3] ?? '100');
/** Base produces a block every 2 seconds: the relayer's receipt waits for the next one. */
const BASE_BLOCK_MS = 2_000;
const SKILL = 'agent-x402-first-buy';

/** us-east-1 list prices (USD), from the services' public pricing pages. */
const PRICES = {
  lambdaGbSecondArm: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  httpApiRequest: 1.0 / 1e6,
  dynamoWru: 0.625 / 1e6,
  dynamoRru: 0.125 / 1e6,
  cloudFrontHttpsRequest: 0.01 / 1e4,
  cloudFrontGbOut: 0.085,
  wafRequest: 0.6 / 1e6,
  logsIngestGb: 0.5,
  // Fixed, per month.
  wafWebAcl: 5,
  wafRule: 1,
  alarm: 0.1,
  dashboard: 3,
  secret: 0.4,
  kmsKey: 1,
} as const;
/** The API functions' memory, as the stack gives it. */
const API_FUNCTION_GB = DEFAULT_MEMORY_MB / 1024;
/** What Lambda itself logs per invocation (START, END, REPORT lines), not printed locally. */
const PLATFORM_LOG_BYTES = 300;

// ---- DynamoDB units, counted at a proxy --------------------------------------------------------

interface DynamoTally {
  wru: number;
  rru: number;
  /** Billed calls DynamoDB Local answered without a consumed capacity: their units are missing from wru and rru. */
  unmetered: number;
  ops: Map<string, number>;
}
async function startDynamoCounter(target: string) {
  let t: DynamoTally = { wru: 0, rru: 0, unmetered: 0, ops: new Map() };
  const proxy = await startDynamoProxy(target, ({ op, input, status, output }) => {
    const key = `${op} ${String(input['TableName'] ?? '')}`.trim();
    t.ops.set(key, (t.ops.get(key) ?? 0) + 1);
    const parsed = output as { __type?: string; ConsumedCapacity?: { CapacityUnits?: number } };
    const write = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'].includes(op);
    if (status !== 200) {
      // A write whose condition fails still costs a unit (items here are under 1 KB).
      if (write && (parsed.__type ?? '').includes('ConditionalCheckFailed')) t.wru += 1;
    } else if (parsed.ConsumedCapacity?.CapacityUnits !== undefined) {
      if (write) t.wru += parsed.ConsumedCapacity.CapacityUnits;
      else t.rru += parsed.ConsumedCapacity.CapacityUnits;
    } else t.unmetered++;
  });
  return {
    ...proxy,
    take: (): DynamoTally => {
      const out = t;
      t = { wru: 0, rru: 0, unmetered: 0, ops: new Map() };
      return out;
    },
  };
}

// ---- the stack ---------------------------------------------------------------------------------

const anvil = await startAnvil({ port: 0 });
const tokens = await ensureTestTokens(anvil.rpcUrl);
const relayer = await ensureRelayer(anvil.rpcUrl);
await ensureAuthCaptureEscrow(anvil.rpcUrl);
const operator = await ensureEscrowOperator(anvil.rpcUrl);
const rpc = await startRpcCounter(anvil.rpcUrl);
const database = await startDynamoDbLocal({ port: 0 });
const dynamo = await startDynamoCounter(database.endpoint);
const chain = chainTools(anvil.rpcUrl);
const treasury = testAccount(TREASURY_ACCOUNT_INDEX).address;
const market = await startMarket({
  RPC_URLS: rpc.url,
  DYNAMODB_ENDPOINT: dynamo.url,
  USDC_ADDRESS: tokens.USDC,
  USDBC_ADDRESS: tokens.USDbC,
  TREASURY_ADDRESS: treasury,
  RELAYER_PRIVATE_KEYS: relayer.privateKey,
  ESCROW_OPERATOR_PRIVATE_KEY: operator.privateKey,
  // Print the embedded-metric lines too: in Lambda they are log bytes like any other.
  POWERTOOLS_METRICS_DISABLED: 'false',
});

interface Usage {
  requests: number;
  ms: number[];
  bytesOut: number;
  wru: number;
  rru: number;
  rpc: number;
  logBytes: number;
  ops: Map<string, number>;
}
const fresh = (): Usage => ({ requests: 0, ms: [], bytesOut: 0, wru: 0, rru: 0, rpc: 0, logBytes: 0, ops: new Map() });

/** The response headers' bytes on the wire (`name: value` and CRLF). */
function headerBytes(headers: Headers): number {
  let n = 0;
  headers.forEach((value, name) => (n += name.length + value.length + 4));
  return n;
}

/** fetch that records each API request's time and response size. */
const timedFetch =
  (u: Usage): typeof fetch =>
  async (input, init) => {
    const started = performance.now();
    const res = await fetch(input, init);
    const body = await res.arrayBuffer();
    u.ms.push(performance.now() - started);
    u.requests++;
    u.bytesOut += body.byteLength + headerBytes(res.headers);
    return new Response(body, { status: res.status, headers: res.headers });
  };

async function measure(label: string, buy: (i: number, f: typeof fetch) => Promise<void>): Promise<{ label: string; u: Usage }> {
  // One purchase first: a fresh process loads each chunk and checks each provider's chain id once.
  await buy(0, fetch);
  await dynamo.quiet(2_000);
  const u = fresh();
  dynamo.take();
  rpc.take();
  const logStart = market.output().length;
  for (let i = 1; i <= purchases; i++) await buy(i, timedFetch(u));
  // The figures' fold writes after the purchases, off their path: its units are the purchases' too.
  await dynamo.quiet(2_000);
  const d = dynamo.take();
  if (d.unmetered > 0) throw new Error(`${d.unmetered} DynamoDB calls came back without a consumed capacity: the units would be short`);
  u.wru = d.wru;
  u.rru = d.rru;
  u.ops = d.ops;
  u.rpc = rpc.take().requests;
  u.logBytes = Buffer.byteLength(market.output().slice(logStart));
  return { label, u };
}

const anvilClient = createPublicClient({ transport: http(anvil.rpcUrl) });
const relayerGas: bigint[] = [];
/** Per escrowed sale: the authorize's and the capture's gas. */
const escrowGas: { authorize: bigint; capture: bigint }[] = [];
let offset = 1000;
const results: { label: string; u: Usage; waitsForBlock: boolean }[] = [];
try {
  results.push({
    waitsForBlock: true,
    ...(await measure('x402 v2 (stock client, relayer settles)', async (i, f) => {
      const account = testAccount(offset + i);
      await chain.setTokenBalance(tokens.USDC, account.address, 10n ** 9n);
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: account });
      const res = await wrapFetchWithPayment(f, client)(`${market.url}/api/pay?skill=${SKILL}`);
      if (res.status !== 200) throw new Error(`v2 purchase answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      // The relayer's transaction (PAYMENT-RESPONSE): the gas it paid, in ETH on Base.
      const settled = JSON.parse(Buffer.from(res.headers.get('payment-response') ?? '', 'base64').toString()) as { transaction: Hex };
      if (i > 0) relayerGas.push((await anvilClient.getTransactionReceipt({ hash: settled.transaction })).gasUsed);
    })),
  });
  offset = 3000;
  results.push({
    // The authorize waits for its block, and so does the capture after it.
    waitsForBlock: true,
    ...(await measure('x402 auth-capture (stock client, escrow: authorize, deliver, capture)', async (i, f) => {
      const account = testAccount(offset + i);
      await chain.setTokenBalance(tokens.USDC, account.address, 10n ** 9n);
      const client = new x402Client().register('eip155:8453', new AuthCaptureEvmScheme(account));
      const res = await wrapFetchWithPayment(f, client)(`${market.url}/api/pay?skill=${SKILL}`);
      if (res.status !== 200) throw new Error(`escrow purchase answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      if (i === 0) return;
      // The operator's authorize (PAYMENT-RESPONSE), then its capture of the same payment.
      const settled = JSON.parse(Buffer.from(res.headers.get('payment-response') ?? '', 'base64').toString()) as { transaction: Hex };
      const authorize = await anvilClient.getTransactionReceipt({ hash: settled.transaction });
      const [authorized] = parseEventLogs({ abi: AUTH_CAPTURE_ESCROW_ABI, logs: authorize.logs, eventName: 'PaymentAuthorized' });
      const [captured] = await anvilClient.getContractEvents({
        address: LOCAL_AUTH_CAPTURE_ESCROW,
        abi: AUTH_CAPTURE_ESCROW_ABI,
        eventName: 'PaymentCaptured',
        args: { paymentInfoHash: (authorized!.args as { paymentInfoHash: Hex }).paymentInfoHash },
        fromBlock: authorize.blockNumber,
      });
      const capture = await anvilClient.getTransactionReceipt({ hash: captured!.transactionHash });
      escrowGas.push({ authorize: authorize.gasUsed, capture: capture.gasUsed });
    })),
  });
  offset = 2000;
  results.push({
    waitsForBlock: false,
    ...(await measure("v1 (buyer's transfer, then its proof)", async (i, f) => {
      const account = testAccount(offset + i);
      await chain.setTokenBalance(tokens.USDC, account.address, 10n ** 9n);
      await chain.setEthBalance(account.address, 10n ** 18n);
      const hash = await transferForChallenge({
        marketUrl: market.url,
        rpcUrl: anvil.rpcUrl,
        usdc: tokens.USDC as Address,
        treasury,
        account,
        skill: SKILL,
        fetch: f,
      });
      const res = await f(`${market.url}/api/pay`, {
        method: 'POST',
        headers: { 'x-payment': JSON.stringify({ txHash: hash, skill: SKILL }) },
      });
      if (res.status !== 200) throw new Error(`v1 purchase answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    })),
  });
} finally {
  await market.stop();
  await dynamo.stop();
  await database.stop();
  await rpc.stop();
  await anvil.stop();
}

// ---- per 1,000 purchases -------------------------------------------------------------------------

const per1000 = (x: number) => (x / purchases) * 1000;
const usd = (x: number) => `$${x.toFixed(x < 0.01 ? 4 : 3)}`;
for (const { label, u, waitsForBlock } of results) {
  const requests = per1000(u.requests);
  const gbSeconds = per1000(u.ms.reduce((a, b) => a + Math.ceil(b), 0) / 1000) * API_FUNCTION_GB;
  const onBaseMs = (waitsForBlock ? BASE_BLOCK_MS : 0) + (u.rpc / purchases) * rpcRoundTripMs;
  const onBaseGbSeconds = gbSeconds + (onBaseMs / 1000) * 1000 * API_FUNCTION_GB;
  const gbOut = per1000(u.bytesOut) / 1024 ** 3;
  const logGb = per1000(u.logBytes + u.requests * PLATFORM_LOG_BYTES) / 1024 ** 3;
  const lines: [string, string, number][] = [
    ['Lambda requests', `${requests.toFixed(0)} invocations`, requests * PRICES.lambdaRequest],
    [`Lambda duration (${DEFAULT_MEMORY_MB} MB, arm64)`, `${gbSeconds.toFixed(1)} GB-s`, gbSeconds * PRICES.lambdaGbSecondArm],
    ['API Gateway (HTTP API)', `${requests.toFixed(0)} requests`, requests * PRICES.httpApiRequest],
    ['DynamoDB writes (on-demand)', `${per1000(u.wru).toFixed(0)} WRU`, per1000(u.wru) * PRICES.dynamoWru],
    ['DynamoDB reads (on-demand)', `${per1000(u.rru).toFixed(0)} RRU`, per1000(u.rru) * PRICES.dynamoRru],
    ['CloudFront requests (HTTPS)', `${requests.toFixed(0)} requests`, requests * PRICES.cloudFrontHttpsRequest],
    ['CloudFront data out', `${(gbOut * 1024).toFixed(1)} MiB`, gbOut * PRICES.cloudFrontGbOut],
    ['WAF requests', `${requests.toFixed(0)} requests`, requests * PRICES.wafRequest],
    ['CloudWatch Logs ingestion', `${(logGb * 1024).toFixed(1)} MiB`, logGb * PRICES.logsIngestGb],
  ];
  const total = lines.reduce((n, [, , c]) => n + c, 0);
  const onBase = (onBaseGbSeconds - gbSeconds) * PRICES.lambdaGbSecondArm;
  const sorted = [...u.ms].sort((a, b) => a - b);
  console.log(`\n### ${label}: per 1,000 purchases (${purchases} measured after a first)\n`);
  console.log('| item | usage | cost |\n|---|---|---|');
  for (const [item, usage, cost] of lines) console.log(`| ${item} | ${usage} | ${usd(cost)} |`);
  console.log(`| **total** | | **${usd(total)}** |`);
  console.log(
    `| on Base: + ${(onBaseMs / 1000).toFixed(2)} s per purchase waiting (${waitsForBlock ? `a ${BASE_BLOCK_MS / 1000} s block, ` : ''}${(u.rpc / purchases).toFixed(1)} JSON-RPC requests × ${rpcRoundTripMs} ms) | + ${(onBaseGbSeconds - gbSeconds).toFixed(0)} GB-s | + ${usd(onBase)} → **${usd(total + onBase)}** |`,
  );
  console.log(
    `\nper purchase: ${(u.requests / purchases).toFixed(1)} API requests (p50 ${percentile(sorted, 50).toFixed(0)} ms, p90 ${percentile(sorted, 90).toFixed(0)} ms), ` +
      `${(u.wru / purchases).toFixed(1)} WRU, ${(u.rru / purchases).toFixed(1)} RRU, ${(u.rpc / purchases).toFixed(1)} JSON-RPC requests, ` +
      `${(u.bytesOut / purchases / 1024).toFixed(1)} KiB out, ${(u.logBytes / purchases / 1024).toFixed(1)} KiB of logs`,
  );
  if (label.includes('auth-capture') && escrowGas.length > 0) {
    const mean = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n) / BigInt(xs.length);
    const authorize = mean(escrowGas.map((g) => g.authorize));
    const capture = mean(escrowGas.map((g) => g.capture));
    console.log(`operator gas per escrowed sale: authorize ${authorize} + capture ${capture} = ${authorize + capture} gas`);
  } else if (waitsForBlock && relayerGas.length > 0)
    console.log(
      `relayer gas per settlement (paid in ETH on Base; ETH × the block's gas price): ${(relayerGas.reduce((a, b) => a + b, 0n) / BigInt(relayerGas.length)).toString()} gas`,
    );
  console.log(
    `DynamoDB operations per purchase: ${[...u.ops]
      .sort()
      .map(([op, n]) => `${op} ${(n / purchases).toFixed(1)}`)
      .join(', ')}`,
  );
}

// ---- fixed monthly costs, counted from the synthesized template ---------------------------------

const { App } = await import('aws-cdk-lib');
const { Template } = await import('aws-cdk-lib/assertions');
const { addMarketplace } = await import('../lib/marketplace-app');
// No bundling: only the resources are counted.
const app = new App({ context: { 'aws:cdk:bundling-stacks': [], treasury } });
const { marketplace, edge } = addMarketplace(app, { account: '111111111111', region: 'eu-west-1' });
const stacks = edge ? [marketplace, edge] : [marketplace];
const count = (type: string) => stacks.reduce((n, stack) => n + Object.keys(Template.fromStack(stack).findResources(type)).length, 0);
const webAclRules = stacks.reduce(
  (n, stack) =>
    n +
    Object.values(Template.fromStack(stack).findResources('AWS::WAFv2::WebACL')).reduce(
      (m, acl) => m + ((acl as { Properties: { Rules?: unknown[] } }).Properties.Rules?.length ?? 0),
      0,
    ),
  0,
);
const fixed: [string, number, number][] = [
  ['WAF web ACL', count('AWS::WAFv2::WebACL'), PRICES.wafWebAcl],
  ['WAF rules (a managed group counts as one)', webAclRules, PRICES.wafRule],
  ['CloudWatch alarms', count('AWS::CloudWatch::Alarm'), PRICES.alarm],
  ['CloudWatch dashboard', count('AWS::CloudWatch::Dashboard'), PRICES.dashboard],
  ['Secrets Manager secrets', count('AWS::SecretsManager::Secret'), PRICES.secret],
  ['KMS keys', count('AWS::KMS::Key'), PRICES.kmsKey],
];
console.log('\n### Fixed, per month (counted from the synthesized template)\n');
console.log('| item | count | cost |\n|---|---|---|');
for (const [item, n, price] of fixed) console.log(`| ${item} | ${n} | $${(n * price).toFixed(2)} |`);
console.log(`| **total** | | **$${fixed.reduce((s, [, n, p]) => s + n * p, 0).toFixed(2)}** |`);
