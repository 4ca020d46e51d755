/**
 * x402 v1 through the local stack, with the stock v1 clients and no custom code: `x402-fetch`
 * 1.2 and `x402-axios` 0.7.2 (the v1 package lines' latest) run as the README shows them (the
 * README's own snippets, run by `runReadmeSnippet`), and x402's v2 package with its v1 scheme
 * (`@x402/fetch` + `registerExactEvmScheme`, reading only the body). Each reads the 402 body
 * (`x402Version: 1`, `accepts[]`), signs an EIP-3009 authorization and sends the same GET again
 * with a base64 `X-PAYMENT`; the service settles it from its relayer, as it does x402 v2's
 * PAYMENT-SIGNATURE.
 *
 * No block is mined before a purchase: the local chain makes a block every 2 s as Base does
 * (local/anvil.ts), so a v1 authorization's `validAfter = now - 600` is in the past at the head
 * however long the chain sat idle. Buyers are fresh random accounts funded by writing their
 * token balance, so no other file's accounts are touched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrapFetchWithPayment as wrapFetchV2, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import axios, { type AxiosResponse } from 'axios';
import { createPublicClient, erc20Abi, http, type Address, type Hex, type LocalAccount } from 'viem';
import { wrapFetchWithPayment } from 'x402-fetch';
import { withPaymentInterceptor } from 'x402-axios';
import { describe, expect, inject, it } from 'vitest';
import { BASE_BLOCK_SECONDS, KEPT_CHAIN_BLOCK_SECONDS, localRelayerAddresses, startAnvil } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { readmeSnippet, runReadmeSnippet } from '../support/readme-snippets';
import { requestFrom } from '../support/source-address';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) });
const chainTool = chainTools(rpcUrl);

/** A 0.099 USDC skill no other test file buys (the README's v1 snippets buy it), so counts here and there never meet. */
const SKILL = 'proof-ledger-publisher';
const PRICE = 99000n;
const URL_ = `${base}/api/pay?skill=${SKILL}`;
/** A skill above x402-fetch 1.x's default cap (0.1 USDC), no other test file buys: catalog/skills, list price $0.25. */
const DEAR_SKILL = 'x402-challenge-normalizer';
const DEAR_PRICE = 250000n;
/** A skill above @x402/fetch 2.x's default cap ($1), no other test file buys: list price $1.99. */
const DEAREST_SKILL = 'airflow-backfill-runbook';
const DEAREST_PRICE = 1990000n;

/** A fresh buyer holding `amount` of the test USDC, and no ETH. */
const freshBuyer = (amount = 10n ** 9n): Promise<LocalAccount> => chainTool.freshWallet(USDC, amount);
const balance = (who: Address) => pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const proofRows = async (skill: string, tx: string) =>
  ((await (await fetch(`${base}/api/proof?skill=${skill}&limit=100`)).json()) as any).recent_unlocks.filter(
    (r: any) => r.txHash === tx.toLowerCase(),
  );
const decode = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
/** Transfers of the test USDC from `who` mined since `fromBlock`. */
const transfersFrom = (who: Address, fromBlock: bigint) =>
  pub.getContractEvents({ address: USDC, abi: erc20Abi, eventName: 'Transfer', args: { from: who }, fromBlock });

/** What a purchase gave: the answer, its `X-PAYMENT-RESPONSE`, and the `X-PAYMENT` the client sent. */
interface Bought {
  status: number;
  body: any;
  paymentResponse: string | null;
  xPayment: string | undefined;
}

/** A fetch that records every request's headers and otherwise is the global one. */
function recording(sent: Headers[], view: (res: Response) => Response = (res) => res): typeof fetch {
  return async (input, init) => {
    sent.push(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
    return view(await fetch(input, init));
  };
}
const xPaymentOf = (sent: Headers[]) => sent.map((h) => h.get('x-payment')).find((h) => h !== null) ?? undefined;

/**
 * A v1-only client's view of the server: every answer without the v2 `PAYMENT-REQUIRED` header,
 * so `@x402/fetch` reads the body and pays with its v1 scheme.
 */
function withoutV2Header(res: Response): Response {
  const headers = new Headers(res.headers);
  headers.delete('payment-required');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * The stock v1 clients, each buying `skill` for `account` with no custom code. x402-fetch and
 * x402-axios run their README snippets (the snippet's `fetch` records the headers sent and is
 * otherwise the global one); other skills go through the same calls written here.
 */
const clients: Record<string, (account: LocalAccount) => Promise<Bought>> = {
  'x402-fetch 1.2': async (account) => {
    const sent: Headers[] = [];
    const { res, unlock } = await runReadmeSnippet('x402-fetch-v1', {
      baseUrl: base,
      scope: { account, fetch: recording(sent) },
      returns: ['res', 'unlock'],
    });
    const r = res as Response;
    return { status: r.status, body: unlock, paymentResponse: r.headers.get('x-payment-response'), xPayment: xPaymentOf(sent) };
  },
  'x402-axios 0.7.2': async (account) => {
    const { res } = await runReadmeSnippet('x402-axios-v1', { baseUrl: base, scope: { account }, returns: ['res'] });
    const r = res as AxiosResponse;
    return {
      status: r.status,
      body: r.data,
      paymentResponse: (r.headers['x-payment-response'] as string | undefined) ?? null,
      xPayment: r.config.headers['X-PAYMENT'] as string | undefined,
    };
  },
  "@x402/fetch 2.x's v1 scheme": async (account) => {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    const sent: Headers[] = [];
    const res = await wrapFetchV2(recording(sent, withoutV2Header), client)(URL_);
    return {
      status: res.status,
      body: await res.json(),
      paymentResponse: res.headers.get('x-payment-response'),
      xPayment: xPaymentOf(sent),
    };
  },
};

describe("the local chain's clock", () => {
  it("is Base's: with nothing sent, a block comes every 2 s and the head is the present (what a v1 validAfter = now - 600 needs)", async () => {
    // A chain of its own, so no other file's transactions make the blocks.
    const anvil = await startAnvil({ port: 0 });
    try {
      const own = createPublicClient({ chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
      const first = await own.getBlockNumber();
      await new Promise((r) => setTimeout(r, 3 * BASE_BLOCK_SECONDS * 1000 + 500));
      const head = await own.getBlock();
      expect(head.number - first).toBeGreaterThanOrEqual(2n);
      expect(Math.floor(Date.now() / 1000) - Number(head.timestamp)).toBeLessThanOrEqual(BASE_BLOCK_SECONDS + 1);
    } finally {
      await anvil.stop();
    }
  });

  it('on a chain kept in a state file, empty blocks come a minute apart (every block stays in the file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kept-chain-'));
    const anvil = await startAnvil({ port: 0, statePath: join(dir, 'anvil-state.json') });
    try {
      const own = createPublicClient({ chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
      const first = await own.getBlockNumber();
      await new Promise((r) => setTimeout(r, 3 * BASE_BLOCK_SECONDS * 1000 + 500));
      // Base's pace would have made three blocks by now; a minute's makes at most one.
      expect((await own.getBlockNumber()) - first).toBeLessThanOrEqual(1n);
      expect(KEPT_CHAIN_BLOCK_SECONDS).toBe(60);
    } finally {
      await anvil.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('x402 v1: stock clients', () => {
  it('the README snippets run here are the README text, buying the skill this file buys', () => {
    expect(readmeSnippet('x402-fetch-v1')).toContain(`wrapFetchWithPayment(fetch, account, 5_000_000n)`);
    expect(readmeSnippet('x402-fetch-v1')).toContain(`/api/pay?skill=${SKILL}`);
    expect(readmeSnippet('x402-axios-v1')).toContain(`withPaymentInterceptor(axios.create({ baseURL: 'http://127.0.0.1:8787' }), account)`);
    expect(readmeSnippet('x402-axios-v1')).toContain(`/api/pay?skill=${SKILL}`);
    expect(readmeSnippet('x402-fetch-v2')).toContain(`/api/pay?skill=${SKILL}`);
  });

  it("the README's x402 v2 snippet (@x402/fetch 2.x) buys the same skill with PAYMENT-SIGNATURE; run again, it is not charged", async () => {
    const account = await freshBuyer();
    const before = await balance(account.address);
    const fromBlock = await pub.getBlockNumber();
    const buy = async () => {
      const { res, unlock } = await runReadmeSnippet('x402-fetch-v2', { baseUrl: base, scope: { account }, returns: ['res', 'unlock'] });
      return { res: res as Response, unlock: unlock as any };
    };
    const first = await buy();
    expect(first.res.status, JSON.stringify(first.unlock)).toBe(200);
    const packs = (await (await fetch(`${base}/api/packs?skill=${SKILL}`)).json()) as any;
    expect(first.unlock.seal).toBe(packs.seal.value);
    const settled = decode(first.res.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true });
    expect(await proofRows(SKILL, settled.transaction)).toHaveLength(1);
    expect(await balance(account.address)).toBe(before - PRICE);
    // The same snippet again: the wallet owns the skill, so it gets the pack and nothing is settled.
    const again = await buy();
    expect(again.res.status).toBe(200);
    expect(again.unlock.seal).toBe(packs.seal.value);
    expect(await balance(account.address)).toBe(before - PRICE);
    expect(await transfersFrom(account.address, fromBlock)).toHaveLength(1);
  });

  for (const [name, buy] of Object.entries(clients)) {
    it(`${name} buys a 0.099 USDC skill: the pack sealed, the transfer on chain once and on the ledger, X-PAYMENT-RESPONSE; replays charge nothing`, async () => {
      const account = await freshBuyer();
      const [before, treasuryBefore, fromBlock] = [await balance(account.address), await balance(TREASURY), await pub.getBlockNumber()];
      const { status, body, paymentResponse, xPayment } = await buy(account);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
      const packs = (await (await fetch(`${base}/api/packs?skill=${SKILL}`)).json()) as any;
      expect(body.seal).toBe(packs.seal.value);

      // It sent x402 v1's X-PAYMENT (base64, no PAYMENT-SIGNATURE), an exact payment on "base".
      expect(xPayment).toEqual(expect.any(String));
      expect(xPayment!.startsWith('{')).toBe(false);
      expect(decode(xPayment!)).toMatchObject({ x402Version: 1, scheme: 'exact', network: 'base' });

      // Answered with X-PAYMENT-RESPONSE in v1's settle-response form.
      const settled = decode(paymentResponse!);
      expect(settled).toMatchObject({ success: true, network: 'base' });
      expect(settled.payer.toLowerCase()).toBe(account.address.toLowerCase());
      const tx = settled.transaction as Hex;
      expect(body.payment.txHash).toBe(tx.toLowerCase());

      const receipt = await pub.getTransactionReceipt({ hash: tx });
      expect(localRelayerAddresses()).toContain(receipt.from.toLowerCase());
      expect(await balance(account.address)).toBe(before - PRICE);
      expect((await balance(TREASURY)) - treasuryBefore).toBeGreaterThanOrEqual(PRICE);
      expect(await proofRows(SKILL, tx)).toHaveLength(1);

      // The same header again, by GET or by POST: the same pack, replayed; nothing charged, no row added.
      for (const method of ['GET', 'POST']) {
        const again = await fetch(URL_, { method, headers: { 'X-PAYMENT': xPayment! } });
        const againBody = (await again.json()) as any;
        expect(again.status, JSON.stringify(againBody)).toBe(200);
        expect(againBody.payment.txHash).toBe(tx.toLowerCase());
        expect(againBody.revenue_ledger).toMatchObject({ replayed: true });
      }
      expect(await balance(account.address)).toBe(before - PRICE);
      expect(await transfersFrom(account.address, fromBlock)).toHaveLength(1);
      expect(await proofRows(SKILL, tx)).toHaveLength(1);

      // Another caller replaying the public header gets nothing.
      const stranger = await requestFrom('127.0.0.9', URL_, { headers: { 'X-PAYMENT': xPayment! } });
      expect(stranger.status, stranger.text).toBe(403);
      expect(stranger.body).toMatchObject({ ok: false, error_code: 'BUYER_PROOF_REQUIRED' });
    });
  }

  for (const name of ['x402-fetch-v1', 'x402-axios-v1']) {
    it(`the README's ${name} snippet run again by the owner: the pack, nothing settled, and the settlement names the sale that made it the owner`, async () => {
      const account = await freshBuyer();
      const [start, fromBlock] = [await balance(account.address), await pub.getBlockNumber()];
      const run = async () => {
        // The snippet's last line decodes X-PAYMENT-RESPONSE: it throws when the header is missing.
        const out = await runReadmeSnippet(name, { baseUrl: base, scope: { account }, returns: ['unlock', 'settlement'] });
        return { unlock: out['unlock'] as any, settlement: out['settlement'] as any };
      };
      const first = await run();
      expect(first.settlement).toMatchObject({ success: true, network: 'base' });
      const sale = first.settlement.transaction as string;
      expect(first.unlock.payment.txHash).toBe(sale.toLowerCase());

      const second = await run();
      expect(second.unlock).toMatchObject({ access: { granted: true, via: 'one-time', charged_atomic: '0' } });
      expect(second.unlock.seal).toBe(first.unlock.seal);
      // Nothing new was charged: the settlement response names the payment that bought the access.
      expect(second.settlement).toMatchObject({ success: true, network: 'base' });
      expect(second.settlement.transaction.toLowerCase()).toBe(sale.toLowerCase());
      expect(second.settlement.payer.toLowerCase()).toBe(account.address.toLowerCase());
      expect(await balance(account.address)).toBe(start - PRICE);
      expect(await transfersFrom(account.address, fromBlock)).toHaveLength(1);
    });
  }
});

describe('a spend cap below the price', () => {
  // Issue 51: each README snippet raises its client's cap, so it buys a skill above every default cap as written.
  for (const [name, skill] of [
    ['x402-fetch-v1', 'dbt-incremental-model'],
    ['x402-axios-v1', 'unlock-replay-and-txhash-claim-defense'],
    ['x402-fetch-v2', 'erc20-transfer-verifier-implementation'],
  ] as const) {
    it(`the README's ${name} snippet as written buys ${skill}, above every client's default cap`, async () => {
      const account = await freshBuyer();
      const before = await balance(account.address);
      const price = BigInt(((await (await fetch(`${base}/api/pay?skill=${skill}`)).json()) as any).maxAmountRequired);
      expect(price).toBeGreaterThan(1_000_000n);
      const { unlock } = await runReadmeSnippet(name, { baseUrl: base, scope: { account }, returns: ['unlock'], skill: [SKILL, skill] });
      expect(Object.keys((unlock as any).sealed_pack.files)).toContain('SKILL.md');
      expect(await balance(account.address)).toBe(before - price);
    });
  }

  it("x402-fetch's default cap (0.1 USDC) refuses a 0.25 USDC skill before signing: nothing charged; maxValue raised to the price buys it", async () => {
    const account = await freshBuyer();
    const [before, fromBlock] = [await balance(account.address), await pub.getBlockNumber()];
    const url = `${base}/api/pay?skill=${DEAR_SKILL}`;

    // What the 402 says to anyone who reads it: the price, in USDC and in atomic units.
    const challenge = (await (await fetch(url)).json()) as any;
    expect(challenge.maxAmountRequired).toBe(String(DEAR_PRICE));
    expect(challenge.message).toContain('$0.25');
    expect(challenge.message).toContain(`${DEAR_PRICE} atomic USDC`);

    // The stock client throws its own fixed message (it never shows the 402 body): README and
    // llms.txt name its default cap and `maxValue`, the option that raises it.
    await expect(wrapFetchWithPayment(fetch, account)(url)).rejects.toThrow('Payment amount exceeds maximum allowed');
    expect(await balance(account.address)).toBe(before);
    expect(await transfersFrom(account.address, fromBlock)).toHaveLength(0);

    const res = await wrapFetchWithPayment(fetch, account, DEAR_PRICE)(url);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
    expect(await balance(account.address)).toBe(before - DEAR_PRICE);
    expect(await proofRows(DEAR_SKILL, body.payment.txHash)).toHaveLength(1);
  });

  it('x402-axios 0.7.2 has no spend cap: it pays the 0.25 USDC skill as asked (README and llms.txt say so)', async () => {
    const account = await freshBuyer();
    const before = await balance(account.address);
    const res = await withPaymentInterceptor(axios.create({ baseURL: base }), account).get(`/api/pay?skill=${DEAR_SKILL}`);
    expect(res.status, JSON.stringify(res.data)).toBe(200);
    expect(await balance(account.address)).toBe(before - DEAR_PRICE);
  });

  it("@x402/fetch 2.x's default cap ($1) refuses a $1.99 skill with a message that names what to raise: nothing charged; raised, it buys", async () => {
    const account = await freshBuyer();
    const [before, fromBlock] = [await balance(account.address), await pub.getBlockNumber()];
    const url = `${base}/api/pay?skill=${DEAREST_SKILL}`;
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    await expect(wrapFetchV2(fetch, client)(url)).rejects.toThrow(
      /maxAmountPerPayment \(\$1, including USDC\)\. Raise maxAmountPerPayment/,
    );
    expect(await balance(account.address)).toBe(before);
    expect(await transfersFrom(account.address, fromBlock)).toHaveLength(0);

    client.setSpendControls({ maxAmountPerPayment: '$1.99' });
    const res = await wrapFetchV2(fetch, client)(url);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(await balance(account.address)).toBe(before - DEAREST_PRICE);
    expect(await proofRows(DEAREST_SKILL, body.payment.txHash)).toHaveLength(1);
  });
});

describe('x402 v1: refusals', () => {
  it("a v1 X-PAYMENT that is not an exact payment on base is the spec's JSON failure (402) with x402's reason; the spec's JSON X-PAYMENT is still a proof", async () => {
    const account = await freshBuyer();
    // A well-formed v1 payload signed for nothing: its network is one this service does not take.
    const v1 = {
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
      payload: {
        signature: `0x${'11'.repeat(65)}`,
        authorization: {
          from: account.address,
          to: TREASURY,
          value: String(PRICE),
          validAfter: '0',
          validBefore: '4000000000',
          nonce: `0x${'cd'.repeat(32)}`,
        },
      },
    };
    for (const [header, reason] of [
      [Buffer.from(JSON.stringify(v1)).toString('base64'), 'unsupported_scheme'],
      [
        Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base', payload: { signature: '0x11' } })).toString(
          'base64',
        ),
        'invalid_payload',
      ],
    ] as const) {
      const res = await fetch(URL_, { headers: { 'X-PAYMENT': header } });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(402);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(body).toMatchObject({ ok: false, error_code: 'PAYMENT_VERIFICATION_FAILED', details: { reason } });
    }
    // The spec's form (JSON, first character `{`) still goes to the transfer proof: an unknown txHash is no v1 payment.
    const spec = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'X-PAYMENT': JSON.stringify({ txHash: `0x${'ef'.repeat(32)}`, skill: SKILL }) },
    });
    const specBody = (await spec.json()) as any;
    expect(specBody.details?.reason).not.toBe('invalid_payload');
    expect(specBody.ok).toBe(false);
  });
});
