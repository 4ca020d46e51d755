/**
 * Issue 38's side-by-side figures: the marketplace's x402 v2 settlement beside the x402 reference
 * seller (bench/reference-seller.ts: @x402/express's `paymentMiddleware`, an `x402ResourceServer`
 * and a local `x402Facilitator` with @x402/evm's exact scheme, from the published packages), on
 * one anvil.
 * - Each seller runs in a process of its own (the marketplace is the whole local stack,
 *   bench/harness.ts `startMarket`), so its CPU time is read per process (/proc/<pid>/stat, user +
 *   system, the seller's node process only: the marketplace's DynamoDB Local is reported apart).
 * - Each reaches anvil through a JSON-RPC counting proxy of its own (a batch is one request).
 *   Counted for a seller: every request at its proxy while its rounds run. The marketplace's
 *   background work (the confirmation loop's finality check, 128 s after each settlement by
 *   default) lands in its rounds when it falls in them; what its proxy sees outside its rounds is
 *   reported apart.
 * - The buyer is the stock client (@x402/fetch's `wrapFetchWithPayment` with @x402/evm's exact
 *   scheme), a fresh wallet per purchase funded with test USDC by writing its balance.
 * - At each concurrency (1, then 8) the two sellers take turns, rounds of 10 purchases each
 *   (marketplace, reference, marketplace, ...), after a warm-up round each that is not
 *   counted. The reference gets viem's `nonceManager` on its facilitator account at concurrency 8
 *   (a fresh process), the stock set-up at 1. With `stock` as second argument, a last phase
 *   measures the stock reference at concurrency 8 alone (its nonce races).
 * - Per seller and concurrency: JSON-RPC requests per purchase tried, the paid request's p50 (the
 *   whole wrapped fetch: challenge, signature, paid request; successful purchases), purchases per
 *   second (successful purchases over the rounds' wall time), CPU per purchase tried, failed
 *   purchases (anything but a 200 with the resource, a throw, or 60 s without an answer).
 * Linux only for the CPU figures (/proc). Usage: [RPC_LATENCY_MS=0] npx tsx bench/x402-reference.ts [purchases=60] [stock]
 * (RPC_LATENCY_MS holds each JSON-RPC request at both proxies, a provider's round trip on Base.)
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ensureRelayers, ensureTestTokens, startAnvil, testAccount, TREASURY_ACCOUNT_INDEX } from '../local/anvil';
import { ensureEthUsdFeed } from '../local/price-feed';
import { chainTools } from '../test/support/chain';
import { SETTINGS } from '../lambdas/contract/settings';
import { startMarket, startRpcCounter, stopper, waitFor } from './harness';
import { emptyTally, figures, goals, ratio, table, type Figures, type Tally } from './side-by-side';

const purchases = Number(process.argv[2] ?? '60');
const withStock = process.argv[3] === 'stock';
/** RPC_LATENCY_MS: each JSON-RPC request to anvil is held this long at both sellers' proxies, as a real provider's round trip (default 0). */
const rpcLatencyMs = Number(process.env['RPC_LATENCY_MS'] ?? '0');
const ROUND = 10;
const SKILL = 'agent-x402-first-buy';
const PURCHASE_TIMEOUT_MS = 60_000;
const loadAtStart = loadavg()[0]!.toFixed(1);

// ---- CPU time of a process, from /proc ---------------------------------------------------------

let ticksPerSecond = 100;
try {
  ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
} catch {
  // Linux's usual value.
}
/** A process's own user + system CPU time, ms (0 once it is gone). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
  } catch {
    return 0;
  }
}
/** The processes whose parent is `pid`, and theirs. */
function descendants(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

// ---- The chain, the proxies, the sellers ---------------------------------------------------------

const anvil = await startAnvil({ port: 0 });
const chain = chainTools(anvil.rpcUrl);
const stops: (() => Promise<void>)[] = [anvil.stop];
const stopAll = async (): Promise<void> => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
};
process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));

try {
  // The marketplace's relayer pool as `npm start` has it (the relayerKeys setting's default).
  const [tokens, relayers] = await Promise.all([
    ensureTestTokens(anvil.rpcUrl),
    ensureRelayers(anvil.rpcUrl, Number(SETTINGS.relayerKeys.cloudDefault)),
    ensureEthUsdFeed(anvil.rpcUrl),
  ]);
  const treasury = testAccount(TREASURY_ACCOUNT_INDEX).address;
  const projectRpc = await startRpcCounter(anvil.rpcUrl, { delayMs: rpcLatencyMs });
  const referenceRpc = await startRpcCounter(anvil.rpcUrl, { delayMs: rpcLatencyMs });
  stops.push(projectRpc.stop, referenceRpc.stop);

  const market = await startMarket({
    RPC_URLS: projectRpc.url,
    USDC_ADDRESS: tokens.USDC,
    USDBC_ADDRESS: tokens.USDbC,
    TREASURY_ADDRESS: treasury,
    RELAYER_PRIVATE_KEYS: relayers.map((r) => r.privateKey).join(','),
  });
  stops.push(market.stop);
  const projectUrl = `${market.url}/api/pay?skill=${SKILL}`;
  const dynamoPids = descendants(market.child.pid!);

  // The reference sells for the marketplace's own price and asset, to the same treasury.
  const challenge = await fetch(projectUrl);
  const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString()) as {
    accepts: { scheme: string; asset: string; amount: string; payTo: string; extra?: { name?: string; version?: string } }[];
  };
  const offer = required.accepts.find((a) => a.scheme === 'exact' && a.asset.toLowerCase() === tokens.USDC.toLowerCase());
  if (!offer?.extra?.name || !offer.extra.version) throw new Error(`no exact USDC offer in ${JSON.stringify(required)}`);
  const facilitatorKey = generatePrivateKey();
  await chain.setEthBalance(privateKeyToAccount(facilitatorKey).address, parseEther('100'));

  const startReference = async (withNonceManager: boolean): Promise<{ url: string; pid: number; stop: () => Promise<void> }> => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./reference-seller.ts', import.meta.url))], {
      env: {
        ...process.env,
        RPC_URL: referenceRpc.url,
        PAY_TO: treasury,
        ASSET: offer.asset,
        AMOUNT: offer.amount,
        ASSET_NAME: offer.extra!.name!,
        ASSET_VERSION: offer.extra!.version!,
        FACILITATOR_KEY: facilitatorKey,
        NONCE_MANAGER: withNonceManager ? '1' : '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stop = stopper(child, 'SIGINT');
    stops.push(stop);
    const url = await waitFor(child, /listening on (http:\/\/\S+)/);
    // Keep draining what it prints (settlement errors) so it never blocks on a full pipe.
    child.stdout?.resume();
    child.stderr?.resume();
    return { url: `${url}/resource`, pid: child.pid!, stop };
  };

  // ---- Purchases -----------------------------------------------------------------------------------

  interface Seller {
    name: 'project' | 'reference';
    url: string;
    pid: number;
    rpc: Awaited<ReturnType<typeof startRpcCounter>>;
    delivered: (status: number, body: string) => boolean;
  }
  const project: Seller = {
    name: 'project',
    url: projectUrl,
    pid: market.child.pid!,
    rpc: projectRpc,
    delivered: (status, body) => status === 200 && body.includes('"sealed_pack"'),
  };
  const referenceOf = (r: { url: string; pid: number }): Seller => ({
    name: 'reference',
    url: r.url,
    pid: r.pid,
    rpc: referenceRpc,
    delivered: (status, body) => status === 200 && body.includes('"delivered":true'),
  });

  /** Fresh buyers holding enough test USDC, made before a round starts. */
  const buyers = async (n: number): Promise<PrivateKeyAccount[]> =>
    Promise.all(Array.from({ length: n }, () => chain.freshWallet(tokens.USDC as Address, 10n ** 9n)));

  const failures: string[] = [];
  /** The marketplace's JSON-RPC requests outside its rounds, and its DynamoDB Local's CPU in them, in the phase under way. */
  let projectBackground = 0;
  let projectDynamoCpuMs = 0;
  async function buy(seller: Seller, account: PrivateKeyAccount): Promise<number | undefined> {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    const pay = wrapFetchWithPayment(fetch, client);
    const started = performance.now();
    try {
      const res = await pay(seller.url, { signal: AbortSignal.timeout(PURCHASE_TIMEOUT_MS) });
      const body = await res.text();
      const ms = performance.now() - started;
      if (seller.delivered(res.status, body)) return ms;
      failures.push(`${seller.name} ${res.status} ${body.slice(0, 200)}`);
    } catch (e) {
      failures.push(`${seller.name} ${(e as Error).message.slice(0, 200)}`);
    }
    return undefined;
  }

  /** One round of `n` purchases, `concurrency` at a time, added to `tally`. */
  async function round(seller: Seller, n: number, concurrency: number, tally: Tally | undefined): Promise<void> {
    const accounts = await buyers(n);
    const background = seller.rpc.take();
    if (seller.name === 'project') projectBackground += background.requests;
    const cpu0 = cpuMs(seller.pid);
    const dynamo0 = dynamoPids.reduce((s, p) => s + cpuMs(p), 0);
    const started = performance.now();
    const latencies: (number | undefined)[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, n) }, async () => {
        while (next < n) latencies.push(await buy(seller, accounts[next++]!));
      }),
    );
    const wall = performance.now() - started;
    const { requests, methods } = seller.rpc.take();
    if (!tally) return;
    tally.attempts += n;
    tally.failures += latencies.filter((l) => l === undefined).length;
    tally.latencies.push(...latencies.filter((l): l is number => l !== undefined));
    tally.wallMs += wall;
    tally.cpuMs += cpuMs(seller.pid) - cpu0;
    if (seller.name === 'project') projectDynamoCpuMs += dynamoPids.reduce((s, p) => s + cpuMs(p), 0) - dynamo0;
    tally.rpcRequests += requests;
    for (const [m, c] of Object.entries(methods)) tally.methods[m] = (tally.methods[m] ?? 0) + c;
  }
  interface Phase {
    concurrency: number;
    project: Tally;
    reference: Tally;
    projectBackground: number;
    projectDynamoCpuMs: number;
  }
  async function phase(concurrency: number, withNonceManager: boolean, sellers: 'both' | 'reference'): Promise<Phase> {
    const reference = await startReference(withNonceManager);
    const ref = referenceOf(reference);
    const result: Phase = { concurrency, project: emptyTally(), reference: emptyTally(), projectBackground: 0, projectDynamoCpuMs: 0 };
    projectBackground = 0;
    projectDynamoCpuMs = 0;
    // Warm-up, one round each, not counted: a process's first requests load modules and check
    // chain ids, and DynamoDB Local's JVM compiles its hot paths.
    if (sellers === 'both') await round(project, ROUND, concurrency, undefined);
    await round(ref, ROUND, concurrency, undefined);
    for (let done = 0; done < purchases; done += ROUND) {
      const n = Math.min(ROUND, purchases - done);
      if (sellers === 'both') await round(project, n, concurrency, result.project);
      await round(ref, n, concurrency, result.reference);
      process.stderr.write(`concurrency ${concurrency}: ${done + n}/${purchases}\n`);
    }
    result.projectBackground = projectBackground + project.rpc.take().requests;
    result.projectDynamoCpuMs = projectDynamoCpuMs;
    await reference.stop();
    return result;
  }

  const at1 = await phase(1, false, 'both');
  const at8 = await phase(8, true, 'both');
  const stock8 = withStock ? await phase(8, false, 'reference') : undefined;

  // ---- Report --------------------------------------------------------------------------------------

  const f = (p: Phase): { project: Figures; reference: Figures } => ({ project: figures(p.project), reference: figures(p.reference) });
  const methodsPer = (t: Tally): string =>
    Object.entries(t.methods)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([m, c]) => `\`${m}\` ${(c / t.attempts).toFixed(2)}`)
      .join(', ');
  console.log(
    `\n${purchases} purchases from each seller at each concurrency, rounds of ${ROUND}, ${new Date().toISOString()}, ` +
      `load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end (${cpus().length} cores), ` +
      `RPC round trip added at the proxies: ${rpcLatencyMs} ms\n`,
  );
  console.log(table(f(at1), f(at8)));
  console.log('');
  for (const p of [at1, at8]) {
    console.log(`concurrency ${p.concurrency}, JSON-RPC methods per purchase:`);
    console.log(`- project: ${methodsPer(p.project)}`);
    console.log(`- reference: ${methodsPer(p.reference)}`);
    console.log(
      `- project outside its rounds (its background, during the reference's rounds and warm-ups): ${p.projectBackground} requests; ` +
        `its DynamoDB Local's CPU in its rounds: ${(p.projectDynamoCpuMs / p.project.attempts).toFixed(1)} ms per purchase`,
    );
  }
  if (stock8) {
    const s = figures(stock8.reference);
    console.log(
      `\nstock reference (no nonce manager) at concurrency 8: ${s.failed}/${s.attempts} failed, p50 ${s.p50Ms.toFixed(0)} ms, ` +
        `${s.perSecond.toFixed(1)} purchases/s, ${s.rpcPerPurchase.toFixed(1)} JSON-RPC requests per purchase; ` +
        `the project's background meanwhile: ${stock8.projectBackground} JSON-RPC requests`,
    );
  }
  console.log('\nissue 38, goal 3:');
  for (const g of goals(f(at1), f(at8))) console.log(`- ${g.met ? 'met' : 'NOT met'}: ${g.goal}`);
  console.log(
    `  (p50 ratios ${ratio(f(at1).project.p50Ms, f(at1).reference.p50Ms).toFixed(2)} and ${ratio(f(at8).project.p50Ms, f(at8).reference.p50Ms).toFixed(2)})`,
  );
  const distinct = [...new Set(failures.map((m) => m.replace(/0x[0-9a-fA-F]+/g, '0x…')))];
  if (distinct.length) console.log(`\nfailures (distinct messages):\n${distinct.map((m) => `- ${m}`).join('\n')}`);
} finally {
  await stopAll();
}
