/**
 * Issue 11 figures, side by side in one run on loopback: the latency of a first unlock signed by
 * the payer (SIGN-IN-WITH-X) next to the same purchase under an AP2 mandate (X-AP2-MANDATE,
 * signed by the mandate's agent), interleaved so both see the same machine; then GET /api/access
 * and a signed meter draw.
 * Usage: npx tsx bench/access.ts [purchases=20]
 */
import { canonicalize } from 'json-canonicalize';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { testAccount } from '../local/anvil';
import { localChain } from '../local/local-chain';
import { signInWithXHeader } from '../local/sign-in-with-x';
import type { WalletActionMessages, WalletActionType } from '../lambdas/contract/wallet-actions';
import { signWalletAction } from '../local/wallet-action';
import { percentile, startMarket } from './harness';

const purchases = Number(process.argv[2] ?? '20');
const SKILL = 'agent-x402-first-buy';

const market = await startMarket();
// The banner is printed in one write after "Base URL"; give it a moment to arrive whole.
await new Promise((r) => setTimeout(r, 300));
const banner = market.output();
const field = (label: string): string => new RegExp(`${label}\\s+(\\S+)`).exec(banner)![1]!;
const rpcUrl = field('RPC');
const usdc = field('USDC') as Address;
const treasury = field('Treasury') as Address;
const chain = localChain(rpcUrl);
const pub = createPublicClient({ chain, transport: http(rpcUrl) });
const payer = testAccount(2);
const wallet = createWalletClient({ account: payer, chain, transport: http(rpcUrl) });
const agent = privateKeyToAccount(generatePrivateKey());

const transfer = async (amount: bigint) => {
  const hash = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [treasury, amount] });
  await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return hash;
};
const timed = async (url: string, init: RequestInit) => {
  const t = performance.now();
  const res = await fetch(url, init);
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - t, body };
};
/** The signed fields of a wallet action, as a client sends them beside the action's own. */
const signed = <T extends WalletActionType>(
  account: LocalAccount,
  type: T,
  action: Omit<WalletActionMessages[T], 'wallet' | 'audience' | 'nonce' | 'deadline'>,
) => signWalletAction(account, market.url, type, action);

try {
  const price = BigInt(
    ((await (await fetch(`${market.url}/api/pay?skill=${SKILL}`)).json()) as { maxAmountRequired: string }).maxAmountRequired,
  );
  const mandate = {
    vct: 'mandate.payment.open.1',
    wallet: payer.address,
    cnf: { address: agent.address },
    constraints: [
      { type: 'payment.budget', currency: 'USDC', max: 100 },
      { type: 'skill_market.scope', skills: [SKILL] },
    ],
  };
  const created = await timed(`${market.url}/api/mandates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'create', mandate, ...(await signed(payer, 'CreateMandate', { mandate: canonicalize(mandate) })) }),
  });
  const mandateId = (created.body['mandate'] as { id: string }).id;

  const plain: number[] = [];
  const mandated: number[] = [];
  const unlock = async (signer: LocalAccount, withMandate: boolean) => {
    const txHash = await transfer(price);
    const headers: Record<string, string> = {
      'x-payment': JSON.stringify({ txHash, skill: SKILL }),
      'sign-in-with-x': await signInWithXHeader({ account: signer, baseUrl: market.url, skill: SKILL, txHash }),
      ...(withMandate ? { 'x-ap2-mandate': mandateId } : {}),
    };
    return (await timed(`${market.url}/api/pay`, { method: 'POST', headers })).ms;
  };
  // One of each first, unmeasured: both paths warm (clients, caches, JIT).
  await unlock(payer, false);
  await unlock(agent, true);
  for (let i = 0; i < purchases; i++) {
    plain.push(await unlock(payer, false));
    mandated.push(await unlock(agent, true));
  }

  const access: number[] = [];
  for (let i = 0; i < purchases; i++) access.push((await timed(`${market.url}/api/access?wallet=${payer.address}&skill=${SKILL}`, {})).ms);

  const topUp = await transfer(10_000_000n);
  await timed(`${market.url}/api/meter`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'top_up', txHash: topUp }),
  });
  const catalog = (await (await fetch(`${market.url}/catalog.json`)).json()) as { skills: { id: string; x402: { amount: string } }[] };
  const drawable = catalog.skills.filter((s) => BigInt(s.x402.amount) <= 250_000n && s.id !== SKILL).slice(0, purchases);
  const draws: number[] = [];
  for (const s of drawable) {
    const body = {
      action: 'draw',
      skill: s.id,
      max_price: s.x402.amount,
      ...(await signed(payer, 'DrawMeter', { skill: s.id, maxPrice: BigInt(s.x402.amount) })),
    };
    draws.push(
      (
        await timed(`${market.url}/api/meter`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).ms,
    );
  }

  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { p50: percentile(s, 50), p99: percentile(s, 99) };
  };
  const p = stats(plain);
  const m = stats(mandated);
  console.log('| measure | p50 | p99 |\n|---|---|---|');
  console.log(`| first unlock, signed by the payer (${plain.length}) | ${p.p50.toFixed(1)} ms | ${p.p99.toFixed(1)} ms |`);
  console.log(
    `| first unlock under an AP2 mandate, signed by its agent (${mandated.length}) | ${m.p50.toFixed(1)} ms | ${m.p99.toFixed(1)} ms |`,
  );
  console.log(`| ratio mandate / plain (p50) | ${(m.p50 / p.p50).toFixed(2)} | |`);
  const a = stats(access);
  console.log(`| GET /api/access (${access.length}) | ${a.p50.toFixed(1)} ms | ${a.p99.toFixed(1)} ms |`);
  const d = stats(draws);
  console.log(`| POST /api/meter draw, EIP-712 signed (${draws.length}) | ${d.p50.toFixed(1)} ms | ${d.p99.toFixed(1)} ms |`);
} finally {
  await market.stop();
}
