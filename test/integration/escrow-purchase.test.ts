/**
 * x402 `auth-capture` through the local stack (issue 53): a stock @x402/fetch client registered for
 * `auth-capture` alone (`AuthCaptureEvmScheme`, an anvil account as its signer) buys a pack; on
 * chain the operator's `authorize` and then its `capture`, the buyer charged the price once, the
 * treasury paid it, the escrow holding nothing of the sale afterwards; and the README's escrow
 * snippet as written. Buyers are fresh accounts of the test mnemonic (153; 180 and 181 for the snippet),
 * funded by writing their token balance; skills no other file buys.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { createPublicClient, erc20Abi, http, parseEventLogs, type Address, type Hex } from 'viem';
import { describe, expect, inject, it, vi } from 'vitest';
import { testAccount } from '../../local/anvil';
import { AUTH_CAPTURE_ESCROW_ABI, ESCROW_OPERATOR_INDEX, LOCAL_AUTH_CAPTURE_ESCROW } from '../../local/escrow';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { runReadmeSnippet } from '../support/readme-snippets';
import { escrowedOnChain } from '../support/escrow';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) });
const chainTool = chainTools(rpcUrl);
const OPERATOR = testAccount(ESCROW_OPERATOR_INDEX).address;

const SKILL = 'api-breaking-change-ci-gate';
const PRICE = 490_000n;
/** The skill the README's escrow snippet buys ($0.25, under the stock client's default cap), bought by no other file. */
const SNIPPET_SKILL = 'buyer-purchase-receipts-journal';
const SNIPPET_PRICE = 250_000n;
/** A $1.99 skill, above the stock client's default cap, bought by no other file: the snippet raises its cap as written. */
const DEAR_SKILL = 'go-goroutine-leak-hunt';

const balance = (who: Address) => pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const tokenStore = () =>
  pub.readContract({
    address: LOCAL_AUTH_CAPTURE_ESCROW,
    abi: AUTH_CAPTURE_ESCROW_ABI,
    functionName: 'getTokenStore',
    args: [OPERATOR],
  }) as Promise<Address>;

async function buyer(index: number, amount = 10n ** 9n) {
  const account = testAccount(index);
  await chainTool.setTokenBalance(USDC, account.address, amount);
  return account;
}

/** A stock client that can pay by escrow only. */
function escrowOnly(account: ReturnType<typeof testAccount>) {
  return new x402Client().register('eip155:8453', new AuthCaptureEvmScheme(account));
}

/** The escrow's events in a transaction, by name. */
async function escrowEvents(tx: Hex): Promise<string[]> {
  const receipt = await pub.getTransactionReceipt({ hash: tx });
  return parseEventLogs({ abi: AUTH_CAPTURE_ESCROW_ABI, logs: receipt.logs }).map((l) => l.eventName);
}

describe('x402 auth-capture (escrow) with a stock client', () => {
  it('the 402 offers auth-capture beside exact, with the terms the stock client needs', async () => {
    const res = await fetch(`${base}/api/pay?skill=${SKILL}`);
    const required = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((n) => res.headers.get(n));
    expect(required.accepts[0]!.scheme).toBe('exact');
    const escrow = required.accepts.find((a) => a.scheme === 'auth-capture')!;
    expect(escrow).toMatchObject({
      network: 'eip155:8453',
      amount: PRICE.toString(),
      payTo: TREASURY,
      extra: {
        paymentFlow: 'escrow',
        authCaptureEscrow: LOCAL_AUTH_CAPTURE_ESCROW,
        captureAuthorizer: OPERATOR,
        minFeeBps: 0,
        maxFeeBps: 0,
      },
    });
    const now = Math.floor(Date.now() / 1000);
    expect(escrow.extra['captureDeadline']).toBeGreaterThan(now + 60);
    expect(escrow.extra['refundDeadline']).toBeGreaterThanOrEqual(escrow.extra['captureDeadline'] as number);
  });

  it('buys: 200 with the pack and license; authorize then capture on chain; charged once, the treasury paid, the escrow empty', async () => {
    const account = await buyer(153);
    const before = await balance(account.address);
    const res = await wrapFetchWithPayment(fetch, escrowOnly(account))(`${base}/api/pay?skill=${SKILL}`);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
    expect(body.license.token).toEqual(expect.any(String));

    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement.success).toBe(true);
    const authorizeTx = settlement.transaction as Hex;
    expect(await escrowEvents(authorizeTx)).toContain('PaymentAuthorized');
    const authorize = await pub.getTransactionReceipt({ hash: authorizeTx });
    expect(authorize.from.toLowerCase()).toBe(OPERATOR.toLowerCase());

    // Charged the price once. The treasury's and the escrow store's balances are shared with every
    // other file's purchases running beside this one, so this sale's share is read from its own
    // transactions: the capture (the operator's, after the authorize) moved the price from the
    // operator's store to the treasury, and the escrow holds nothing of this payment any more.
    expect(await balance(account.address)).toBe(before - PRICE);
    const { paymentHash, capture } = await escrowedOnChain(chainTool.pub, authorizeTx);
    const store = await tokenStore();
    const paid = parseEventLogs({ abi: erc20Abi, logs: capture.logs, eventName: 'Transfer' }).filter(
      (l) => l.address.toLowerCase() === USDC.toLowerCase(),
    );
    expect(paid.map((l) => [l.args.from.toLowerCase(), l.args.to.toLowerCase(), l.args.value])).toEqual([
      [store.toLowerCase(), TREASURY.toLowerCase(), PRICE],
    ]);
    const [collected, capturable, refundable] = (await pub.readContract({
      address: LOCAL_AUTH_CAPTURE_ESCROW,
      abi: AUTH_CAPTURE_ESCROW_ABI,
      functionName: 'paymentState',
      args: [paymentHash],
    })) as unknown as [boolean, bigint, bigint];
    expect({ collected, capturable, refundable }).toEqual({ collected: true, capturable: 0n, refundable: PRICE });

    const row = ((await (await fetch(`${base}/api/proof?skill=${SKILL}&limit=100`)).json()) as any).recent_unlocks.find(
      (r: any) => r.txHash === authorizeTx.toLowerCase(),
    );
    expect(row).toBeDefined();
  });

  it("the README's escrow snippet as written: 200 with the pack; PAYMENT-RESPONSE names the escrow's authorize, then captured; charged once", async () => {
    const account = await buyer(180);
    const before = await balance(account.address);
    const out = await runReadmeSnippet('x402-fetch-escrow', { baseUrl: base, scope: { account }, returns: ['res', 'unlock'] });
    const first = { res: out['res'] as Response, unlock: out['unlock'] as any };
    expect(first.res.status, JSON.stringify(first.unlock)).toBe(200);
    expect(Object.keys(first.unlock.sealed_pack.files)).toContain('SKILL.md');
    const packs = (await (await fetch(`${base}/api/packs?skill=${SNIPPET_SKILL}`)).json()) as any;
    expect(first.unlock.seal).toBe(packs.seal.value);

    // The transaction PAYMENT-RESPONSE names is the escrow's authorize of this buyer's payment.
    const settlement = decodePaymentResponseHeader(first.res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true });
    const receipt = await pub.getTransactionReceipt({ hash: settlement.transaction as Hex });
    const [authorized, ...others] = parseEventLogs({ abi: AUTH_CAPTURE_ESCROW_ABI, logs: receipt.logs, eventName: 'PaymentAuthorized' });
    expect(others).toEqual([]);
    expect(authorized!.address.toLowerCase()).toBe(LOCAL_AUTH_CAPTURE_ESCROW.toLowerCase());
    const args = authorized!.args as { paymentInfoHash: Hex; amount: bigint; paymentInfo: { payer: Address } };
    expect(args.amount).toBe(SNIPPET_PRICE);
    expect(args.paymentInfo.payer.toLowerCase()).toBe(account.address.toLowerCase());
    // Then captured: the escrow's PaymentCaptured for the same payment, for the whole price.
    await vi.waitFor(
      async () => {
        const captured = await pub.getContractEvents({
          address: LOCAL_AUTH_CAPTURE_ESCROW,
          abi: AUTH_CAPTURE_ESCROW_ABI,
          eventName: 'PaymentCaptured',
          args: { paymentInfoHash: args.paymentInfoHash },
          fromBlock: receipt.blockNumber,
        });
        expect(captured.map((l) => (l.args as { amount: bigint }).amount)).toEqual([SNIPPET_PRICE]);
      },
      { timeout: 20_000, interval: 500 },
    );
    expect(await balance(account.address)).toBe(before - SNIPPET_PRICE);

    // Run again by the owner: its escrowed signature proves the wallet, so the pack comes with nothing
    // authorized or charged, and the settlement response names the sale that made it the owner.
    const again = await runReadmeSnippet('x402-fetch-escrow', { baseUrl: base, scope: { account }, returns: ['res', 'unlock'] });
    const second = { res: again['res'] as Response, unlock: again['unlock'] as any };
    expect(second.res.status, JSON.stringify(second.unlock)).toBe(200);
    expect(second.unlock).toMatchObject({ access: { granted: true, via: 'one-time', charged_atomic: '0' } });
    expect(decodePaymentResponseHeader(second.res.headers.get('payment-response')!).transaction.toLowerCase()).toBe(
      settlement.transaction.toLowerCase(),
    );
    expect(await balance(account.address)).toBe(before - SNIPPET_PRICE);
    const authorizations = await pub.getContractEvents({
      address: LOCAL_AUTH_CAPTURE_ESCROW,
      abi: AUTH_CAPTURE_ESCROW_ABI,
      eventName: 'PaymentAuthorized',
      fromBlock: receipt.blockNumber,
    });
    expect(authorizations.filter((l) => (l.args as any).paymentInfo.payer.toLowerCase() === account.address.toLowerCase())).toHaveLength(1);
  });

  it("the README's escrow snippet as written buys a skill above the stock client's default cap ($1)", async () => {
    const account = await buyer(181);
    const before = await balance(account.address);
    const price = BigInt(((await (await fetch(`${base}/api/pay?skill=${DEAR_SKILL}`)).json()) as any).maxAmountRequired);
    expect(price).toBeGreaterThan(1_000_000n);
    const out = await runReadmeSnippet('x402-fetch-escrow', {
      baseUrl: base,
      scope: { account },
      returns: ['res', 'unlock'],
      skill: [SNIPPET_SKILL, DEAR_SKILL],
    });
    expect((out['res'] as Response).status, JSON.stringify(out['unlock'])).toBe(200);
    expect(Object.keys((out['unlock'] as any).sealed_pack.files)).toContain('SKILL.md');
    expect(await balance(account.address)).toBe(before - price);
  });
});
