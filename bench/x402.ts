/**
 * Issue 15's figures: a stock x402 v2 client (@x402/fetch with the exact EVM scheme, default
 * settings) buying the canary from the local marketplace (`npm start`'s command) on anvil, N
 * times with fresh buyers, and the JSON-RPC traffic of each settlement, counted at a proxy
 * between the marketplace and anvil (a JSON-RPC batch is one HTTP request). The first purchase
 * of a process is reported apart: it also checks each provider's chain id once.
 * Usage: npx tsx bench/x402.ts [purchases=20]
 */
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ensureRelayer, ensureTestTokens, startAnvil, testAccount, TREASURY_ACCOUNT_INDEX } from '../local/anvil';
import { chainTools } from '../test/support/chain';
import { percentile, startMarket, startRpcCounter } from './harness';

const purchases = Number(process.argv[2] ?? '20');
const SKILL = 'agent-x402-first-buy';

const anvil = await startAnvil({ port: 0 });
const tokens = await ensureTestTokens(anvil.rpcUrl);
const relayer = await ensureRelayer(anvil.rpcUrl);
const rpc = await startRpcCounter(anvil.rpcUrl);
const chain = chainTools(anvil.rpcUrl);
const market = await startMarket({
  RPC_URLS: rpc.url,
  USDC_ADDRESS: tokens.USDC,
  USDBC_ADDRESS: tokens.USDbC,
  TREASURY_ADDRESS: testAccount(TREASURY_ACCOUNT_INDEX).address,
  RELAYER_PRIVATE_KEYS: relayer.privateKey,
});

const calls: number[] = [];
const methodTotals = new Map<string, number>();
let cold: number | undefined;
try {
  for (let i = 0; i <= purchases; i++) {
    const account = testAccount(100 + i);
    await chain.setTokenBalance(tokens.USDC, account.address, 10n ** 9n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    rpc.take();
    const res = await wrapFetchWithPayment(fetch, client)(`${market.url}/api/pay?skill=${SKILL}`);
    const body = (await res.json()) as { sealed_pack?: unknown };
    const { requests, methods } = rpc.take();
    if (res.status !== 200 || !body.sealed_pack)
      throw new Error(`purchase ${i} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    if (i === 0) {
      cold = requests;
      continue;
    }
    calls.push(requests);
    for (const [m, n] of Object.entries(methods)) methodTotals.set(m, (methodTotals.get(m) ?? 0) + n);
  }
} finally {
  await market.stop();
  await rpc.stop();
  await anvil.stop();
}
calls.sort((a, b) => a - b);
const perSettlement = [...methodTotals].map(([m, n]) => `${m} ${(n / purchases).toFixed(1)}`).join(', ');
console.log(`| measure (${purchases} purchases after a first, fresh buyers, anvil) | value |
|---|---|
| JSON-RPC HTTP requests, first purchase of a fresh process | ${cold} |
| JSON-RPC HTTP requests per settlement, p50 (min–max) | ${percentile(calls, 50)} (${calls[0]}–${calls[calls.length - 1]}) |
| JSON-RPC methods per settlement (mean) | ${perSettlement} |`);
