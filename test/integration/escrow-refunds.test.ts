/**
 * The operator's refund of an escrowed sale (x402 `auth-capture`, issue 53 item 4) on the local
 * stack: a stock @x402/fetch client pays by escrow; `npm run refund -- <sale tx>` chooses the
 * escrow's own `refund` (the sale is well within its refund deadline), funds the operator from the
 * treasury, and records it. The buyer has the price back on chain, from the operator's call to the
 * escrow; the license is refused; the books show the refund as any USDC refund. A second run
 * refunds nothing more. The buyer is a test mnemonic account (161) and the skill one no other file buys.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { createPublicClient, erc20Abi, http, parseEventLogs, type Address, type Hex } from 'viem';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { formatDecimal } from '../../lambdas/contract/chain';
import { LEDGER_TABLE, SETTLEMENTS_TABLE } from '../../lambdas/contract/tables';
import { dynamoSettlements } from '../../lambdas/facilitator/adapters/dynamo-settlements';
import { dynamoLedger } from '../../lambdas/ledger/adapters/dynamo-ledger';
import { tableName } from '../../lambdas/platform/table-names';
import { testAccount } from '../../local/anvil';
import {
  AUTH_CAPTURE_ESCROW_ABI,
  ESCROW_OPERATOR_INDEX,
  LOCAL_AUTH_CAPTURE_ESCROW,
  LOCAL_OPERATOR_REFUND_COLLECTOR,
} from '../../local/escrow';
import { localChain } from '../../local/local-chain';
import { stackBooks } from '../support/books';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const dynamo = inject('dynamoEndpoint');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) });
const OPERATOR = testAccount(ESCROW_OPERATOR_INDEX).address;
const db = new DynamoDBClient({ endpoint: dynamo, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const ledger = dynamoLedger(db, tableName(LEDGER_TABLE, {}));
const settlements = dynamoSettlements(db, tableName(SETTLEMENTS_TABLE, {}));
afterAll(() => db.destroy());

/** A 0.25 USDC skill no other test file buys. */
const SKILL = 'architecture-decision-record';
const PRICE = 250_000n;
const BUYER_INDEX = 161;

type Json = Record<string, unknown>;

const balance = (who: Address) => pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

/** `npm run refund` as the operator runs it, against this run's stack. */
function refund(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'local/refund.ts', ...args],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { ...process.env, DYNAMODB_ENDPOINT: dynamo, RPC_URLS: rpcUrl, TREASURY_ADDRESS: TREASURY, EXPLORER_URL: '' },
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
    );
  });
}

async function redeem(license: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': license } });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("an escrowed sale's refund, through the escrow", () => {
  it('gives the buyer the price back on chain from the escrow, refuses the license, and shows in the books', async () => {
    const buyer = testAccount(BUYER_INDEX);
    await chainTools(rpcUrl).setTokenBalance(USDC, buyer.address, 10n ** 9n);
    const before = await balance(buyer.address);

    // The sale: a stock client that pays by escrow only.
    const client = new x402Client().register('eip155:8453', new AuthCaptureEvmScheme(buyer));
    const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${SKILL}`);
    const body = (await res.json()) as { license: { token: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const license = body.license.token;
    const sale = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction as Hex;
    expect(await balance(buyer.address)).toBe(before - PRICE);
    expect((await redeem(license)).status).toBe(200);
    const access = async () => (await (await fetch(`${base}/api/access?wallet=${buyer.address}&skill=${SKILL}`)).json()) as Json;
    expect(await access()).toMatchObject({ granted: true });
    const operatorBefore = await balance(OPERATOR);

    // The refund: `npm run refund` chooses the escrow by itself, the treasury funding the operator.
    const run = await refund([sale]);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.err).toMatch(new RegExp(`sent ${PRICE} atomic units from the treasury to the escrow operator ${OPERATOR}`));
    const outcome = JSON.parse(run.out);
    expect(outcome).toMatchObject({
      outcome: 'recorded',
      sale_tx: sale.toLowerCase(),
      refunded_amount: String(PRICE),
      sale_amount: String(PRICE),
      refunded_in_full: true,
      refund: { amount: String(PRICE), saleTx: sale.toLowerCase(), skill: SKILL, payer: buyer.address },
    });
    const refundTx = outcome.refund.tx as Hex;

    // On chain: the buyer has the price back; it is the operator's call to the escrow, which refunded this payment
    // through the refund collector; the operator keeps nothing of the treasury's funding.
    expect(await balance(buyer.address)).toBe(before);
    const receipt = await pub.getTransactionReceipt({ hash: refundTx });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(OPERATOR.toLowerCase());
    expect(receipt.to!.toLowerCase()).toBe(LOCAL_AUTH_CAPTURE_ESCROW.toLowerCase());
    const refunded = parseEventLogs({ abi: AUTH_CAPTURE_ESCROW_ABI, logs: receipt.logs, eventName: 'PaymentRefunded' });
    expect(refunded).toHaveLength(1);
    expect(refunded[0]!.args).toMatchObject({ amount: PRICE, tokenCollector: LOCAL_OPERATOR_REFUND_COLLECTOR });
    const paidBack = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' }).filter(
      (l) => l.args.to.toLowerCase() === buyer.address.toLowerCase(),
    );
    expect(paidBack.map((l) => l.args.value)).toEqual([PRICE]);
    expect(await balance(OPERATOR)).toBe(operatorBefore);

    // The license is refused, as for any sale refunded in full; access stops.
    const revoked = await redeem(license);
    expect(revoked.status).toBe(403);
    expect(revoked.body).toMatchObject({ ok: false, error_code: 'INVALID_LICENSE' });
    expect(String(revoked.body['message'])).toContain('refunded in full');
    expect(await access()).toMatchObject({ granted: false });

    // The facilitator's record of the escrowed payment went captured → refunding → refunded, naming the refund and its gas.
    const row = await ledger.get('base', sale.toLowerCase());
    expect(row).toMatchObject({ scheme: 'auth-capture', settlement: expect.any(String) });
    expect(await settlements.get(row!.settlement!)).toMatchObject({
      escrowStage: 'refunded',
      refundTx: refundTx.toLowerCase(),
      refundGasUsed: receipt.gasUsed.toString(),
    });

    // The proof row stays, marked refunded by that transaction.
    const proof = (await (await fetch(`${base}/api/proof?skill=${SKILL}&limit=100`)).json()) as { recent_unlocks: Json[] };
    expect(proof.recent_unlocks.find((r) => r['txHash'] === sale.toLowerCase())).toMatchObject({
      refunded_amount: String(PRICE),
      refund_txs: [refundTx.toLowerCase()],
    });

    // The books: the sale, and the refund as a row of its own, negative, as any USDC refund.
    const { transactions } = await stackBooks(dynamo);
    expect(transactions.find((r) => r.type === 'sale' && r.reference === sale.toLowerCase())).toMatchObject({
      amount: formatDecimal(PRICE, 6),
    });
    expect(transactions.filter((r) => r.type === 'refund' && r.reference === refundTx.toLowerCase())).toEqual([
      expect.objectContaining({
        channel: 'x402',
        currency: 'USDC',
        amount: formatDecimal(-PRICE, 6),
        gross_usd: formatDecimal(-PRICE, 6),
        net_usd: formatDecimal(-PRICE, 6),
      }),
    ]);

    // Nothing more is refunded: a second run, or the refund recorded again, changes nothing.
    const again = await refund([sale]);
    expect(again.code, again.out + again.err).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({ outcome: 'refused', reason: 'already_refunded' });
    const recordedAgain = await refund([sale, refundTx]);
    expect(recordedAgain.code).toBe(1);
    expect(JSON.parse(recordedAgain.out)).toMatchObject({ outcome: 'refused', reason: 'already_recorded' });
    expect(await balance(buyer.address)).toBe(before);
  }, 120_000);
});
