/**
 * Money-path branches that need another configuration: each runs `npm start`'s entry as a
 * child process. Children share the global DynamoDB Local (same ledger) and anvil unless the
 * test needs a chain of its own. Buyer accounts 6–7 belong to this file.
 */
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import type { Address, Hex } from 'viem';
import { ensureRelayer, ensureTestTokens, startAnvil, testAccount } from '../../local/anvil';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { chainTools } from '../support/chain';
import { killStarted, withStarted } from '../support/spawn-start';

const stopAfter: (() => Promise<void>)[] = [];
afterAll(async () => {
  killStarted();
  for (const stop of stopAfter) await stop();
});

const rpc = inject('rpcUrl');
const shared = {
  DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
  USDC_ADDRESS: inject('usdc'),
  USDBC_ADDRESS: inject('usdbc'),
  TREASURY_ADDRESS: inject('treasury'),
  LEGACY_TREASURY_ADDRESS: inject('legacyTreasury'),
  EPHEMERAL: '1',
};
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const DEAD_RPC = 'http://127.0.0.1:9';

const post = async (base: string, txHash: string, skill: string) => {
  const res = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-payment': JSON.stringify({ txHash, skill }) } });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
};
const rowsFor = async (base: string, skill: string, tx: string) =>
  ((await (await fetch(`${base}/api/proof?skill=${skill}&limit=100`)).json()) as any).recent_unlocks.filter(
    (r: any) => r.txHash === tx.toLowerCase(),
  );

describe('confirmations and providers', () => {
  it('answers too few confirmations with retry, re-verifies on 2/4/8/16 s and records it; a dead first provider is skipped', async () => {
    // A chain of its own that mines only when asked: the shared one makes a block every 2 s and
    // other files mine on it, so its confirmations would not hold still.
    const anvil = await startAnvil({ port: 0, blockTime: 0 });
    stopAfter.push(anvil.stop);
    await ensureTestTokens(anvil.rpcUrl);
    const chain = chainTools(anvil.rpcUrl);
    await withStarted({ ...shared, RPC_URLS: `${DEAD_RPC},${anvil.rpcUrl}`, MIN_CONFIRMATIONS: '2' }, async (s) => {
      const tx = await chain.transfer(6, USDC, TREASURY, 99000n);
      const early = await post(s.baseUrl, tx, 'market-x402-merchant-os');
      expect(early.status).toBe(402);
      expect(early.body).toMatchObject({
        error_code: 'PAYMENT_VERIFICATION_FAILED',
        retry: true,
        details: { reason: 'too_few_confirmations', confirmations: 1, required: 2, re_verification_scheduled: true },
      });
      expect(early.headers.get('retry-after')).toBe('2');
      expect(await rowsFor(s.baseUrl, 'market-x402-merchant-os', tx)).toHaveLength(0);

      await chain.mine(1);
      // The loop's first attempt is 2 s after scheduling; give it a little more.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await rowsFor(s.baseUrl, 'market-x402-merchant-os', tx)).toHaveLength(1);
      const later = await post(s.baseUrl, tx, 'market-x402-merchant-os');
      expect(later.status).toBe(200);
      expect(later.body.revenue_ledger.replayed).toBe(true); // recorded by the loop, not by this POST
    });
  });

  it('x402 v2 with too few confirmations: 402 settlement_pending, the loop claims it once deeper, the same header then gets the pack', async () => {
    // Mines only when asked, so the confirmations are the ones this test makes.
    const anvil = await startAnvil({ port: 0, blockTime: 0 });
    stopAfter.push(anvil.stop);
    await ensureTestTokens(anvil.rpcUrl);
    // A relayer key of its own (a pool of one): the shared stack's pool leases its keys in the same table.
    const relayer = await ensureRelayer(anvil.rpcUrl, 41);
    const chain = chainTools(anvil.rpcUrl);
    const buyer = testAccount(40);
    await chain.setTokenBalance(USDC, buyer.address, 10n ** 8n);
    const env = { ...shared, RPC_URLS: anvil.rpcUrl, MIN_CONFIRMATIONS: '2', RELAYER_PRIVATE_KEYS: relayer.privateKey };
    await withStarted(env, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=market-x402-merchant-os`;
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: buyer });
      const http402 = new x402HTTPClient(client);
      const challenge = await fetch(url);
      const payload = await http402.createPaymentPayload(http402.getPaymentRequiredResponse((n) => challenge.headers.get(n)));
      const header = http402.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!;

      const early = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const body = (await early.json()) as any;
      expect(early.status).toBe(402);
      expect(body).toMatchObject({ error_code: 'PAYMENT_VERIFICATION_FAILED', retry: true, details: { reason: 'settlement_pending' } });
      const settlement = JSON.parse(Buffer.from(early.headers.get('payment-response')!, 'base64').toString('utf8'));
      expect(settlement).toMatchObject({ success: false, errorReason: 'settlement_pending' });
      expect(await rowsFor(s.baseUrl, 'market-x402-merchant-os', settlement.transaction)).toHaveLength(0);

      await chain.mine(1);
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await rowsFor(s.baseUrl, 'market-x402-merchant-os', settlement.transaction)).toHaveLength(1);
      const later = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const laterBody = (await later.json()) as any;
      expect(later.status, JSON.stringify(laterBody)).toBe(200);
      expect(laterBody.revenue_ledger.replayed).toBe(true); // claimed by the loop, not by this request
      expect(laterBody.payment.txHash).toBe(settlement.transaction.toLowerCase());
    });
  });

  it('answers 503 INTERNAL_ERROR with retry when no provider answers, and stores nothing', async () => {
    const chain = chainTools(rpc);
    const tx = await chain.transfer(7, USDC, TREASURY, 99000n);
    await withStarted({ ...shared, RPC_URLS: DEAD_RPC }, async (s) => {
      const r = await post(s.baseUrl, tx, 'market-cold-start-catalog-bootstrapper');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ ok: false, error_code: 'INTERNAL_ERROR', retry: true });
      expect(await rowsFor(s.baseUrl, 'market-cold-start-catalog-bootstrapper', tx)).toHaveLength(0);
    });
  });

  it('answers 503 PAYMENTS_DISABLED when the operator switched payments off', async () => {
    await withStarted({ ...shared, RPC_URLS: rpc, PAYMENTS_ENABLED: 'false' }, async (s) => {
      const res = await fetch(`${s.baseUrl}/api/pay?skill=csv-cleaner`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as any).error_code).toBe('PAYMENTS_DISABLED');
      // Evaluation stays free.
      expect((await fetch(`${s.baseUrl}/skills/csv-cleaner/outline.json`)).status).toBe(200);
    });
  });
});

describe('reorganisation', () => {
  it('a reorg that drops the transfer makes a later POST fail, and the row leaves the ledger', async () => {
    // A chain of its own: reverting the shared chain would drop other tests' transfers.
    await withStarted({ EPHEMERAL: '1' }, async (s) => {
      const ownRpc = /RPC\s+(http:\/\/\S+)/.exec(s.output())![1]!;
      const chain = chainTools(ownRpc);
      // A fresh instance: the ledger is empty and says so.
      expect((await (await fetch(`${s.baseUrl}/api/proof`)).json()) as any).toMatchObject({ confirmed: 0, recent_unlocks: [] });
      const snapshot = await chain.test.snapshot();
      const tx: Hex = await chain.transfer(1, USDC, TREASURY, 5000n);
      expect((await post(s.baseUrl, tx, 'agent-x402-first-buy')).status).toBe(200);
      expect(await rowsFor(s.baseUrl, 'agent-x402-first-buy', tx)).toHaveLength(1);

      await chain.test.revert({ id: snapshot });
      await chain.mine(3);
      const after = await post(s.baseUrl, tx, 'agent-x402-first-buy');
      expect(after.status).toBe(402);
      expect(after.body).toMatchObject({ error_code: 'PAYMENT_VERIFICATION_FAILED', retry: false, details: { reason: 'reorged' } });
      expect(await rowsFor(s.baseUrl, 'agent-x402-first-buy', tx)).toHaveLength(0);
      // The count is folded from the ledger's stream: the reorg reaches it within moments.
      await vi.waitFor(async () => expect(((await (await fetch(`${s.baseUrl}/api/proof`)).json()) as any).confirmed).toBe(0), {
        timeout: 10_000,
        interval: 100,
      });
    });
  });
});
