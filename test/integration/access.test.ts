/**
 * Issue 11 through the local stack on DynamoDB Local and anvil: AP2 mandates, access decisions,
 * subscriptions and meters. Every wallet is fresh (a new key funded here), so what other test
 * files buy cannot change an answer; writes are signed with EIP-712 exactly as a client would.
 */
import { createWalletClient, erc20Abi, http, parseEther, type Address, type Hex, type LocalAccount } from 'viem';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { requestFrom } from '../support/source-address';
import { canonicalize } from 'json-canonicalize';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { TEST_STABLECOIN_ABI, testAccount } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { purchasesSignInHeader, signInWithXHeader } from '../../local/sign-in-with-x';
import type { WalletActionMessages, WalletActionType } from '../../lambdas/contract/wallet-actions';
import { signWalletAction } from '../../local/wallet-action';
import { links } from '../../lambdas/contract/links';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const usdc = inject('usdc') as Address;
const treasury = inject('treasury') as Address;
const chain = chainTools(rpcUrl);
const viemChain = localChain(rpcUrl);

const JUDGE = 'esp-outcome-judge';
const CRITIC = 'esp-delivery-critic';
const VERIFIER = 'esp-claim-verifier';
const CANARY = 'agent-x402-first-buy';

interface Res {
  status: number;
  body: any;
  text: string;
}

async function call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** A new wallet with ETH for gas and `usdcAtomic` test USDC (minted by the token's deployer, account 0). */
async function freshWallet(usdcAtomic = 0n): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.test.setBalance({ address: account.address, value: parseEther('1') });
  if (usdcAtomic > 0n) {
    const minter = createWalletClient({ account: testAccount(0), chain: viemChain, transport: http(rpcUrl) });
    const hash = await minter.writeContract({
      address: usdc,
      abi: TEST_STABLECOIN_ABI,
      functionName: 'mint',
      args: [account.address, usdcAtomic],
    });
    await chain.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }
  return account;
}

/** A USDC transfer to the treasury from a fresh wallet. */
async function pay(from: LocalAccount, amount: bigint): Promise<Hex> {
  const wallet = createWalletClient({ account: from, chain: viemChain, transport: http(rpcUrl) });
  const hash = await wallet.writeContract({ address: usdc, abi: TEST_STABLECOIN_ABI, functionName: 'transfer', args: [treasury, amount] });
  await chain.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return hash;
}

const usdcOf = (who: Address): Promise<bigint> =>
  chain.pub.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

const price = async (skill: string): Promise<bigint> => BigInt((await call('GET', `/api/pay?skill=${skill}`)).body.maxAmountRequired);

/** The signed fields of a wallet action, as a client sends them beside the action's own. */
const signed = <T extends WalletActionType>(
  account: LocalAccount,
  type: T,
  action: Omit<WalletActionMessages[T], 'wallet' | 'audience' | 'nonce' | 'deadline'>,
) => signWalletAction(account, base, type, action);

async function createMandate(owner: LocalAccount, mandate: Record<string, unknown>): Promise<Res> {
  return call('POST', '/api/mandates', {
    action: 'create',
    mandate,
    ...(await signed(owner, 'CreateMandate', { mandate: canonicalize(mandate) })),
  });
}

/** POST /api/pay for a transfer, signed (SIGN-IN-WITH-X) by `signer`, optionally under a mandate. */
async function buy(signer: LocalAccount | undefined, txHash: Hex, skill: string, mandate?: string): Promise<Res> {
  return call('POST', '/api/pay', undefined, {
    'x-payment': JSON.stringify({ txHash, skill }),
    ...(signer ? { 'sign-in-with-x': await signInWithXHeader({ account: signer, baseUrl: base, skill, txHash }) } : {}),
    ...(mandate ? { 'x-ap2-mandate': mandate } : {}),
  });
}

const proofTxs = async (skill: string): Promise<string[]> =>
  (await call('GET', `/api/proof?skill=${skill}&limit=100`)).body.recent_unlocks.map((r: { txHash: string }) => r.txHash);

describe('AP2 mandates', () => {
  let owner: LocalAccount;
  let agent: LocalAccount;
  let id: string;
  let mandate: Record<string, unknown>;
  beforeAll(async () => {
    owner = await freshWallet(2_000_000n);
    agent = privateKeyToAccount(generatePrivateKey());
    mandate = {
      vct: 'mandate.payment.open.1',
      wallet: owner.address,
      cnf: { address: agent.address },
      constraints: [
        { type: 'payment.amount_range', currency: 'USDC', max: '99000' },
        { type: 'payment.budget', currency: 'USDC', max: 0.2 },
        { type: 'payment.allowed_payees', allowed: [{ id: treasury, name: 'Skill Market' }] },
        { type: 'skill_market.scope', skills: [JUDGE, CRITIC, VERIFIER] },
      ],
      iat: Math.floor(Date.now() / 1000),
    };
    const created = await createMandate(owner, mandate);
    expect(created.status, created.text).toBe(200);
    id = created.body.mandate.id;
  }, 60_000);

  it('is created once by its wallet and listed with status and spend (address= is an alias)', async () => {
    expect(id).toMatch(/^mnd_[0-9a-f]{32}$/);
    const again = await createMandate(owner, mandate);
    expect(again.body).toMatchObject({ created: false, mandate: { id } });
    const listed = await call('GET', `/api/mandates?address=${owner.address}`);
    expect(listed.body.mandates).toHaveLength(1);
    expect(listed.body.mandates[0]).toMatchObject({ id, status: 'active', spent: { atomic: '0', occurrences: 0 } });
  });

  it('buys within it, spends the budget, then refuses the purchase over budget with 403 AP2_MANDATE_REJECTED and no unlock', async () => {
    const first = await buy(agent, await pay(owner, await price(JUDGE)), JUDGE, id);
    expect(first.status, first.text).toBe(200);
    expect(first.body.sealed_pack.files['SKILL.md']).toBeTruthy();
    const second = await buy(agent, await pay(owner, await price(CRITIC)), CRITIC, id);
    expect(second.status, second.text).toBe(200);
    const spent = (await call('GET', `/api/mandates?wallet=${owner.address}`)).body.mandates[0].spent;
    expect(spent).toMatchObject({ atomic: '198000', occurrences: 2, budget_left_atomic: '2000' });

    const overTx = await pay(owner, await price(VERIFIER));
    const over = await buy(agent, overTx, VERIFIER, id);
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ ok: false, error_code: 'AP2_MANDATE_REJECTED' });
    expect(over.body.message).toContain('payment.budget');
    expect(over.body.sealed_pack).toBeUndefined();
    expect(await proofTxs(VERIFIER)).not.toContain(overTx.toLowerCase());
  });

  it('refuses a purchase not signed by its agent, a transfer from another wallet, and a skill out of scope', async () => {
    const unsigned = await buy(undefined, await pay(owner, await price(JUDGE)), JUDGE, id);
    expect(unsigned.status).toBe(403);
    expect(unsigned.body.error_code).toBe('AP2_MANDATE_REJECTED');

    const other = await freshWallet(200_000n);
    const foreign = await buy(agent, await pay(other, await price(JUDGE)), JUDGE, id);
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain("not paid by the mandate's wallet");

    const out = await buy(agent, await pay(owner, await price(CANARY)), CANARY, id);
    expect(out.status).toBe(403);
    expect(out.body.message).toContain('scope');
  });

  it('refuses an unknown constraint (AP2) and a mandate for another wallet', async () => {
    const unknown = await createMandate(owner, { ...mandate, constraints: [{ type: 'payment.teleport', max: 1 }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('unknown constraint');
    const other = await freshWallet();
    const foreign = await call('POST', '/api/mandates', {
      action: 'create',
      mandate,
      ...(await signed(other, 'CreateMandate', { mandate: canonicalize(mandate) })),
    });
    expect(foreign.status).toBe(400);
  });

  it('cannot be revoked by another wallet; its own wallet revokes it, and a purchase under it is then refused', async () => {
    const other = await freshWallet();
    const stranger = await call('POST', '/api/mandates', {
      action: 'revoke',
      mandate_id: id,
      ...(await signed(other, 'RevokeMandate', { mandateId: id })),
    });
    expect(stranger.status).toBe(404);
    expect((await call('GET', `/api/mandates?wallet=${owner.address}`)).body.mandates[0].status).toBe('active');

    const forged = await call('POST', '/api/mandates', {
      action: 'revoke',
      mandate_id: id,
      ...(await signed(other, 'RevokeMandate', { mandateId: id })),
      wallet: owner.address,
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error_code).toBe('INVALID_WALLET_SIGNATURE');

    const body = { action: 'revoke', mandate_id: id, ...(await signed(owner, 'RevokeMandate', { mandateId: id })) };
    const revoked = await call('POST', '/api/mandates', body);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.mandate.status).toBe('revoked');
    const replayed = await call('POST', '/api/mandates', body);
    expect(replayed.status).toBe(403);

    const after = await buy(agent, await pay(owner, await price(JUDGE)), JUDGE, id);
    expect(after.status).toBe(403);
    expect(after.body.message).toContain('revoked');
  });

  it('20 parallel purchases under one mandate never overspend it', async () => {
    const wallet = await freshWallet(200_000n);
    const bot = privateKeyToAccount(generatePrivateKey());
    const cheap = await price(CANARY);
    const m = {
      vct: 'mandate.payment.open.1',
      wallet: wallet.address,
      cnf: { address: bot.address },
      constraints: [{ type: 'payment.budget', currency: 'USDC', max: Number(cheap * 10n) / 1e6 }],
    };
    const mid = (await createMandate(wallet, m)).body.mandate.id as string;
    const txs: Hex[] = [];
    for (let i = 0; i < 20; i++) txs.push(await pay(wallet, cheap));
    const results = await Promise.all(txs.map((tx) => buy(bot, tx, CANARY, mid)));
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBe(10);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.error_code === 'AP2_MANDATE_REJECTED')).toBe(true);
    const view = (await call('GET', `/api/mandates?wallet=${wallet.address}`)).body.mandates[0];
    expect(view.spent).toMatchObject({ atomic: (cheap * 10n).toString(), occurrences: 10 });
  }, 60_000);

  it('a signed authorization (x402 v2) under a mandate, on GET or POST, moves no money when refused; one it allows settles the first time, signed by the agent', async () => {
    const wallet = await freshWallet(1_000_000n);
    const bot = privateKeyToAccount(generatePrivateKey());
    const cost = await price(JUDGE);
    const m = {
      vct: 'mandate.payment.open.1',
      wallet: wallet.address,
      cnf: { address: bot.address },
      constraints: [
        { type: 'payment.budget', currency: 'USDC', max: Number(cost) / 1e6 },
        { type: 'skill_market.scope', skills: [JUDGE] },
      ],
    };
    const mid = (await createMandate(wallet, m)).body.mandate.id as string;
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: wallet });
    const http402 = new x402HTTPClient(client);
    const signedFor = async (skill: string): Promise<string> => {
      const challenge = await fetch(`${base}/api/pay?skill=${skill}`);
      const required = http402.getPaymentRequiredResponse((name) => challenge.headers.get(name));
      return http402.encodePaymentSignatureHeader(await http402.createPaymentPayload(required))['PAYMENT-SIGNATURE']!;
    };
    const balance = () => chain.pub.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.address] });
    /** What the agent sends for `skill`: a fresh signed authorization, the mandate, and its own sign-in. */
    const underMandate = async (skill: string) => ({
      'payment-signature': await signedFor(skill),
      'x-ap2-mandate': mid,
      'sign-in-with-x': await signInWithXHeader({ account: bot, baseUrl: base, skill }),
    });
    const before = await balance();

    // GET /api/pay (a stock client's retry of the challenge's URL) applies the mandate as POST does: outside its scope, refused.
    const onGet = await call('GET', `/api/pay?skill=${CRITIC}`, undefined, await underMandate(CRITIC));
    expect(onGet.status, onGet.text).toBe(403);
    expect(onGet.body.error_code).toBe('AP2_MANDATE_REJECTED');
    expect(await balance()).toBe(before);

    // Outside the mandate's scope: refused before the relayer sends anything (finding 4).
    const refused = await call('POST', `/api/pay?skill=${CRITIC}`, undefined, await underMandate(CRITIC));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error_code).toBe('AP2_MANDATE_REJECTED');
    expect(await balance()).toBe(before);
    expect((await call('GET', `/api/mandates?wallet=${wallet.address}`)).body.mandates[0].spent).toMatchObject({
      atomic: '0',
      occurrences: 0,
    });

    // In scope, signed by the agent on the skill's resource (no transaction exists yet): settled the first time (on GET here).
    const bought = await call('GET', `/api/pay?skill=${JUDGE}`, undefined, await underMandate(JUDGE));
    expect(bought.status, bought.text).toBe(200);
    expect(await balance()).toBe(before - cost);
    expect((await call('GET', `/api/mandates?wallet=${wallet.address}`)).body.mandates[0].spent).toMatchObject({
      atomic: cost.toString(),
      occurrences: 1,
    });

    // Buying it again at once (the budget is spent): nothing moves. The wallet owns the skill now, so the
    // new authorization is answered with the sale just made (I6: a payer's authorization for a resource
    // it settled moments ago is never sent) or refused by the mandate's budget; either way no transfer.
    const over = await call('POST', `/api/pay?skill=${JUDGE}`, undefined, await underMandate(JUDGE));
    if (over.status === 200) expect(over.body.payment.txHash).toBe(bought.body.payment.txHash);
    else expect(over.status, over.text).toBe(403);
    expect(await balance()).toBe(before - cost);
    expect((await call('GET', `/api/mandates?wallet=${wallet.address}`)).body.mandates[0].spent).toMatchObject({ occurrences: 1 });
  }, 60_000);

  it('answers bad input with the JSON failure body', async () => {
    for (const res of [
      await call('GET', '/api/mandates'),
      await call('GET', '/api/mandates?wallet=0x123'),
      await call('POST', '/api/mandates', '{"action":'),
      await call('POST', '/api/mandates', { action: 'explode' }),
      await call('POST', '/api/mandates', { action: 'revoke', mandate_id: 'mnd_x' }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body).toMatchObject({ ok: false });
    }
    const junk = await call('POST', '/api/pay', undefined, {
      'x-payment': JSON.stringify({ txHash: `0x${'1'.repeat(64)}`, skill: JUDGE }),
      'x-ap2-mandate': '{"nope":',
    });
    expect(junk.status).toBe(403);
    expect(junk.body.error_code).toBe('AP2_MANDATE_REJECTED');
  });
});

describe('one transfer, three uses at once', () => {
  it('raced as a pack, a meter top-up and a subscription in parallel: exactly one use wins and the others are refused with the JSON failure body', async () => {
    const plans = (await call('GET', '/api/subscribe')).body.plans as { id: string; amount_atomic: string }[];
    const plan = plans[0]!;
    const amount = [BigInt(plan.amount_atomic), 1_000_000n, await price(JUDGE)].reduce((a, b) => (a > b ? a : b));
    for (let round = 0; round < 3; round++) {
      const wallet = await freshWallet(amount);
      const tx = await pay(wallet, amount);
      const sign = (skill: string) => signInWithXHeader({ account: wallet, baseUrl: base, skill, txHash: tx });
      const results = await Promise.all([
        buy(wallet, tx, JUDGE),
        call('POST', '/api/meter', { action: 'top_up', txHash: tx }),
        call('POST', '/api/subscribe', { action: 'start', plan: plan.id, txHash: tx }, { 'sign-in-with-x': await sign(JUDGE) }),
      ]);
      const won = results.filter((r) => r.status === 200);
      expect(won, results.map((r) => `${r.status} ${r.body?.error_code}`).join()).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.body).toMatchObject({ ok: false });
      }
    }
  }, 60_000);
});

describe('access decisions', () => {
  it('denies a wallet with nothing and says what to do; grants it after a purchase; a second transfer says it was a repeat; 400 for a bad wallet or an unknown skill', async () => {
    const buyer = await freshWallet(100_000n);
    const before = await call('GET', `/api/access?wallet=${buyer.address}&skill=${CANARY}`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ granted: false, via: 'none' });
    expect(before.body.next.map((n: { action: string }) => n.action)).toEqual(['pay_once', 'subscribe', 'top_up_meter']);
    const tx = await pay(buyer, await price(CANARY));
    expect((await buy(buyer, tx, CANARY)).status).toBe(200);
    // Any case of the address finds the same rows (the ledger keeps payers EIP-55).
    const after = await call('GET', `/api/access?wallet=${buyer.address.toLowerCase()}&skill=${CANARY}`);
    expect(after.body).toMatchObject({ granted: true, via: 'one-time', source: 'transfer', txHash: tx.toLowerCase() });
    // The payer gets the pack again by signing, without a transfer.
    const again = await call(
      'POST',
      '/api/pay',
      { skill: CANARY },
      {
        'sign-in-with-x': await signInWithXHeader({ account: buyer, baseUrl: base, skill: CANARY, txHash: tx }),
      },
    );
    expect(again.status, again.text).toBe(200);
    expect(again.body.access).toMatchObject({ via: 'one-time' });

    // A second transfer for a skill the payer owns is its explicit choice (the transfer is made): the answer says so.
    const first = (await buy(buyer, tx, CANARY)).body;
    expect(first.repeat_purchase).toBeUndefined();
    const secondTx = await pay(buyer, await price(CANARY));
    const second = await buy(buyer, secondTx, CANARY);
    expect(second.status, second.text).toBe(200);
    expect(second.body.repeat_purchase).toMatchObject({ earlier_tx: tx.toLowerCase(), owned_since: after.body.since });
    expect(second.body.repeat_purchase.note).toMatch(/already owned .*by the payer's choice/);

    expect((await call('GET', `/api/access?wallet=nope&skill=${CANARY}`)).status).toBe(400);
    expect((await call('GET', `/api/access?wallet=${buyer.address}&skill=no-such-skill`)).status).toBe(400);
    expect((await call('GET', `/api/access?wallet=${buyer.address}`)).status).toBe(400);
  });
});

describe('subscriptions', () => {
  it("a plan's or a top-up's transfer raced by an observer as a cheaper pack: no pack, and the payer still gets what it paid for (issue 50, finding 6)", async () => {
    const plans = (await call('GET', '/api/subscribe')).body.plans as { id: string; amount_atomic: string }[];
    const plan = plans[0]!;
    const victim = await freshWallet(BigInt(plan.amount_atomic) + 2_000_000n);
    // A pack that costs less than the plan: what the observer would take the transfer for.
    const pack = 'csv-cleaner';
    expect(BigInt((await call('GET', `/api/pay?skill=${pack}`)).body.amount)).toBeLessThan(BigInt(plan.amount_atomic));
    for (const [amount, start] of [
      [BigInt(plan.amount_atomic), (tx: Hex) => call('POST', '/api/subscribe', { action: 'start', plan: plan.id, txHash: tx })],
      [2_000_000n, (tx: Hex) => call('POST', '/api/meter', { action: 'top_up', txHash: tx })],
    ] as const) {
      const tx = await pay(victim, amount);
      const raced = await requestFrom('127.0.0.5', `${base}/api/pay`, {
        method: 'POST',
        headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: pack }) },
      });
      expect(raced.status, raced.text).toBe(403);
      expect(raced.body).toMatchObject({ error_code: 'PAYER_PROOF_REQUIRED' });
      expect(raced.body.sealed_pack).toBeUndefined();
      const own = await start(tx);
      expect(own.status, own.text).toBe(200);
    }
  });

  it('start, access for a covered skill, renewal from the end, idempotent transfer, cancel by its wallet only', async () => {
    const plans = (await call('GET', '/api/subscribe')).body.plans as {
      id: string;
      amount_atomic: string;
      scope: { category?: string };
      challenge: { accepts: { payTo: string }[] };
    }[];
    const plan = plans.find((p) => p.scope.category === 'data')!;
    expect(plan.challenge.accepts[0]!.payTo).toBe(treasury);
    const sub = await freshWallet(BigInt(plan.amount_atomic) * 3n);

    const tx1 = await pay(sub, BigInt(plan.amount_atomic));
    const started = await call('POST', '/api/subscribe', { action: 'start', plan: plan.id, txHash: tx1 });
    expect(started.status, started.text).toBe(200);
    const end1 = Date.parse(started.body.subscription.period_end);
    expect(end1 - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const access = await call('GET', `/api/access?wallet=${sub.address}&skill=csv-cleaner`);
    expect(access.body).toMatchObject({ granted: true, via: 'subscription', plan: plan.id });
    const pack = await call(
      'POST',
      '/api/pay',
      { skill: 'csv-cleaner' },
      {
        'sign-in-with-x': await signInWithXHeader({ account: sub, baseUrl: base, skill: 'csv-cleaner', txHash: tx1 }),
      },
    );
    expect(pack.status, pack.text).toBe(200);
    expect(pack.body.access).toMatchObject({ via: 'subscription' });
    // A stock x402 v2 client signs a payment for a covered skill: the subscriber is not charged (issue 34).
    const stock = new x402Client();
    registerExactEvmScheme(stock, { signer: sub });
    const held = await usdcOf(sub.address);
    const viaX402 = await wrapFetchWithPayment(fetch, stock)(`${base}/api/pay?skill=csv-cleaner`);
    const viaBody = (await viaX402.json()) as any;
    expect(viaX402.status, JSON.stringify(viaBody)).toBe(200);
    expect(viaBody.access).toMatchObject({ granted: true, via: 'subscription', charged_atomic: '0' });
    // Its settlement response names the transfer that paid the subscription, never a new one (issue 51).
    const named = JSON.parse(Buffer.from(viaX402.headers.get('payment-response')!, 'base64').toString('utf8'));
    expect(named).toEqual({ success: true, transaction: tx1.toLowerCase(), network: 'eip155:8453', payer: sub.address.toLowerCase() });
    expect(await usdcOf(sub.address)).toBe(held);
    // The subscription's payment is on the wallet's purchases, with the plan.
    const mine = await call('GET', '/api/purchases', undefined, {
      'sign-in-with-x': await purchasesSignInHeader({ account: sub, baseUrl: base }),
    });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.purchases).toEqual([expect.objectContaining({ how: 'subscription', plan: plan.id, tx_hash: tx1.toLowerCase() })]);
    expect(mine.body.subscriptions).toEqual([expect.objectContaining({ plan: plan.id, status: 'active' })]);
    const uncovered = await call(
      'POST',
      '/api/pay',
      { skill: CANARY },
      {
        'sign-in-with-x': await signInWithXHeader({ account: sub, baseUrl: base, skill: CANARY, txHash: tx1 }),
      },
    );
    expect(uncovered.status).toBe(402);

    const tx2 = await pay(sub, BigInt(plan.amount_atomic));
    const renewed = await call('POST', '/api/subscribe', { action: 'renew', plan: plan.id, txHash: tx2 });
    expect(Date.parse(renewed.body.subscription.period_end) - end1).toBe(30 * 86_400_000);
    const twice = await call('POST', '/api/subscribe', { action: 'renew', plan: plan.id, txHash: tx2 });
    expect(twice.body).toMatchObject({ applied: false });
    expect(twice.body.subscription.period_end).toBe(renewed.body.subscription.period_end);
    const reused = await call('POST', '/api/subscribe', { action: 'start', plan: plans[0]!.id, txHash: tx2 });
    expect(reused.status).toBe(402);

    const other = await freshWallet();
    const stranger = await call('POST', '/api/subscribe', {
      action: 'cancel',
      plan: plan.id,
      ...(await signed(other, 'CancelSubscription', { plan: plan.id })),
    });
    expect(stranger.status).toBe(404);
    const cancelled = await call('POST', '/api/subscribe', {
      action: 'cancel',
      plan: plan.id,
      ...(await signed(sub, 'CancelSubscription', { plan: plan.id })),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.subscription).toMatchObject({ status: 'cancelled', active: true });
    expect((await call('GET', `/api/access?wallet=${sub.address}&skill=csv-cleaner`)).body).toMatchObject({
      granted: true,
      cancelled: true,
    });
    const tx3 = await pay(sub, BigInt(plan.amount_atomic));
    const refused = await call('POST', '/api/subscribe', { action: 'renew', plan: plan.id, txHash: tx3 });
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe('SUBSCRIPTION_CANCELLED');
    const restarted = await call('POST', '/api/subscribe', { action: 'start', plan: plan.id, txHash: tx3 });
    expect(restarted.status).toBe(200);
    expect(restarted.body.subscription.status).toBe('active');
  }, 60_000);

  it('answers bad input with the JSON failure body', async () => {
    for (const res of [
      await call('GET', '/api/subscribe?wallet=bad'),
      await call('POST', '/api/subscribe', { action: 'start', plan: 'nope', txHash: `0x${'2'.repeat(64)}` }),
      await call('POST', '/api/subscribe', { action: 'start', plan: 'all-access-30d', txHash: 'x' }),
      await call('POST', '/api/subscribe', []),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ ok: false, error_code: expect.any(String) });
    }
  });
});

describe('meters', () => {
  /** A draw of `skill` on `wallet`'s meter, signed by that wallet, at most `maxPrice`. */
  const drawFrom = async (wallet: LocalAccount, skill: string, maxPrice: bigint) =>
    call('POST', '/api/meter', {
      action: 'draw',
      skill,
      max_price: maxPrice.toString(),
      ...(await signed(wallet, 'DrawMeter', { skill, maxPrice })),
    });

  /** `n` skills that all cost the same (990000 atomic, the commonest price), from the catalog. */
  const samePriceSkills = async (n: number): Promise<string[]> => {
    const catalog = (await (await fetch(`${base}/catalog.json`)).json()) as { skills: { id: string; x402: { amount: string } }[] };
    return catalog.skills
      .filter((s) => s.x402.amount === '990000')
      .slice(0, n)
      .map((s) => s.id);
  };

  it('top-up, 20 parallel draws that stop exactly at zero, a draw past the balance refused, a skill drawn twice charged once', async () => {
    const skills = await samePriceSkills(21);
    expect(skills).toHaveLength(21);
    const each = await price(skills[0]!);
    const wallet = await freshWallet(each * 5n);
    const empty = await call('GET', `/api/meter?wallet=${wallet.address}`);
    expect(empty.body).toMatchObject({ meter: null, top_up: { minimum_atomic: '1000000' } });

    const tx = await pay(wallet, each * 5n);
    const topUp = await call('POST', '/api/meter', { action: 'top_up', txHash: tx });
    expect(topUp.status, topUp.text).toBe(200);
    expect(topUp.body.meter.balance_atomic).toBe((each * 5n).toString());
    expect((await call('POST', '/api/meter', { action: 'top_up', txHash: tx })).body).toMatchObject({ credited: false });

    const draw = (skill: string) => drawFrom(wallet, skill, each);
    const results = await Promise.all(skills.slice(0, 20).map(draw));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of results.filter((x) => x.status === 200)) {
      expect(r.body.access).toMatchObject({ granted: true, via: 'one-time', source: 'meter', charged_atomic: each.toString() });
    }
    expect(results.filter((r) => r.status !== 200).every((r) => r.body.error_code === 'METER_BALANCE_LOW')).toBe(true);
    const meter = (await call('GET', `/api/meter?wallet=${wallet.address}`)).body.meter;
    expect(meter.balance_atomic).toBe('0');
    expect(meter.skills_drawn).toHaveLength(5);

    const drawn = results.findIndex((r) => r.status === 200);
    const again = await draw(skills[drawn]!);
    expect(again.status).toBe(200);
    expect(again.body.access.charged_atomic).toBe('0');
    expect(again.body.access).toMatchObject({ via: 'one-time', source: 'meter' });
    const past = await draw(skills[20]!);
    expect(past.status).toBe(402);
  }, 60_000);

  it('a cap set by the wallet stops draws past it; nobody else can set it or draw on the meter', async () => {
    const skills = await samePriceSkills(3);
    const each = await price(skills[0]!);
    const wallet = await freshWallet(each * 3n);
    await call('POST', '/api/meter', { action: 'top_up', txHash: await pay(wallet, each * 3n) });
    const other = await freshWallet();
    const forged = await call('POST', '/api/meter', {
      action: 'set_cap',
      cap: '0',
      ...(await signed(other, 'SetMeterCap', { cap: 0n, capped: true })),
      wallet: wallet.address,
    });
    expect(forged.status).toBe(403);
    const cap = await call('POST', '/api/meter', {
      action: 'set_cap',
      cap: each.toString(),
      ...(await signed(wallet, 'SetMeterCap', { cap: each, capped: true })),
    });
    expect(cap.status, cap.text).toBe(200);
    const draw = (skill: string) => drawFrom(wallet, skill, each);
    // Another wallet cannot spend this meter: a draw naming it must be signed by it.
    const stolen = await call('POST', '/api/meter', {
      action: 'draw',
      skill: skills[0]!,
      max_price: each.toString(),
      ...(await signed(other, 'DrawMeter', { skill: skills[0]!, maxPrice: each })),
      wallet: wallet.address,
    });
    expect(stolen.status).toBe(403);
    expect(stolen.body.error_code).toBe('INVALID_WALLET_SIGNATURE');
    expect((await draw(skills[0]!)).status).toBe(200);
    const over = await draw(skills[1]!);
    expect(over.status).toBe(403);
    expect(over.body.error_code).toBe('METER_CAP_REACHED');
    expect((await call('GET', `/api/meter?wallet=${wallet.address}`)).body.meter).toMatchObject({
      balance_atomic: (each * 2n).toString(),
      spent_in_period_atomic: each.toString(),
    });
  }, 60_000);

  it('answers bad input with the JSON failure body', async () => {
    for (const res of [
      await call('GET', '/api/meter?wallet=0xzz'),
      await call('POST', '/api/meter', { action: 'draw', skill: CANARY }),
      await call('POST', '/api/meter', { action: 'top_up', txHash: '0x1' }),
      await call('POST', '/api/meter', 'not json'),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ ok: false });
    }
    expect(links(base).meter).toBe(`${base}/api/meter`);
  });
});

describe('agent identity', () => {
  it("reports a buyer's reputation exactly as its ledger rows say", async () => {
    const buyer = await freshWallet(10_000_000n);
    const fresh = (await call('GET', `/api/agent-identity?address=${buyer.address}`)).body.reputation;
    expect(fresh).toMatchObject({ confirmed_unlocks: 0, distinct_skills: 0, volume_atomic: '0', first_purchase: null, reorged_claims: 0 });
    const txs: Hex[] = [];
    for (const skill of [CANARY, JUDGE]) {
      const tx = await pay(buyer, await price(skill));
      expect((await buy(buyer, tx, skill)).status).toBe(200);
      txs.push(tx);
    }
    await call('POST', '/api/meter', { action: 'top_up', txHash: await pay(buyer, 1_000_000n) });
    const rows = (
      await Promise.all([CANARY, JUDGE].map(async (s) => (await call('GET', `/api/proof?skill=${s}&limit=100`)).body.recent_unlocks))
    )
      .flat()
      .filter((r: { payer: string }) => r.payer.toLowerCase() === buyer.address.toLowerCase());
    const unlocked = rows.reduce((sum: bigint, r: { amount: string }) => sum + BigInt(r.amount), 0n);
    // The reputation is folded from the ledger's stream: it follows the purchases within moments.
    const identity = await vi.waitFor(
      async () => {
        const answer = await call('GET', `/api/agent-identity?address=${buyer.address}`);
        expect(answer.status).toBe(200);
        expect(answer.body.reputation).toMatchObject({
          confirmed_unlocks: rows.length,
          distinct_skills: 2,
          meter_top_ups: 1,
          volume_atomic: (unlocked + 1_000_000n).toString(),
          reorged_claims: 0,
        });
        return answer;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(identity.body.erc8004).toMatchObject({ checked: false });
  });

  it('verifies the ERC-8004 test agent for its owner, not for another address, and answers 400 for bad input', async () => {
    const agentId = inject('testAgentId');
    const owner = inject('testAgentOwner');
    const ok = await call('GET', `/api/agent-identity?address=${owner}&agent_id=${agentId}`);
    expect(ok.status).toBe(200);
    expect(ok.body.erc8004).toMatchObject({
      checked: true,
      verified: true,
      agent_id: agentId,
      owner,
      registration: { name: 'Local test agent' },
    });
    const wrong = await call('GET', `/api/agent-identity?address=${treasury}&agent_id=${agentId}`);
    expect(wrong.body.erc8004).toMatchObject({ checked: true, verified: false, matched: null });
    const missing = await call('GET', `/api/agent-identity?address=${owner}&agent_id=999999`);
    expect(missing.body.erc8004).toMatchObject({ checked: true, verified: false });
    for (const res of [
      await call('GET', '/api/agent-identity'),
      await call('GET', '/api/agent-identity?address=0x12'),
      await call('GET', `/api/agent-identity?address=${owner}&agent_id=-1`),
      await call('GET', `/api/agent-identity?address=${owner}&agent_id=${'9'.repeat(80)}`),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST' });
    }
  });
});

describe('bad input on every access endpoint', () => {
  it('is answered with the JSON failure body, never HTML and never a 5xx', async () => {
    const junkBodies: unknown[] = [
      'not json',
      '[]',
      'null',
      { action: 'create' },
      { action: 'create', mandate: { vct: 'x' }, wallet: '0x0', nonce: 'short', deadline: -1, signature: '0x' },
      { action: 'draw', skill: 'x'.repeat(5000), max_price: '1e99', wallet: 1, nonce: [], deadline: {}, signature: null },
      { action: 'set_cap', cap: -5 },
      { action: 'start', plan: { $gt: '' }, txHash: 7 },
      {
        action: 'cancel',
        plan: 'all-access-30d',
        wallet: `0x${'1'.repeat(40)}`,
        nonce: 'abcdefgh12',
        deadline: 99999999999,
        signature: `0x${'1'.repeat(130)}`,
      },
      JSON.stringify({ action: 'create', mandate: JSON.parse('['.repeat(40) + ']'.repeat(40)) }),
    ];
    const paths = ['/api/mandates', '/api/subscribe', '/api/meter'];
    for (const path of paths) {
      for (const body of junkBodies) {
        const res = await call('POST', path, body);
        expect(res.status, `${path} ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${path} ${res.text.slice(0, 200)}`).toBeLessThan(500);
        expect(res.body, path).toMatchObject({ ok: false, error_code: expect.any(String), retry: expect.any(Boolean) });
      }
    }
    for (const query of ['', '?wallet=', '?wallet=%00', `?wallet=${'0x'.padEnd(500, 'f')}`, '?address[]=1', '?skill=../../etc']) {
      for (const path of ['/api/access', '/api/agent-identity', '/api/mandates']) {
        const res = await call('GET', `${path}${query}`);
        expect(res.status, `${path}${query}`).toBe(400);
        expect(res.text).not.toContain('<html');
        expect(res.body).toMatchObject({ ok: false });
      }
    }
  });
});
