/**
 * The x402 relayer against a payer who tries to make it pay for nothing (issue 31, finding 1):
 * a wallet holding the price once signs many EIP-3009 authorizations, presents them at once,
 * then moves its balance away with a transfer that tips more, so it is mined before the
 * relayer's (issue 50, I1–I3: at 1, 10 and 40 prices, the relayer's ETH against the attacker's).
 * Each case runs `npm start`'s entry on an anvil of its own with automine off and no block
 * interval, so the test decides what each block holds. Buyer accounts 41–48 belong to this file.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createWalletClient, erc20Abi, http, parseEther, parseGwei, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ensureRelayer, ensureTestTokens, startAnvil, testAccount, type AnvilHandle } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { killStarted, sharedStackEnv, withStarted } from '../support/spawn-start';
import { requestFrom } from '../support/source-address';
import { headEstimatingRpc } from '../support/head-estimating-rpc';

const stopAfter: (() => Promise<void>)[] = [];
afterAll(async () => {
  killStarted();
  for (const stop of stopAfter) await stop();
});

const shared = sharedStackEnv(inject);
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
/** A skill no other file buys with x402 v2. */
const SKILL = 'market-cold-start-catalog-bootstrapper';
const PRICE = 99000n;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An anvil of the test's own, and the provider the stack uses: a proxy that estimates gas against
 * the head, as Base's providers do (anvil alone would estimate against its pending block and refuse
 * every transfer after the first from one balance, hiding what Base does).
 */
async function ownChain(
  relayerIndex: number,
): Promise<{ anvil: AnvilHandle; relayer: { address: Address; privateKey: Hex }; provider: string }> {
  const anvil = await startAnvil({ port: 0, blockTime: 0 });
  stopAfter.push(anvil.stop);
  const proxy = await headEstimatingRpc(anvil.rpcUrl);
  stopAfter.push(proxy.close);
  await ensureTestTokens(anvil.rpcUrl);
  // A relayer key of its own (a pool of one) for each case: the stacks lease their keys in one shared
  // table, and a stack stopped right after a settlement leaves its key leased until the lease runs out.
  return { anvil, relayer: await ensureRelayer(anvil.rpcUrl, relayerIndex), provider: proxy.url };
}

/** `n` PAYMENT-SIGNATURE headers a stock x402 client makes for the skill's live challenge, each a fresh authorization. */
async function signedHeaders(url: string, account: LocalAccount, n: number): Promise<string[]> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  const http402 = new x402HTTPClient(client);
  const challenge = await fetch(url);
  const required = http402.getPaymentRequiredResponse((name) => challenge.headers.get(name));
  const headers: string[] = [];
  for (let i = 0; i < n; i++)
    headers.push(http402.encodePaymentSignatureHeader(await http402.createPaymentPayload(required))['PAYMENT-SIGNATURE']!);
  return headers;
}

/** The relayer's transactions in the mempool (automine off): the pending count above the mined one. */
async function pendingCount(chain: ReturnType<typeof chainTools>, relayer: Address): Promise<number> {
  const [pending, mined] = await Promise.all([
    chain.pub.getTransactionCount({ address: relayer, blockTag: 'pending' }),
    chain.pub.getTransactionCount({ address: relayer }),
  ]);
  return pending - mined;
}

/**
 * Waits until every request has been judged: each has either answered or has its transaction in
 * the pool (it waits for the receipt), and the pool held still for a second; at most 20 s.
 */
async function judged(chain: ReturnType<typeof chainTools>, relayer: Address, total: number, answered: () => number): Promise<number> {
  let pending = -1;
  for (let still = 0, waited = 0; still < 4 && waited < 20_000; waited += 250) {
    await sleep(250);
    const now = await pendingCount(chain, relayer);
    still = now === pending && now + answered() >= total ? still + 1 : 0;
    pending = now;
  }
  return pending;
}

describe('the relayer never pays for more than the payer can cover', () => {
  it('authorizations over a balance of 1, 10 and 40 prices, then the balance moved away by a higher tip, round after round: one relayed transaction per round, the relayer spends no more ETH than the attacker, and an honest new buyer is served after', async () => {
    const { anvil, relayer, provider } = await ownChain(40);
    const chain = chainTools(anvil.rpcUrl);
    const pub = chain.pub;
    // The attacker's wallets: each round's holds `prices` prices and moves them all away; a funder pays the next one's gas.
    const rounds = [1, 10, 40];
    const wallets = [41, 42, 43, 47].map((i) => testAccount(i));
    const funder = testAccount(44);
    await chain.setEthBalance(wallets[0]!.address, parseEther('0.01'));
    await chain.setEthBalance(funder.address, parseEther('1'));
    // The operator's settings as deployed: the revert budget at its default (I3: it is no off switch).
    const env = { ...shared, RPC_URLS: provider, RELAYER_PRIVATE_KEYS: relayer.privateKey, RELAYER_REVERT_BUDGET_ETH: '0.001' };
    await withStarted(env, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=${SKILL}`;
      const walletOf = (account: ReturnType<typeof testAccount>) =>
        createWalletClient({ account, chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
      const treasuryBefore = await pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [TREASURY] });
      const broadcasts: number[] = [];
      const answers: { status: number; reason: string | undefined }[] = [];
      let [relayerTotal, attackerTotal] = [0n, 0n];

      for (const [round, prices] of rounds.entries()) {
        const [holder, next] = [wallets[round]!, wallets[round + 1]!];
        await chain.setTokenBalance(USDC, holder.address, BigInt(prices) * PRICE);
        const relayerBefore = await pub.getBalance({ address: relayer.address });
        let attackerSpent = 0n;
        const headers = await signedHeaders(url, holder, prices);
        // Nothing is mined until the test says so: the relayer's transactions wait in the pool.
        await chain.test.setAutomine(false);
        let answered = 0;
        const results = Promise.all(
          headers.map(async (h) => {
            try {
              const res = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': h } });
              const body = (await res.json()) as any;
              return { status: res.status, reason: body?.details?.reason as string | undefined };
            } catch (e) {
              return { status: 0, reason: String(e) };
            } finally {
              answered++;
            }
          }),
        );
        broadcasts.push(await judged(chain, relayer.address, headers.length, () => answered));
        // The attack: the whole balance leaves for the next wallet first, outbidding the relayer's tip by 1 wei;
        // the funder gives the next wallet gas for its own round. Both are the attack's cost.
        const pool = ((await pub.request({ method: 'txpool_content' as never })) as any).pending as Record<string, Record<string, any>>;
        const mine = Object.entries(pool).find(([who]) => who.toLowerCase() === relayer.address.toLowerCase())?.[1] ?? {};
        const [pooled] = Object.values(mine);
        // Anvil orders its pool by fees: one wei more than the relayer on both is enough to be mined first.
        const fees = pooled
          ? { maxPriorityFeePerGas: BigInt(pooled.maxPriorityFeePerGas) + 1n, maxFeePerGas: BigInt(pooled.maxFeePerGas) + 1n }
          : { maxPriorityFeePerGas: parseGwei('1'), maxFeePerGas: parseGwei('3') };
        const moved = await walletOf(holder).writeContract({
          address: USDC,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [next.address, BigInt(prices) * PRICE],
          // Its own gas limit: estimating against the pending block would see the relayer's transfer first.
          gas: 100_000n,
          ...fees,
        });
        const funded = await walletOf(funder).sendTransaction({ to: next.address, value: parseEther('0.01'), ...fees });
        await chain.mine(1);
        await chain.test.setAutomine(true);
        answers.push(...(await results));
        for (const hash of [moved, funded]) {
          const r = await pub.getTransactionReceipt({ hash });
          expect(r.status).toBe('success');
          attackerSpent += r.gasUsed * r.effectiveGasPrice;
        }
        const relayerSpent = relayerBefore - (await pub.getBalance({ address: relayer.address }));
        console.log(
          `drain at ${prices} price(s): relayer ${relayerSpent} wei, attacker ${attackerSpent} wei: ${Number(relayerSpent) / Number(attackerSpent)}`,
        );
        // I2: the relayer loses no more than the attacker's own transactions cost, each round.
        expect(Number(relayerSpent) / Number(attackerSpent), `${prices} prices`).toBeLessThanOrEqual(1);
        relayerTotal += relayerSpent;
        attackerTotal += attackerSpent;
      }

      const treasuryAfter = await pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [TREASURY] });
      const reasons = [...new Set(answers.map((a) => `${a.status} ${a.reason}`))].sort();
      // I1: one relayed settlement in flight per payer, whatever its balance.
      expect(broadcasts, reasons.join()).toEqual([1, 1, 1]);
      expect(treasuryAfter - treasuryBefore).toBe(0n);
      // Nobody got a pack; every refusal is a 402 with its reason, never a 5xx.
      for (const r of reasons) expect(['402 settlement_pending', '402 transaction_failed', '402 earlier_payment_failed']).toContain(r);
      console.log(
        `drain, all rounds: relayer ${relayerTotal} wei, attacker ${attackerTotal} wei: ${Number(relayerTotal) / Number(attackerTotal)}`,
      );

      // The first wallet, funded again at once, is cooling down: nothing is broadcast for it.
      await chain.setTokenBalance(USDC, wallets[0]!.address, PRICE);
      const [again] = await signedHeaders(url, wallets[0]!, 1);
      const sentBefore = await pub.getTransactionCount({ address: relayer.address, blockTag: 'pending' });
      const res = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': again! } });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(402);
      expect(body).toMatchObject({ error_code: 'PAYMENT_VERIFICATION_FAILED', retry: false, details: { reason: 'payer_cooling_down' } });
      expect(await pub.getTransactionCount({ address: relayer.address, blockTag: 'pending' })).toBe(sentBefore);

      // I3: three reverts this hour are no off switch: a new, honest buyer is served at once.
      const honest = privateKeyToAccount(generatePrivateKey());
      await chain.setTokenBalance(USDC, honest.address, PRICE);
      const [paid] = await signedHeaders(url, honest, 1);
      const bought = await requestFrom('127.0.0.48', url, { headers: { 'PAYMENT-SIGNATURE': paid! } });
      expect(bought.status, bought.text).toBe(200);
      expect(bought.body.sealed_pack.files).toHaveProperty('SKILL.md');
    });
  }, 240_000);
});

describe('a relayed transfer belongs to its signer', () => {
  it("an observer who copies the relayer's pending call and has it mined first: the buyer gets the pack for that transfer, the observer gets nothing", async () => {
    const { anvil, relayer, provider } = await ownChain(43);
    const chain = chainTools(anvil.rpcUrl);
    const pub = chain.pub;
    const buyer = testAccount(45);
    const observer = testAccount(46);
    await chain.setTokenBalance(USDC, buyer.address, 10n * PRICE);
    await chain.setEthBalance(observer.address, parseEther('1'));
    const env = { ...shared, RPC_URLS: provider, RELAYER_PRIVATE_KEYS: relayer.privateKey };
    await withStarted(env, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=${SKILL}`;
      const [header] = await signedHeaders(url, buyer, 1);
      await chain.test.setAutomine(false);
      let answered = 0;
      const answer = fetch(url, { headers: { 'PAYMENT-SIGNATURE': header! } }).then(async (res) => {
        answered++;
        return { status: res.status, body: (await res.json()) as any };
      });
      expect(await judged(chain, relayer.address, 1, () => answered)).toBe(1);
      const pool = ((await pub.request({ method: 'txpool_content' as never })) as any).pending as Record<string, Record<string, any>>;
      const [pending] = Object.values(Object.entries(pool).find(([who]) => who.toLowerCase() === relayer.address.toLowerCase())![1]);
      // The same call, from the observer, outbidding the relayer.
      const copy = await createWalletClient({
        account: observer,
        chain: localChain(anvil.rpcUrl),
        transport: http(anvil.rpcUrl),
      }).sendTransaction({
        to: pending.to,
        data: pending.input,
        gas: 200_000n,
        maxPriorityFeePerGas: BigInt(pending.maxPriorityFeePerGas) + 1n,
        maxFeePerGas: BigInt(pending.maxFeePerGas) + 1n,
      });
      await chain.mine(1);
      await chain.test.setAutomine(true);
      expect((await pub.getTransactionReceipt({ hash: copy })).status).toBe('success');
      expect((await pub.getTransactionReceipt({ hash: pending.hash })).status).toBe('reverted');

      const { status, body } = await answer;
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.payment).toMatchObject({ txHash: copy.toLowerCase(), payer: buyer.address });
      // The observer (another address), holding the transfer's hash, gets nothing from it.
      const theirs = await requestFrom('127.0.0.2', `${s.baseUrl}/api/pay`, {
        method: 'POST',
        headers: { 'x-payment': JSON.stringify({ txHash: copy, skill: SKILL }) },
      });
      expect(theirs.status, theirs.text).toBe(403);
      const rows = ((await (await fetch(`${s.baseUrl}/api/proof?skill=${SKILL}&limit=100`)).json()) as any).recent_unlocks;
      expect(rows.filter((r: any) => r.txHash === copy.toLowerCase())).toEqual([expect.objectContaining({ payer: buyer.address })]);
    });
  }, 60_000);
});
