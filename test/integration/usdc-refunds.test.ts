/**
 * Operator refunds of USDC on the local stack: a fresh wallet buys a skill with a transfer, the
 * treasury sends money back, and `npm run refund` records it against the sale. A partial refund
 * keeps the buyer's access; the rest refunded stops the license and the ownership, the proof row
 * says so, and the figures still count the confirmed sale (reconcile stays equal) while
 * /api/signals no longer counts it as demand. A replay, and a
 * transfer from someone else, to someone else or of too much, are refused and change nothing.
 */
import { execFile } from 'node:child_process';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { fileURLToPath } from 'node:url';
import { createWalletClient, erc20Abi, http, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { LEDGER_TABLE, REFUNDS_TABLE } from '../../lambdas/contract/tables';
import { dynamoRefunds } from '../../lambdas/ledger/adapters/dynamo-refunds';
import { tableName } from '../../lambdas/platform/table-names';
import { TREASURY_ACCOUNT_INDEX } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { stackBooks } from '../support/books';
import { chainTools } from '../support/chain';
import { formatDecimal } from '../../lambdas/contract/chain';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const dynamo = inject('dynamoEndpoint');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const tools = chainTools(rpcUrl);
const db = new DynamoDBClient({ endpoint: dynamo, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
/** The store the CLI writes through, on this run's DynamoDB Local: its conditions, past the CLI's own first read. */
const store = dynamoRefunds(db, { refunds: tableName(REFUNDS_TABLE, {}), ledger: tableName(LEDGER_TABLE, {}) });
afterAll(() => db.destroy());

/** A 0.25 USDC skill no other test file buys (every 0.099 featured skill is bought by another file). */
const SKILL = 'sealed-pack-persistence-and-integrity';
const PRICE = 250_000n;

type Json = Record<string, unknown>;

/** A transfer of USDC from a fresh wallet's key. */
async function send(account: PrivateKeyAccount, to: Address, amount: bigint): Promise<Hex> {
  const wallet = createWalletClient({ account, chain: localChain(rpcUrl), transport: http(rpcUrl) });
  const tx = await wallet.writeContract({ address: USDC, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  await tools.pub.waitForTransactionReceipt({ hash: tx, pollingInterval: 50 });
  return tx;
}

/** What the treasury (the local stack's treasury account, as the operator holds its key) sends. */
const treasurySends = (to: Address, amount: bigint): Promise<Hex> => tools.transfer(TREASURY_ACCOUNT_INDEX, USDC, to, amount);

function cli(script: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, ...args],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { ...process.env, DYNAMODB_ENDPOINT: dynamo, RPC_URLS: rpcUrl, TREASURY_ADDRESS: TREASURY, EXPLORER_URL: '' },
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
    );
  });
}
const refund = (sale: Hex, refundTx: Hex) => cli('local/refund.ts', [sale, refundTx]);

async function redeem(license: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': license } });
  return { status: res.status, body: (await res.json()) as Json };
}
const access = async (wallet: Address): Promise<Json> =>
  (await (await fetch(`${base}/api/access?wallet=${wallet}&skill=${SKILL}`)).json()) as Json;
/** The skill's confirmed demand on /api/signals (x402), or undefined when it is not listed. */
const demand = async (): Promise<unknown> => {
  const body = (await (await fetch(`${base}/api/signals`)).json()) as {
    demand: { channel: string; product: string; confirmed: unknown }[];
  };
  return body.demand.find((d) => d.channel === 'x402' && d.product === SKILL)?.confirmed;
};
/** Waits for the fold (seconds behind the ledger) to bring signals to `expected`. */
const demandBecomes = (expected: unknown) =>
  vi.waitFor(async () => expect(await demand()).toEqual(expected), { timeout: 30_000, interval: 250 });
const proofRow = async (tx: Hex): Promise<Json | undefined> => {
  const proof = (await (await fetch(`${base}/api/proof?skill=${SKILL}&limit=100`)).json()) as {
    recent_unlocks: Json[];
    confirmed_counts: string;
  };
  expect(proof.confirmed_counts).toMatch(/refunded ones included/);
  return proof.recent_unlocks.find((r) => r['txHash'] === tx.toLowerCase());
};

describe('USDC refunds recorded against a sale', () => {
  it('records a partial then a full refund; access stops only at the full one; what is not a refund of the sale is refused', async () => {
    // The sale: a fresh wallet pays the skill's price to the treasury and claims it.
    const buyer = await tools.freshWallet(USDC, PRICE, 10n ** 16n);
    const sale = await send(buyer, TREASURY, PRICE);
    const pay = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: sale, skill: SKILL }) },
    });
    expect(pay.status, await pay.clone().text()).toBe(200);
    const license = ((await pay.json()) as { license: { token: string } }).license.token;
    await demandBecomes({ '7d': 1, '30d': 1, all: 1 });
    // The operator's own top-up of the treasury, so the refunds below never depend on other tests' payments.
    const funder = await tools.freshWallet(USDC, 2n * PRICE, 10n ** 16n);
    await send(funder, TREASURY, 2n * PRICE);

    // A partial refund: recorded; access and license stay.
    const part = await treasurySends(buyer.address, 100_000n);
    const first = await refund(sale, part);
    expect(first.code, first.out + first.err).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({
      outcome: 'recorded',
      sale_tx: sale.toLowerCase(),
      refunded_amount: '100000',
      sale_amount: String(PRICE),
      refunded_in_full: false,
      refund: { tx: part.toLowerCase(), amount: '100000', saleTx: sale.toLowerCase(), skill: SKILL },
    });
    expect(await access(buyer.address)).toMatchObject({ granted: true, via: 'one-time' });
    expect((await redeem(license)).status).toBe(200);
    expect(await proofRow(sale)).toMatchObject({ refunded_amount: '100000', refund_txs: [part.toLowerCase()] });
    // A sale refunded in part is still demand: the buyer kept the skill.
    expect(await demand()).toEqual({ '7d': 1, '30d': 1, all: 1 });

    // A replay of the same refund is refused and changes nothing.
    const again = await refund(sale, part);
    expect(again.code, again.err).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({ outcome: 'refused', reason: 'already_recorded' });
    expect(await proofRow(sale)).toMatchObject({ refunded_amount: '100000', refund_txs: [part.toLowerCase()] });

    // The transaction's own conditions, as two operators racing past that first read would meet them:
    // the same refund again, or another one written against the total read before the first.
    const recorded = JSON.parse(first.out).refund;
    expect(await store.record(recorded, { expectedRefunded: '100000', refundedAmount: '200000', full: false })).toBe('refund_exists');
    const racing = { ...recorded, tx: `0x${'ab'.repeat(32)}` };
    expect(await store.record(racing, { expectedRefunded: undefined, refundedAmount: '100000', full: false })).toBe('sale_changed');
    expect(await store.get('base', racing.tx)).toBeUndefined();
    expect(await proofRow(sale)).toMatchObject({ refunded_amount: '100000', refund_txs: [part.toLowerCase()] });

    // Not refunds of this sale: from someone else, to someone else, more than is left.
    const stranger = await tools.freshWallet(USDC, 1_000n, 10n ** 16n);
    // The treasury's transactions one after another (one account's nonces), the three CLI runs at once.
    const fromStranger = await send(stranger, buyer.address, 1_000n);
    const toStranger = await treasurySends(stranger.address, 1_000n);
    const tooMuch = await treasurySends(buyer.address, PRICE - 100_000n + 1n);
    const refusals = await Promise.all([fromStranger, toStranger, tooMuch].map((tx) => refund(sale, tx)));
    expect(refusals.map((r) => r.code)).toEqual([1, 1, 1]);
    expect(refusals.map((r) => JSON.parse(r.out).reason)).toEqual(['wrong_sender', 'wrong_receiver', 'too_much']);
    expect(await proofRow(sale)).toMatchObject({ refunded_amount: '100000', refund_txs: [part.toLowerCase()] });

    // The rest: the sale is refunded in full. It leaves what the buyer owns and its license stops.
    const rest = await treasurySends(buyer.address, PRICE - 100_000n);
    const full = await refund(sale, rest);
    expect(full.code, full.out + full.err).toBe(0);
    expect(JSON.parse(full.out)).toMatchObject({ outcome: 'recorded', refunded_amount: String(PRICE), refunded_in_full: true });
    expect(await access(buyer.address)).toMatchObject({ granted: false });
    const revoked = await redeem(license);
    expect(revoked.status).toBe(403);
    expect(revoked.body).toMatchObject({ ok: false, error_code: 'INVALID_LICENSE' });
    expect(String(revoked.body['message'])).toContain('refunded in full');
    // Posting the sale's transfer again gives nothing either.
    const replayed = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: sale, skill: SKILL }) },
    });
    expect(replayed.status).not.toBe(200);
    // The proof row stays (a confirmed transfer), marked; the purchase shows as refunded.
    const row = await proofRow(sale);
    expect(row).toMatchObject({ amount: String(PRICE), refunded_amount: String(PRICE) });
    expect([...(row!['refund_txs'] as string[])].sort()).toEqual([part.toLowerCase(), rest.toLowerCase()].sort());
    const purchases = (await (await fetch(`${base}/api/purchases`, { headers: { 'x-license': license } })).json()) as { purchases: Json[] };
    expect(purchases.purchases[0]).toMatchObject({ status: 'refunded', refunded_atomic: String(PRICE), download: null });

    // Finance's books: the sale, and each refund as a row of its own, negative, at its block's time.
    const { transactions } = await stackBooks(dynamo);
    expect(transactions.find((r) => r.reference === sale.toLowerCase())).toMatchObject({ type: 'sale', amount: formatDecimal(PRICE, 6) });
    const refunds = transactions.filter((r) => r.type === 'refund' && [part, rest].some((t) => t.toLowerCase() === r.reference));
    expect(refunds.map((r) => r.amount).sort()).toEqual([formatDecimal(-100_000n, 6), formatDecimal(-(PRICE - 100_000n), 6)].sort());
    for (const r of refunds) expect(r).toMatchObject({ channel: 'x402', currency: 'USDC', net_usd: r.amount, gross_usd: r.amount });

    // Signals no longer count it as confirmed demand (issue 50, finding 10): this skill's only sale went back.
    await demandBecomes(undefined);

    // The figures still count the confirmed sale: every figure equals a recount of the records.
    await vi.waitFor(
      async () => {
        const reconcile = await cli('local/reconcile.ts', []);
        expect(reconcile.code, reconcile.out + reconcile.err).toBe(0);
        expect(JSON.parse(reconcile.out)).toMatchObject({ state: 'equal' });
      },
      { timeout: 60_000, interval: 1_000 },
    );
  }, 150_000);
});
