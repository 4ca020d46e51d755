/**
 * Issue 34, goal 2, through the local stack (DynamoDB Local, anvil): GET /api/purchases lists what
 * a wallet bought, by a transfer (tx hash) and by x402 v2, each with a license that downloads the
 * pack, once the wallet signs in; a session then saves signing again; nobody else gets a license.
 */
import { createWalletClient, http, parseEther, type Address, type Hex, type LocalAccount } from 'viem';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { compactVerify, createLocalJWKSet } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_STABLECOIN_ABI } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { purchasesSignInHeader, signInWithXHeader } from '../../local/sign-in-with-x';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const usdc = inject('usdc') as Address;
const treasury = inject('treasury') as Address;
const chain = chainTools(rpcUrl);
const viemChain = localChain(rpcUrl);

const BY_TX = 'esp-claim-verifier';
const BY_V2 = 'agent-plan-critic';

/** The spec's failure body with this code. */
const expectFailureBody = (body: unknown, code: string) =>
  expect(body).toMatchObject({ ok: false, error_code: code, message: expect.any(String), retry: false, tip: expect.any(String) });

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { headers });
  const text = await res.text();
  expect(res.headers.get('content-type') ?? '').toContain('application/json');
  return { status: res.status, body: JSON.parse(text) };
}

/** A new wallet with ETH for gas and `usdcAtomic` test USDC, set in the token's storage (no account's nonce is used). */
const freshWallet = (usdcAtomic: bigint): Promise<LocalAccount> => chain.freshWallet(usdc, usdcAtomic, parseEther('1'));

const price = async (skill: string): Promise<bigint> => BigInt((await get(`/api/pay?skill=${skill}`)).body.maxAmountRequired);

describe('GET /api/purchases', () => {
  let buyer: LocalAccount;
  let txHash: Hex;
  let v2Tx: string;

  beforeAll(async () => {
    buyer = await freshWallet(10_000_000n);
    // A purchase by transfer and tx hash.
    const wallet = createWalletClient({ account: buyer, chain: viemChain, transport: http(rpcUrl) });
    txHash = await wallet.writeContract({
      address: usdc,
      abi: TEST_STABLECOIN_ABI,
      functionName: 'transfer',
      args: [treasury, await price(BY_TX)],
    });
    await chain.pub.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 });
    const unlock = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: {
        'x-payment': JSON.stringify({ txHash, skill: BY_TX }),
        'sign-in-with-x': await signInWithXHeader({ account: buyer, baseUrl: base, skill: BY_TX, txHash }),
      },
    });
    expect(unlock.status).toBe(200);
    // A purchase by a stock x402 v2 client.
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const v2 = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${BY_V2}`);
    const body = (await v2.json()) as any;
    expect(v2.status, JSON.stringify(body)).toBe(200);
    v2Tx = body.payment.txHash;
  });

  it('a signed-in wallet sees both purchases, newest first, each with a license that downloads its pack', async () => {
    const res = await get('/api/purchases', { 'sign-in-with-x': await purchasesSignInHeader({ account: buyer, baseUrl: base }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.wallet.toLowerCase()).toBe(buyer.address.toLowerCase());
    expect(res.body.purchases.map((p: any) => [p.skill, p.how, p.tx_hash])).toEqual([
      [BY_V2, 'one_time', v2Tx],
      [BY_TX, 'one_time', txHash.toLowerCase()],
    ]);
    const [first] = res.body.purchases;
    expect(first).toMatchObject({ asset: 'USDC', network: 'eip155:8453', amount_atomic: String(await price(BY_V2)) });
    expect(res.body.session).toMatchObject({ header: 'Authorization', scheme: 'Bearer', token: expect.any(String) });

    // Each receipt verifies against the published key and states its own sale.
    const keys = createLocalJWKSet((await get('/.well-known/jwks.json')).body);
    for (const p of res.body.purchases) {
      const { payload } = await compactVerify(p.receipt, keys, { algorithms: ['ES256'] });
      expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ sub: p.skill, tx: p.tx_hash, amount: p.amount_atomic });
    }

    // The license downloads the pack, with no payment.
    const pack = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': first.license.token } });
    const packBody = (await pack.json()) as any;
    expect(pack.status, JSON.stringify(packBody)).toBe(200);
    expect(packBody.skill_id).toBe(BY_V2);

    // The session lists again without a signature, page by page.
    const bearer = { authorization: `Bearer ${res.body.session.token}` };
    const page1 = await get('/api/purchases?limit=1', bearer);
    expect(page1.status).toBe(200);
    expect(page1.body.purchases.map((p: any) => p.skill)).toEqual([BY_V2]);
    expect(page1.body.session).toBeUndefined();
    const page2 = await get(`/api/purchases?limit=1&cursor=${page1.body.next}`, bearer);
    expect(page2.body.purchases.map((p: any) => p.skill)).toEqual([BY_TX]);
    expect(page2.body.next).toBeNull();
  });

  it('a signature is single use, made for this URL only, and proves nothing for another wallet', async () => {
    const header = await purchasesSignInHeader({ account: buyer, baseUrl: base });
    expect((await get('/api/purchases', { 'sign-in-with-x': header })).status).toBe(200);
    const replay = await get('/api/purchases', { 'sign-in-with-x': header });
    expect(replay.status).toBe(403);
    expectFailureBody(replay.body, 'INVALID_WALLET_SIGNATURE');

    // A sign-in made for a pack (its uri is the skill's challenge) does not open the list.
    const forPack = await get('/api/purchases', {
      'sign-in-with-x': await signInWithXHeader({ account: buyer, baseUrl: base, skill: BY_TX }),
    });
    expect(forPack.status).toBe(403);
    expect(forPack.body.message).toContain('uri must be');

    // Another wallet signs in and sees its own (empty) list: no license of the buyer's, no session, no nonce kept.
    const stranger = privateKeyToAccount(generatePrivateKey());
    const theirs = await get('/api/purchases', { 'sign-in-with-x': await purchasesSignInHeader({ account: stranger, baseUrl: base }) });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ purchases: [], subscriptions: [], next: null });
    expect(theirs.body.session).toBeUndefined();
  });

  it('without a proof, with a forged session or a foreign cursor: JSON failures, nothing listed', async () => {
    const none = await get('/api/purchases');
    expect(none.status).toBe(401);
    expectFailureBody(none.body, 'SIGN_IN_REQUIRED');

    const forged = await get('/api/purchases', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIweDAwIn0.c2ln' });
    expect(forged.status).toBe(401);
    expectFailureBody(forged.body, 'SESSION_EXPIRED');

    // A license is not a session, though the same key signs both.
    const signedIn = await get('/api/purchases', { 'sign-in-with-x': await purchasesSignInHeader({ account: buyer, baseUrl: base }) });
    const license = signedIn.body.purchases[0].license.token;
    const asSession = await get('/api/purchases', { authorization: `Bearer ${license}` });
    expect(asSession.status).toBe(401);
    // ... and a session is not a license.
    const asLicense = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': signedIn.body.session.token } });
    expect(asLicense.status).toBe(403);

    const badCursor = await get('/api/purchases?cursor=bm90LWEtY3Vyc29y', { authorization: `Bearer ${signedIn.body.session.token}` });
    expect(badCursor.status).toBe(400);
    expectFailureBody(badCursor.body, 'INVALID_REQUEST');
    const badLimit = await get('/api/purchases?limit=1000', { authorization: `Bearer ${signedIn.body.session.token}` });
    expect(badLimit.status).toBe(400);
  });

  it('a license opens its one purchase, without a signature', async () => {
    const signedIn = await get('/api/purchases', { 'sign-in-with-x': await purchasesSignInHeader({ account: buyer, baseUrl: base }) });
    const license = signedIn.body.purchases.find((p: any) => p.skill === BY_TX).license.token;
    const one = await get('/api/purchases', { 'x-license': license });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.purchases).toHaveLength(1);
    expect(one.body.purchases[0]).toMatchObject({ skill: BY_TX, how: 'one_time', tx_hash: txHash.toLowerCase() });
    const bad = await get('/api/purchases', { 'x-license': `${license}x` });
    expect(bad.status).toBe(403);
    expectFailureBody(bad.body, 'INVALID_LICENSE');
  });
});
