/**
 * Issue 10, findings 1, 2 and 4, as an attacker would try them: the chain and the proof ledger
 * are public, so nothing read there may get a pack. Each test runs against its own `npm start`
 * (own anvil and DynamoDB Local) so it can revert the chain and set the security settings; callers
 * are told apart by their loopback source address.
 */
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { signInWithXHeader, signInWithXProof } from '../../local/sign-in-with-x';
import { chainTools } from '../support/chain';
import { requestFrom } from '../support/source-address';
import { killStarted, runStart, type StartedProcess } from '../support/spawn-start';

const CANARY = 'agent-x402-first-buy';
const JUDGE = 'esp-outcome-judge';
const BUYER_IP = '127.0.0.1';
const ATTACKER_IP = '127.0.0.2';

interface Market {
  process: StartedProcess;
  base: string;
  chain: ReturnType<typeof chainTools>;
  usdc: Address;
  treasury: Address;
}

async function market(env: Record<string, string>): Promise<Market> {
  const process = await runStart({ EPHEMERAL: '1', ...env });
  const out = process.output();
  const field = (label: string): string => new RegExp(`${label}\\s+(\\S+)`).exec(out)![1]!;
  return {
    process,
    base: process.baseUrl,
    chain: chainTools(field('RPC')),
    usdc: field('USDC') as Address,
    treasury: field('Treasury') as Address,
  };
}

const post = (m: Market, from: string, txHash: string, skill: string, headers: Record<string, string> = {}) =>
  requestFrom(from, `${m.base}/api/pay`, { method: 'POST', headers: { 'x-payment': JSON.stringify({ txHash, skill }), ...headers } });

const price = async (m: Market, skill: string): Promise<bigint> =>
  BigInt(((await (await fetch(`${m.base}/api/pay?skill=${skill}`)).json()) as { maxAmountRequired: string }).maxAmountRequired);

afterAll(() => killStarted());

describe('a claimed transfer goes only to its buyer (default settings)', () => {
  let m: Market;
  let tx: Hex;
  let first: Awaited<ReturnType<typeof post>>;
  beforeAll(async () => {
    m = await market({ REORG_WINDOW_SECONDS: '3' });
    tx = await m.chain.transfer(1, m.usdc, m.treasury, await price(m, CANARY));
    first = await post(m, BUYER_IP, tx, CANARY);
  }, 60_000);
  afterAll(() => m?.process.interrupt());

  it('the buyer unlocks once, and a retry from the same address soon after gets the identical pack (a lost response)', async () => {
    expect(first.status).toBe(200);
    const again = await post(m, BUYER_IP, tx, CANARY);
    expect(again.status).toBe(200);
    expect(again.body.sealed_pack).toEqual(first.body.sealed_pack);
    expect(again.body.revenue_ledger.replayed).toBe(true);
  });

  it('a second caller sweeping every row of /api/proof gets 0 packs, and each refusal names no skill', async () => {
    const rows = ((await (await fetch(`${m.base}/api/proof?limit=100`)).json()) as { recent_unlocks: { txHash: string; skill: string }[] })
      .recent_unlocks;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const res = await post(m, ATTACKER_IP, row.txHash, row.skill);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ ok: false, error_code: 'BUYER_PROOF_REQUIRED' });
      expect(res.body.sealed_pack).toBeUndefined();
      expect(res.text).not.toContain(row.skill);
    }
  });

  it('the wrong-skill probe answers exactly like the right skill: no skill is named', async () => {
    const right = await post(m, ATTACKER_IP, tx, CANARY);
    const wrong = await post(m, ATTACKER_IP, tx, JUDGE);
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual(right.body);
    expect(wrong.text).not.toContain(CANARY);
  });

  it('from another address, the license token and a signature by the paying wallet both re-redeem', async () => {
    const byLicense = await requestFrom(ATTACKER_IP, `${m.base}/api/recover`, {
      method: 'POST',
      headers: { 'x-license': first.body.license.token },
    });
    expect(byLicense.status).toBe(200);
    expect(byLicense.body.sealed_pack).toEqual(first.body.sealed_pack);

    const header = await signInWithXHeader({ account: testAccount(1), baseUrl: m.base, skill: CANARY, txHash: tx });
    const bySignature = await post(m, ATTACKER_IP, tx, CANARY, { 'sign-in-with-x': header });
    expect(bySignature.status).toBe(200);
    expect(bySignature.body.sealed_pack).toEqual(first.body.sealed_pack);

    // A signature is single-use, and another wallet's signature proves nothing.
    const replayed = await post(m, ATTACKER_IP, tx, CANARY, { 'sign-in-with-x': header });
    expect(replayed.status).toBe(403);
    expect(replayed.body.error_code).toBe('INVALID_WALLET_SIGNATURE');
    const stranger = await signInWithXHeader({ account: testAccount(5), baseUrl: m.base, skill: CANARY, txHash: tx });
    expect((await post(m, ATTACKER_IP, tx, CANARY, { 'sign-in-with-x': stranger })).body.error_code).toBe('BUYER_PROOF_REQUIRED');
  });

  it("the same rule holds for the MCP unlock tool: refused from another address, served with the payer's signature", async () => {
    const call = async (args: Record<string, string>) => {
      const res = await requestFrom(ATTACKER_IP, `${m.base}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'unlock_skill', arguments: args } }),
      });
      return res.body.result as { isError?: boolean; structuredContent: any };
    };
    const refused = await call({ skill_id: CANARY, tx_hash: tx });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error_code).toBe('BUYER_PROOF_REQUIRED');
    const header = await signInWithXHeader({ account: testAccount(1), baseUrl: m.base, skill: CANARY, txHash: tx });
    const served = await call({ skill_id: CANARY, tx_hash: tx, sign_in_with_x: header });
    expect(served.isError).toBeFalsy();
    expect(served.structuredContent.sealed_pack).toEqual(first.body.sealed_pack);
  });

  it('a stale or misdirected signature is refused with the reason', async () => {
    const stale = await signInWithXHeader({
      account: testAccount(1),
      baseUrl: m.base,
      skill: CANARY,
      txHash: tx,
      issuedAt: new Date(Date.now() - 10 * 60_000),
    });
    const res = await post(m, ATTACKER_IP, tx, CANARY, { 'sign-in-with-x': stale });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/issuedAt is older/);
    const otherDomain = await signInWithXHeader({ account: testAccount(1), baseUrl: 'http://evil.example', skill: CANARY, txHash: tx });
    expect((await post(m, ATTACKER_IP, tx, CANARY, { 'sign-in-with-x': otherDomain })).body.message).toMatch(/domain must be/);
  });

  it('a transfer dropped after the reorg window is found by the finality check: it leaves the ledger and its license stops working', async () => {
    const snapshot = await m.chain.test.snapshot();
    const dropped = await m.chain.transfer(2, m.usdc, m.treasury, await price(m, JUDGE));
    const claimed = await post(m, BUYER_IP, dropped, JUDGE);
    expect(claimed.status).toBe(200);
    const block = Number(claimed.body.payment.block);
    // The reorg: the chain goes back before the transfer and grows past its block without it.
    await m.chain.test.revert({ id: snapshot });
    const head = Number(await m.chain.pub.getBlockNumber());
    await m.chain.mine(block - head + 2);

    const onLedger = async () =>
      ((await (await fetch(`${m.base}/api/proof?skill=${JUDGE}`)).json()) as { recent_unlocks: { txHash: string }[] }).recent_unlocks.some(
        (r) => r.txHash === dropped,
      );
    expect(await onLedger()).toBe(true);
    // Nobody replays it: the finality check runs by itself once the 3 s window has passed.
    const deadline = Date.now() + 15_000;
    while ((await onLedger()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await onLedger()).toBe(false);

    const license = await requestFrom(BUYER_IP, `${m.base}/api/pay`, {
      method: 'POST',
      headers: { 'x-license': claimed.body.license.token },
    });
    expect(license.status).toBe(403);
    expect(license.body.error_code).toBe('INVALID_LICENSE');
    expect(license.body.message).toMatch(/revoked/);
    const prove = (await (await fetch(`${m.base}/api/esp?skill=${JUDGE}&phase=prove&tx=${dropped}`)).json()) as { recorded: boolean };
    expect(prove.recorded).toBe(false);
  }, 30_000);
});

describe('REQUIRE_PAYER_PROOF=true', () => {
  let m: Market;
  beforeAll(async () => {
    m = await market({ REQUIRE_PAYER_PROOF: 'true' });
  }, 60_000);
  afterAll(() => m?.process.interrupt());

  it("refuses an observer's first claim, and a signature by another wallet; the payer's signed claim unlocks", async () => {
    const tx = await m.chain.transfer(3, m.usdc, m.treasury, await price(m, CANARY));
    const observer = await post(m, ATTACKER_IP, tx, CANARY);
    expect(observer.status).toBe(403);
    expect(observer.body.error_code).toBe('PAYER_PROOF_REQUIRED');
    const impostor = await signInWithXHeader({ account: testAccount(4), baseUrl: m.base, skill: CANARY, txHash: tx });
    const byImpostor = await post(m, ATTACKER_IP, tx, CANARY, { 'sign-in-with-x': impostor });
    expect(byImpostor.status).toBe(403);
    expect(byImpostor.body.details.reason).toBe('payer_mismatch');

    const signed = await signInWithXHeader({ account: testAccount(3), baseUrl: m.base, skill: CANARY, txHash: tx });
    const payer = await post(m, BUYER_IP, tx, CANARY, { 'sign-in-with-x': signed });
    expect(payer.status).toBe(200);
    expect(payer.body.payment.payer.toLowerCase()).toBe(testAccount(3).address.toLowerCase());
  });

  it('takes the same signature inside X-PAYMENT (signInWithX), as an x402 client would carry it', async () => {
    const tx = await m.chain.transfer(4, m.usdc, m.treasury, await price(m, CANARY));
    const signInWithX = await signInWithXProof({ account: testAccount(4), baseUrl: m.base, skill: CANARY, txHash: tx });
    const res = await requestFrom(BUYER_IP, `${m.base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': Buffer.from(JSON.stringify({ txHash: tx, skill: CANARY, signInWithX })).toString('base64') },
    });
    expect(res.status).toBe(200);
    expect(res.body.payment.payer.toLowerCase()).toBe(testAccount(4).address.toLowerCase());
  });
});
