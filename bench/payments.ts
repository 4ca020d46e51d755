/**
 * Issue 4 figures, on loopback only and bounded: JSON-RPC HTTP requests per first unlock, per
 * replay and per license re-redeem, counted at a proxy between the marketplace and anvil (a
 * JSON-RPC batch is one HTTP request).
 * Usage: npx tsx bench/payments.ts [unlocks=20]
 */
import { createPublicClient, createWalletClient, erc20Abi, http, type Address } from 'viem';
import { ensureTestTokens, startAnvil, testAccount, TREASURY_ACCOUNT_INDEX } from '../local/anvil';
import { localChain } from '../local/local-chain';
import { startMarket, startRpcCounter } from './harness';

const unlocks = Number(process.argv[2] ?? '20');

const anvil = await startAnvil({ port: 0 });
const tokens = await ensureTestTokens(anvil.rpcUrl);
const rpc = await startRpcCounter(anvil.rpcUrl);
const proxyUrl = rpc.url;

const treasury = testAccount(TREASURY_ACCOUNT_INDEX).address;
const market = await startMarket({
  RPC_URLS: proxyUrl,
  USDC_ADDRESS: tokens.USDC,
  USDBC_ADDRESS: tokens.USDbC,
  TREASURY_ADDRESS: treasury,
});
const chain = localChain(anvil.rpcUrl);
const pub = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
const wallet = createWalletClient({ account: testAccount(1), chain, transport: http(anvil.rpcUrl) });

const post = async (headers: Record<string, string>) => {
  const res = await fetch(`${market.url}/api/pay`, { method: 'POST', headers });
  const body = (await res.json()) as { ok: boolean; license?: { token: string } };
  if (res.status !== 200) throw new Error(`unlock answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
};
const measure = async <T>(fn: () => Promise<T>) => {
  rpc.take();
  const out = await fn();
  const { requests, methods } = rpc.take();
  return { out, requests, methods };
};

const firstCounts: number[] = [];
const replayCounts: number[] = [];
const licenseCounts: number[] = [];
let coldMethods: Record<string, number> = {};
let coldRequests = 0;
let warmMethods: Record<string, number> = {};
try {
  for (let i = 0; i < unlocks; i++) {
    const hash = await wallet.writeContract({
      address: tokens.USDC as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [treasury, 5000n],
    });
    await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const proof = { 'x-payment': JSON.stringify({ txHash: hash, skill: 'agent-x402-first-buy' }) };
    const a = await measure(() => post(proof));
    if (i === 0) {
      coldMethods = a.methods;
      coldRequests = a.requests;
    } else {
      firstCounts.push(a.requests);
      warmMethods = a.methods;
    }
    const b = await measure(() => post(proof));
    replayCounts.push(b.requests);
    const c = await measure(() => post({ 'x-license': a.out.license!.token }));
    licenseCounts.push(c.requests);
  }

  const avg = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2);
  console.log('| measure | value |\n|---|---|');
  console.log(
    `| JSON-RPC HTTP requests, first unlock of a cold process | ${coldRequests} (methods: ${JSON.stringify(coldMethods)}; the chain id is checked once per provider per process) |`,
  );
  console.log(
    `| JSON-RPC HTTP requests per first unlock, warm (${firstCounts.length} unlocks) | ${avg(firstCounts)} (methods: ${JSON.stringify(warmMethods)}) |`,
  );
  console.log(`| JSON-RPC HTTP requests per replay of (txHash, skill) inside the ${128} s reorg window | ${avg(replayCounts)} |`);
  console.log(`| JSON-RPC HTTP requests per license re-redeem | ${avg(licenseCounts)} |`);
} finally {
  await market.stop();
  await rpc.stop();
  await anvil.stop();
}
