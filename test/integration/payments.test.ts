/**
 * The money path on anvil through the local server, one branch per test. Buyer accounts
 * 2–5 belong to this file so its transactions never race another file's nonces.
 */
import { randomBytes } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { PaymentRequiredV2Schema } from '@x402/core/schemas';
import { chainTools } from '../support/chain';
import { testAccount } from '../../local/anvil';
import { ESCROW_OPERATOR_INDEX } from '../../local/escrow';
import { signInWithXHeader } from '../../local/sign-in-with-x';

const base = inject('baseUrl');
const USDC = inject('usdc') as Address;
const USDBC = inject('usdbc') as Address;
const TREASURY = inject('treasury') as Address;
const LEGACY = inject('legacyTreasury') as Address;
const chain = chainTools(inject('rpcUrl'));

const BUYER = 2;
const CANARY = 'agent-x402-first-buy';
const CANARY_PRICE = 5000n;
const FEATURED_PRICE = 99000n;

async function call(method: 'GET' | 'POST', path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  expect(res.headers.get('content-type'), `${method} ${path}`).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}
const pay = (txHash: string, skill: string, headers: Record<string, string> = {}) =>
  call('POST', '/api/pay', { headers: { 'x-payment': JSON.stringify({ txHash, skill }), ...headers } });
const proofRows = async (skill: string) => (await call('GET', `/api/proof?skill=${skill}&limit=100`)).body;
/** The ledger's rows for one transfer: other files buy the same skill on the same stack meanwhile, so counts are per transfer. */
const rowsOf = async (skill: string, tx: string) =>
  ((await proofRows(skill)).recent_unlocks as { txHash: string }[]).filter((r) => r.txHash === tx.toLowerCase());

describe('GET /api/pay', () => {
  it('answers 402 with the challenge at top level and in accepts[0], and base64 in both headers', async () => {
    const { status, body, headers } = await call('GET', `/api/pay?skill=${CANARY}`);
    expect(status).toBe(402);
    expect(body).toMatchObject({
      ok: false,
      error_code: 'PAYMENT_REQUIRED',
      x402Version: 1,
      maxAmountRequired: '5000',
      amount: '5000',
      payTo: TREASURY,
      network: 'base',
      network_caip2: 'eip155:8453',
      asset: 'USDC',
      assetContract: USDC,
      skill: CANARY,
      skill_id: CANARY,
      sample: `${base}/skills/${CANARY}/sample.md`,
      outline: `${base}/skills/${CANARY}/outline.json`,
      resource: `${base}/api/pay?skill=${CANARY}`,
      maxTimeoutSeconds: 60,
    });
    expect(body.accepts).toHaveLength(2);
    expect(body.accepts[0]).toMatchObject({ symbol: 'USDC', asset: USDC, assetContract: USDC, maxAmountRequired: '5000', payTo: TREASURY });
    expect(body.accepts[1]).toMatchObject({
      symbol: 'USDbC',
      asset: USDBC,
      assetContract: USDBC,
      maxAmountRequired: '5000',
      payTo: TREASURY,
    });
    expect(JSON.parse(Buffer.from(headers.get('x-payment-required')!, 'base64').toString('utf8'))).toEqual(body);
    expect(body.accepts[0].extra).toMatchObject({ name: 'USD Coin', version: '2' });
    // PAYMENT-REQUIRED is x402 v2 (what a stock client reads): the same price, receiver and assets.
    const v2 = JSON.parse(Buffer.from(headers.get('payment-required')!, 'base64').toString('utf8'));
    expect(PaymentRequiredV2Schema.safeParse(v2).success).toBe(true);
    const { extensions, ...offer } = v2;
    expect(offer).toEqual({
      x402Version: 2,
      resource: { url: `${base}/api/pay?skill=${CANARY}`, description: body.description, mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '5000',
          asset: USDC,
          payTo: TREASURY,
          maxTimeoutSeconds: 60,
          extra: { name: 'USD Coin', version: '2' },
        },
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '5000',
          asset: USDBC,
          payTo: TREASURY,
          maxTimeoutSeconds: 60,
          extra: { name: 'USD Base Coin', version: '1' },
        },
        {
          // x402 auth-capture (issue 53): the same price in USDC, held in the escrow until the pack is delivered.
          scheme: 'auth-capture',
          network: 'eip155:8453',
          amount: '5000',
          asset: USDC,
          payTo: TREASURY,
          maxTimeoutSeconds: 60,
          extra: {
            name: 'USD Coin',
            version: '2',
            authCaptureEscrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
            tokenCollector: '0x0E3dF9510de65469C4518D7843919c0b8C7A7757',
            captureAuthorizer: testAccount(ESCROW_OPERATOR_INDEX).address,
            captureDeadline: expect.any(Number),
            refundDeadline: expect.any(Number),
            feeRecipient: '0x0000000000000000000000000000000000000000',
            minFeeBps: 0,
            maxFeeBps: 0,
            paymentFlow: 'escrow',
            assetTransferMethod: 'eip3009',
          },
        },
      ],
    });
    // The deadlines are those of the challenge's minute: a capture window of escrowCaptureSeconds (3600) after it and the timeout, refunds 30 days more.
    const terms = offer.accepts[2].extra;
    const minute = Math.floor(Date.now() / 60_000) * 60;
    expect(terms.captureDeadline - 60 - 60 - 3600).toBeGreaterThanOrEqual(minute - 60);
    expect(terms.captureDeadline - 60 - 60 - 3600).toBeLessThanOrEqual(minute);
    expect(terms.refundDeadline - terms.captureDeadline).toBe(30 * 86_400);
    // x402's sign-in-with-x extension, for a wallet that already paid: bound to this host and resource, fresh per answer.
    const signIn = extensions['sign-in-with-x'];
    expect(signIn.info).toMatchObject({ domain: new URL(base).host, uri: `${base}/api/pay?skill=${CANARY}`, version: '1' });
    expect(signIn.supportedChains).toEqual([{ chainId: 'eip155:8453', type: 'eip191' }]);
    const again = JSON.parse(
      Buffer.from((await call('GET', `/api/pay?skill=${CANARY}`)).headers.get('payment-required')!, 'base64').toString('utf8'),
    );
    expect(again.extensions['sign-in-with-x'].info.nonce).not.toBe(signIn.info.nonce);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('access-control-expose-headers')).toMatch(/PAYMENT-REQUIRED/);
  });

  it('charges the nine featured skills 99000 and the rest their list price', async () => {
    expect((await call('GET', '/api/pay?skill=csv-cleaner')).body.maxAmountRequired).toBe('99000');
    const list = (await call('GET', '/api/catalog?q=stripe%20webhook&limit=1')).body.results[0];
    expect((await call('GET', `/api/pay?skill=${list.id}`)).body.maxAmountRequired).toBe(list.x402.amount);
  });

  it('400 SKILL_REQUIRED without a skill; 404 for an unknown one', async () => {
    expect((await call('GET', '/api/pay')).body).toMatchObject({ error_code: 'SKILL_REQUIRED' });
    const unknown = await call('GET', '/api/pay?skill=nope');
    expect(unknown.status).toBe(404);
  });
});

describe('POST /api/pay', () => {
  let usdcTx: Hex;
  let firstBody: any;

  beforeAll(async () => {
    usdcTx = await chain.transfer(BUYER, USDC, TREASURY, CANARY_PRICE);
  });

  it('unlocks the canary for a USDC transfer and records it on the proof ledger', async () => {
    const before = (await proofRows(CANARY)).confirmed;
    const { status, body, headers } = await pay(usdcTx, CANARY);
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
    const packs = (await call('GET', `/api/packs?skill=${CANARY}`)).body;
    expect(body.seal).toBe(packs.seal.value);
    expect(body.payment).toMatchObject({
      txHash: usdcTx.toLowerCase(),
      amount: '5000',
      asset: 'USDC',
      payer: chain.address(BUYER),
    });
    // At least the one required; other test files mine blocks on the shared chain meanwhile.
    expect(body.payment.confirmations).toBeGreaterThanOrEqual(1);
    expect(body.revenue_ledger).toMatchObject({ recorded: true, replayed: false });
    expect(body.license.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(Buffer.from(headers.get('x-payment-response')!, 'base64').toString())).toMatchObject({
      success: true,
      transaction: usdcTx.toLowerCase(),
    });
    // The count is folded from the ledger's stream, moments after the unlock; the row is listed at once.
    await vi.waitFor(async () => expect((await proofRows(CANARY)).confirmed).toBeGreaterThanOrEqual(before + 1), {
      timeout: 10_000,
      interval: 100,
    });
    const after = await proofRows(CANARY);
    expect(await rowsOf(CANARY, usdcTx)).toHaveLength(1);
    expect(after.recent_unlocks.find((r: any) => r.txHash === usdcTx.toLowerCase())).toMatchObject({
      skill: CANARY,
      amount: '5000',
      payer: chain.address(BUYER),
    });
    firstBody = body;
  });

  it('replays the same (txHash, skill) with the same pack and no new row', async () => {
    expect(await rowsOf(CANARY, usdcTx)).toHaveLength(1);
    const again = await pay(usdcTx, CANARY);
    expect(again.status).toBe(200);
    expect(again.body.sealed_pack).toEqual(firstBody.sealed_pack);
    expect(again.body.revenue_ledger).toMatchObject({ recorded: true, replayed: true });
    expect(await rowsOf(CANARY, usdcTx)).toHaveLength(1);
  });

  it('accepts the proof as a JSON body and as base64 X-PAYMENT too', async () => {
    expect((await call('POST', '/api/pay', { body: { txHash: usdcTx, skill: CANARY } })).status).toBe(200);
    const b64 = Buffer.from(JSON.stringify({ txHash: usdcTx, skill: CANARY })).toString('base64');
    expect((await call('POST', '/api/pay', { headers: { 'x-payment': b64 } })).status).toBe(200);
  });

  it('refuses the same transfer for another skill', async () => {
    const { status, body } = await pay(usdcTx, 'csv-cleaner');
    expect(status).toBe(402);
    expect(body).toMatchObject({ error_code: 'PAYMENT_VERIFICATION_FAILED', retry: false });
    expect(body.message).toMatch(/transfer already used for agent-x402-first-buy/i);
  });

  it('unlocks with USDbC', async () => {
    const tx = await chain.transfer(3, USDBC, TREASURY, FEATURED_PRICE);
    const { status, body } = await pay(tx, 'csv-cleaner');
    expect(status).toBe(200);
    expect(body.payment).toMatchObject({ asset: 'USDbC', asset_contract: USDBC, amount: '99000' });
  });

  it('accepts over-payment signed by the paying wallet and records what was paid; unsigned, it is no pack (issue 50, I5)', async () => {
    const tx = await chain.transfer(BUYER, USDC, TREASURY, 120_000n);
    // Whoever saw the transfer on chain could claim a plan's or a top-up's payment as a pack: not unsigned.
    const unsigned = await pay(tx, 'esp-outcome-judge');
    expect(unsigned.status, JSON.stringify(unsigned.body)).toBe(403);
    expect(unsigned.body).toMatchObject({ error_code: 'PAYER_PROOF_REQUIRED', details: { reason: 'payer_proof_required' } });
    const signIn = await signInWithXHeader({ account: testAccount(BUYER), baseUrl: base, skill: 'esp-outcome-judge', txHash: tx });
    const { status, body } = await pay(tx, 'esp-outcome-judge', { 'sign-in-with-x': signIn });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.payment).toMatchObject({ amount: '120000', price: '99000' });
  });

  it('40 concurrent POSTs of one transfer: one ledger row, identical packs', async () => {
    const tx = await chain.transfer(4, USDC, TREASURY, FEATURED_PRICE);
    const before = (await proofRows('esp-delivery-critic')).confirmed;
    const answers = await Promise.all(Array.from({ length: 40 }, () => pay(tx, 'esp-delivery-critic')));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body.sealed_pack))).size).toBe(1);
    expect(answers.filter((a) => a.body.revenue_ledger.replayed === false)).toHaveLength(1);
    // The row is listed at once; the count is folded from the ledger's stream moments later.
    expect((await proofRows('esp-delivery-critic')).recent_unlocks.filter((r: any) => r.txHash === tx.toLowerCase())).toHaveLength(1);
    await vi.waitFor(async () => expect((await proofRows('esp-delivery-critic')).confirmed).toBeGreaterThanOrEqual(before + 1), {
      timeout: 10_000,
      interval: 100,
    });
  });

  describe('refuses, with nothing stored', () => {
    const refused = async (tx: Hex, skill: string, message: RegExp, retry = false) => {
      const { status, body } = await pay(tx, skill);
      expect(status).toBe(402);
      expect(body).toMatchObject({ ok: false, error: 'payment_verification_failed', error_code: 'PAYMENT_VERIFICATION_FAILED', retry });
      expect(body.message).toMatch(message);
      expect(typeof body.tip).toBe('string');
      expect((await proofRows(skill)).recent_unlocks.some((r: any) => r.txHash === tx.toLowerCase())).toBe(false);
    };

    it('an underpaid transfer', async () =>
      refused(await chain.transfer(BUYER, USDC, TREASURY, CANARY_PRICE - 1n), CANARY, /costs 0\.005/));
    it('a transfer to another address', async () =>
      refused(await chain.transfer(BUYER, USDC, chain.address(6), CANARY_PRICE), CANARY, /another address/));
    it('a transfer to the legacy treasury, saying so', async () =>
      refused(await chain.transfer(BUYER, USDC, LEGACY, CANARY_PRICE), CANARY, /banned legacy treasury/));
    it('the native coin only', async () =>
      refused(await chain.sendEth(BUYER, TREASURY, '0.01'), CANARY, /native coin alone does not count/));
    it('a look-alike token named USDC', async () => {
      const fake = await chain.lookalike(5, 10n ** 12n);
      await refused(await chain.transfer(5, fake, TREASURY, CANARY_PRICE), CANARY, /not the configured USDC or USDbC/);
    });
    it('a reverted transfer', async () => refused(await chain.revertedTransfer(BUYER, USDC, TREASURY), CANARY, /reverted/));
    it('an unknown hash, with retry true', async () =>
      refused(`0x${randomBytes(32).toString('hex')}`, CANARY, /not found on Base \(chain 8453\)/, true));
  });

  describe('proof input', () => {
    it('402 PROOF_REQUIRED without proof; 400 for a malformed header or hash', async () => {
      expect((await call('POST', '/api/pay')).body.error_code).toBe('PROOF_REQUIRED');
      expect((await call('POST', '/api/pay')).status).toBe(402);
      const bad = await call('POST', '/api/pay', { headers: { 'x-payment': '{not json' } });
      expect([bad.status, bad.body.details.parameter]).toEqual([400, 'X-PAYMENT']);
      const short = await pay('0x1234', CANARY);
      expect([short.status, short.body.details.parameter]).toEqual([400, 'txHash']);
      const noSkill = await call('POST', '/api/pay', { headers: { 'x-payment': JSON.stringify({ txHash: `0x${'a'.repeat(64)}` }) } });
      expect([noSkill.status, noSkill.body.error_code]).toEqual([400, 'SKILL_REQUIRED']);
    });

    it('403 AP2_MANDATE_REJECTED for a mandate it cannot verify', async () => {
      const r = await pay(usdcTx, CANARY, { 'x-ap2-mandate': 'eyJhbGciOiJFUzI1NiJ9.e30.sig' });
      expect([r.status, r.body.error_code]).toEqual([403, 'AP2_MANDATE_REJECTED']);
    });
  });

  describe('license tokens', () => {
    it('re-redeem the pack with no chain lookup; a tampered or foreign token is 403, then the txHash path still works', async () => {
      const token = firstBody.license.token as string;
      const redeemed = await call('POST', '/api/pay', { headers: { 'x-license': token } });
      expect(redeemed.status).toBe(200);
      expect(redeemed.body.sealed_pack).toEqual(firstBody.sealed_pack);
      expect(redeemed.body.revenue_ledger.via).toBe('license');

      const [h, p, s] = token.split('.');
      const tampered = `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`;
      const foreign = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC14NDAyLWZpcnN0LWJ1eSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmUtc2ln';
      for (const bad of [tampered, foreign, 'garbage']) {
        const r = await call('POST', '/api/pay', { headers: { 'x-license': bad } });
        expect([r.status, r.body.error_code]).toEqual([403, 'INVALID_LICENSE']);
      }
      const otherSkill = await call('POST', '/api/pay', { headers: { 'x-license': token }, body: { skill: 'csv-cleaner' } });
      expect(otherSkill.status).toBe(403);
      expect((await pay(usdcTx, CANARY)).status).toBe(200);
    });
  });

  describe('POST /api/recover', () => {
    it('returns the pack for a recorded transfer, and verifies one that was never posted', async () => {
      const recorded = await call('POST', '/api/recover', { body: { txHash: usdcTx, skill: CANARY } });
      expect(recorded.status).toBe(200);
      expect(recorded.body.sealed_pack).toEqual(firstBody.sealed_pack);
      const fresh = await chain.transfer(3, USDC, TREASURY, FEATURED_PRICE);
      const recovered = await call('POST', '/api/recover', { body: { txHash: fresh, skill: 'ten-send' } });
      expect(recovered.status).toBe(200);
      expect(recovered.body.revenue_ledger.replayed).toBe(false);
    });
  });
});
