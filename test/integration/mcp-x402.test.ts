/**
 * x402's MCP transport (coinbase/x402 specs/transports-v2/mcp.md) through the local stack, with
 * clients nobody here wrote. x402's own MCP client helper (`@x402/mcp`) is not on the npm registry
 * this checkout reaches, so the buyer does exactly what that helper's `callTool` does, with the
 * official MCP SDK client and `@x402/core`'s `x402Client` (the exact EVM scheme of `@x402/evm`):
 * call the tool; on a tool error whose `structuredContent` (or `content[0].text`) is a
 * `PaymentRequired`, create the payment payload for it and call the same tool again with it in
 * `params._meta["x402/payment"]`; read the settlement from `_meta["x402/payment-response"]`.
 *
 * Buyers are fresh random accounts funded by writing their token balance; the skill is a 0.099
 * USDC one no other test file buys.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { compactVerify, createLocalJWKSet } from 'jose';
import { createPublicClient, erc20Abi, http, type Address, type Hex, type LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localRelayerAddresses } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';
import { chainTools } from '../support/chain';
import { runReadmeSnippet } from '../support/readme-snippets';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) });
const chainTool = chainTools(rpcUrl);

/** A 0.099 USDC skill no other test file buys, so counts here and there never meet. */
const SKILL = 'x402-rails-synthetic-monitor';
const PRICE = 99000n;
/** A $1.99 skill no other test file buys: above @x402/core's default spend cap ($1). */
const DEAR_SKILL = 'treasury-address-rotation';
const DEAR_PRICE = 1990000n;

/** A fresh buyer holding `amount` of the test USDC, and no ETH. */
const freshBuyer = (amount = 10n ** 9n): Promise<LocalAccount> => chainTool.freshWallet(USDC, amount);
const balance = (who: Address) => pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const proofRows = async (tx: string) =>
  ((await (await fetch(`${base}/api/proof?skill=${SKILL}&limit=100`)).json()) as any).recent_unlocks.filter(
    (r: any) => r.txHash === tx.toLowerCase(),
  );

/** A stock x402 client: x402Client with the exact EVM scheme and nothing else configured. */
function payer(account: LocalAccount) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  return client;
}

/** The transport spec's client side: a PaymentRequired from `structuredContent`, else from `content[0].text`. */
function paymentRequiredOf(result: any): any {
  if (!result.isError) return undefined;
  const candidates = [result.structuredContent, (() => JSON.parse(result.content?.[0]?.text ?? 'null'))()];
  return candidates.find((c) => c && typeof c === 'object' && 'x402Version' in c && Array.isArray(c.accepts));
}

let mcp: Client;
beforeAll(async () => {
  mcp = new Client({ name: 'x402-mcp-buyer', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
});
afterAll(async () => {
  await mcp?.close();
});

const unlock = (meta?: Record<string, unknown>) =>
  mcp.callTool({ name: 'unlock_skill', arguments: { skill_id: SKILL }, ...(meta ? { _meta: meta } : {}) }) as Promise<any>;

/** What x402's MCP client does: call; when payment is required, pay and call again. Returns both answers and the payment sent. */
async function buy(account: LocalAccount) {
  const asked = await unlock();
  const required = paymentRequiredOf(asked);
  expect(required, JSON.stringify(asked)).toBeDefined();
  const payment = await payer(account).createPaymentPayload(required);
  const paid = await unlock({ 'x402/payment': payment });
  return { asked, required, payment, paid };
}

describe("x402's MCP transport on unlock_skill", () => {
  let account: LocalAccount;
  let payment: unknown;
  let tx: Hex;

  it('asks for payment with the PaymentRequired the HTTP 402 carries, as the tool error the transport names', async () => {
    const asked = await unlock();
    expect(asked.isError).toBe(true);
    expect(asked.structuredContent).toMatchObject({ x402Version: 2, error: 'payment_required' });
    // content[0].text is the same object, for clients that read no structured content.
    expect(JSON.parse(asked.content[0].text)).toEqual(asked.structuredContent);
    // The same offer as GET /api/pay's PAYMENT-REQUIRED for the skill: one source.
    const http402 = await fetch(`${base}/api/pay?skill=${SKILL}`);
    expect(http402.status).toBe(402);
    const header = JSON.parse(Buffer.from(http402.headers.get('payment-required')!, 'base64').toString('utf8'));
    expect(asked.structuredContent.accepts).toEqual(header.accepts);
    expect(asked.structuredContent.resource).toEqual(header.resource);
    expect(asked.structuredContent.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: 'eip155:8453',
      amount: String(PRICE),
      payTo: TREASURY,
    });
    // Beside it, the failure body for a person or a model, pointing at _meta, never at a header.
    const failure = JSON.parse(asked.content[1].text);
    expect(failure).toMatchObject({ ok: false, error_code: 'PAYMENT_REQUIRED' });
    expect(failure.tip).toContain('_meta["x402/payment"]');
    expect(JSON.stringify(failure)).not.toMatch(/X-PAYMENT|PAYMENT-SIGNATURE/);

    // The challenge tool offers the same PaymentRequired and says where the payment goes.
    const challenge = (await mcp.callTool({ name: 'get_payment_challenge', arguments: { skill_id: SKILL } })) as any;
    expect(challenge.structuredContent.payment_required.accepts).toEqual(header.accepts);
    expect(challenge.structuredContent.tip).toContain('_meta["x402/payment"]');
    expect(`${challenge.structuredContent.message} ${challenge.structuredContent.tip}`).not.toMatch(/X-PAYMENT/);
  });

  it('a fresh buyer pays with _meta["x402/payment"]: the sealed pack, the settlement in _meta, the ledger row, the balance moved once', async () => {
    account = await freshBuyer();
    const [before, treasuryBefore] = [await balance(account.address), await balance(TREASURY)];
    const bought = await buy(account);
    payment = bought.payment;
    const { paid } = bought;
    expect(paid.isError, JSON.stringify(paid)).toBeFalsy();
    const body = paid.structuredContent;
    expect(JSON.parse(paid.content[0].text)).toEqual(body);

    // The pack, its seal checked against the files and against /api/packs.
    expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
    expect(packSeal(packFiles(body.sealed_pack.files))).toBe(body.seal);
    const packs = (await (await fetch(`${base}/api/packs?skill=${SKILL}`)).json()) as any;
    expect(body.seal).toBe(packs.seal.value);

    // x402's SettleResponse in _meta; the service's signed receipt stays in the result.
    const settled = paid._meta['x402/payment-response'];
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(settled.payer.toLowerCase()).toBe(account.address.toLowerCase());
    tx = settled.transaction;
    expect(body.payment.txHash).toBe(tx.toLowerCase());
    const keys = createLocalJWKSet((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as never);
    const { payload } = await compactVerify(body.receipt, keys, { algorithms: ['ES256'] });
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ kind: 'unlock', sub: SKILL, tx: tx.toLowerCase() });

    // The relayer sent it; the buyer paid the price once; the proof ledger has one row.
    const receipt = await pub.getTransactionReceipt({ hash: tx });
    expect(localRelayerAddresses()).toContain(receipt.from.toLowerCase());
    expect(await balance(account.address)).toBe(before - PRICE);
    expect((await balance(TREASURY)) - treasuryBefore).toBeGreaterThanOrEqual(PRICE);
    expect(await proofRows(tx)).toHaveLength(1);

    // The license of this purchase gets the pack again through the tool's argument.
    const again = (await mcp.callTool({ name: 'unlock_skill', arguments: { skill_id: SKILL, license_token: body.license.token } })) as any;
    expect(again.isError, JSON.stringify(again)).toBeFalsy();
    expect(again.structuredContent.sealed_pack).toEqual(body.sealed_pack);
  });

  it('the same _meta payment again charges nothing', async () => {
    const before = await balance(account.address);
    const replay = await unlock({ 'x402/payment': payment });
    expect(replay.isError, JSON.stringify(replay)).toBeFalsy();
    expect(replay.structuredContent.payment.txHash).toBe(tx.toLowerCase());
    expect(replay.structuredContent.revenue_ledger).toMatchObject({ replayed: true });
    expect(replay._meta['x402/payment-response']).toMatchObject({ success: true, transaction: tx });
    expect(await balance(account.address)).toBe(before);
    expect(await proofRows(tx)).toHaveLength(1);
  });

  it('an owner paying again with a fresh payment gets the pack and is not charged; that payment works once', async () => {
    const before = await balance(account.address);
    const { asked, paid, payment: fresh } = await buy(account);
    expect(asked.isError).toBe(true);
    expect(paid.isError, JSON.stringify(paid)).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ access: { granted: true, via: 'one-time', charged_atomic: '0' } });
    // x402's settlement response names the sale that made it the owner: nothing new was settled.
    expect(paid._meta?.['x402/payment-response']).toEqual({
      success: true,
      transaction: tx.toLowerCase(),
      network: 'eip155:8453',
      payer: account.address.toLowerCase(),
    });
    // A copy of that signature gets nothing and is never settled.
    const copy = await unlock({ 'x402/payment': fresh });
    expect(copy.isError).toBe(true);
    expect(await balance(account.address)).toBe(before);
  });

  it('a payment that does not pay is answered with the PaymentRequired again, its error saying why', async () => {
    const buyer = await freshBuyer();
    const before = await balance(buyer.address);
    const required = paymentRequiredOf(await unlock());
    const signed: any = await payer(buyer).createPaymentPayload(required);
    // Signed for the price, sent for less: the signature no longer matches what it authorizes.
    const tampered = { ...signed, payload: { ...signed.payload, authorization: { ...signed.payload.authorization, value: '1' } } };
    const refused = await unlock({ 'x402/payment': tampered });
    expect(refused.isError).toBe(true);
    const again = paymentRequiredOf(refused);
    expect(again).toMatchObject({ x402Version: 2, accepts: required.accepts, resource: required.resource });
    expect(again.error).toEqual(expect.any(String));
    expect(again.error).not.toBe('payment_required');
    expect(JSON.parse(refused.content[1].text)).toMatchObject({ ok: false, error_code: 'PAYMENT_VERIFICATION_FAILED' });

    // Not a payment payload at all: the same answer, x402's invalid_payload.
    const garbage = await unlock({ 'x402/payment': { x402Version: 2, payload: 'nothing' } });
    expect(paymentRequiredOf(garbage)).toMatchObject({ error: 'invalid_payload' });
    expect(JSON.parse(garbage.content[1].text).message).toMatch(/^_meta\["x402\/payment"\] is not an x402 v2 exact/);
    expect(await balance(buyer.address)).toBe(before);

    // One call pays one way: a _meta payment beside a proof argument is refused before anything is read.
    const both = (await mcp.callTool({
      name: 'unlock_skill',
      arguments: { skill_id: SKILL, tx_hash: `0x${'12'.repeat(32)}` },
      _meta: { 'x402/payment': signed },
    })) as any;
    expect([both.isError, both.structuredContent.error_code]).toEqual([true, 'INVALID_REQUEST']);
  });

  it("a payer short of the price is answered with the PaymentRequired and x402's reason; nothing is sent", async () => {
    const poor = await freshBuyer(PRICE - 1n);
    const { paid } = await buy(poor);
    expect(paymentRequiredOf(paid)).toMatchObject({ x402Version: 2, error: 'invalid_exact_evm_insufficient_balance' });
    expect(JSON.parse(paid.content[1].text).message).toContain(poor.address);
    expect(await balance(poor.address)).toBe(PRICE - 1n);
  });

  it("the README's snippet buys through MCP as written", async () => {
    const buyer = await freshBuyer();
    const before = await balance(buyer.address);
    const { pack, settlement } = (await runReadmeSnippet('mcp-x402', {
      baseUrl: base,
      scope: { account: buyer },
      returns: ['pack', 'settlement'],
    })) as { pack: any; settlement: any };
    expect(packSeal(packFiles(pack.sealed_pack.files))).toBe(pack.seal);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(settlement.payer.toLowerCase()).toBe(buyer.address.toLowerCase());
    expect(await proofRows(settlement.transaction)).toHaveLength(1);
    expect(await balance(buyer.address)).toBe(before - PRICE);
  });

  it("the README's snippet as written, run again by the owner and for a skill above x402Client's default $1 cap (issue 51)", async () => {
    const buyer = await freshBuyer();
    const before = await balance(buyer.address);
    const run = async (skill?: [string, string]) =>
      (await runReadmeSnippet('mcp-x402', {
        baseUrl: base,
        scope: { account: buyer },
        returns: ['pack', 'settlement'],
        ...(skill ? { skill } : {}),
      })) as { pack: any; settlement: any };
    const first = await run();
    const sale = String(first.settlement.transaction).toLowerCase();
    const again = await run();
    expect(again.pack).toMatchObject({ seal: first.pack.seal, access: { granted: true, charged_atomic: '0' } });
    expect(again.settlement).toMatchObject({ success: true, transaction: sale, network: 'eip155:8453' });
    expect(await balance(buyer.address)).toBe(before - PRICE);

    const dear = await run([SKILL, DEAR_SKILL]);
    expect(dear.settlement).toMatchObject({ success: true });
    expect(dear.pack.payment.txHash).toBe(String(dear.settlement.transaction).toLowerCase());
    expect(await balance(buyer.address)).toBe(before - PRICE - DEAR_PRICE);
  });
});
