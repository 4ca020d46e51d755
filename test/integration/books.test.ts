/**
 * Finance's books of the running stack, read as finance reads them (the tables exported in
 * DynamoDB's format, the transaction report and the net rollup run with DuckDB): a card sale, its
 * refund and a chargeback made through the Stripe stand-in, and an x402 v2 sale the service's
 * relayer settled, each appear as the rows the money made, with figures equal to the stored facts.
 * An escrowed sale (x402 `auth-capture`, a stock client; buyer 171 of the test mnemonic) is its
 * sale row and a gas row for each of its transactions, the authorize and the capture, each the gas
 * its receipt on chain says.
 */
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { parseUnits, type Address, type Hex } from 'viem';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoCardSales } from '../../lambdas/ledger/adapters/dynamo-card-sales';
import { formatDecimal } from '../../lambdas/contract/chain';
import { toMicroUsd, usdString } from '../../lambdas/contract/finance-export';
import { stackBooks } from '../support/books';
import { cardSales } from '../support/card-sales';
import { chainTools } from '../support/chain';
import { escrowedOnChain } from '../support/escrow';
import { testAccount } from '../../local/anvil';
import { LOCAL_ETH_USD_FEED, TEST_PRICE_FEED_ABI } from '../../local/price-feed';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const dynamo = inject('dynamoEndpoint');
const USDC = inject('usdc') as Address;
const card = cardSales({ base, stripeBase: inject('stripeBase'), webhookSecret: inject('stripeWebhookSecret') });
const chain = chainTools(rpcUrl);
const db = new DynamoDBClient({ endpoint: dynamo, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const stored = dynamoCardSales(db);
afterAll(() => db.destroy());

/** A skill sold by card (its card sales here are told apart from other tests' by their session ids). */
const CARD_SKILL = 'csv-cleaner';
/** A 0.49 USDC skill no other test file buys. */
const X402_SKILL = 'aws-idle-resource-cleanup';
/** A 0.25 USDC skill no other test file buys, paid by escrow (under the stock auth-capture client's $1 limit). */
const ESCROW_SKILL = 'ci-status-verifier';

/** A receipt's gas in micro-dollars at the ETH/USD feed's answer at its block, half up, as the settlement records it. */
async function gasUsdMicro(receipt: { gasUsed: bigint; effectiveGasPrice: bigint; blockNumber: bigint }): Promise<bigint> {
  const [, answer] = (await chain.pub.readContract({
    address: LOCAL_ETH_USD_FEED,
    abi: TEST_PRICE_FEED_ABI,
    functionName: 'latestRoundData',
    blockNumber: receipt.blockNumber,
  })) as [bigint, bigint, bigint, bigint, bigint];
  const divisor = 10n ** BigInt(18 + 8 - 6);
  return (receipt.gasUsed * receipt.effectiveGasPrice * answer * 2n + divisor) / (2n * divisor);
}

describe("finance's books of the running stack", () => {
  it('a card sale, its partial refund and a lost chargeback are rows of the books on the days they happened; the net rollup is their sum', async () => {
    const refunded = await card.cardSale(CARD_SKILL);
    const partial = await card.stripeTest(`/_test/sessions/${refunded.stripeId}/refund`, { amount: 300 });
    expect(await card.deliver(partial)).toMatchObject({ outcome: 'refund_recorded' });
    const disputed = await card.cardSale(CARD_SKILL);
    const opened = await card.stripeTest(`/_test/sessions/${disputed.stripeId}/dispute`);
    expect(await card.deliver(opened)).toMatchObject({ outcome: 'dispute_recorded' });
    const dispute = (opened['data'] as { object: Record<string, unknown> }).object['id'] as string;
    expect(await card.deliver(await card.stripeTest(`/_test/disputes/${dispute}/close`, { status: 'lost' }))).toMatchObject({
      outcome: 'dispute_recorded',
    });

    const { transactions, net } = await stackBooks(dynamo);
    // By type, not time: Stripe's event times are whole seconds, so a refund made within the second of its sale may sort first.
    const of = (session: string) =>
      transactions
        .filter((r) => r.reference === session)
        .map((r) => [r.type, r.amount, r.gross_usd])
        .sort((a, b) => (a[0]! === 'sale' ? -1 : b[0]! === 'sale' ? 1 : 0));
    const sale = transactions.find((r) => r.reference === refunded.sessionId && r.type === 'sale')!;
    expect(sale).toMatchObject({ channel: 'card', currency: 'USD', chain: null, product: CARD_SKILL });
    const price = sale.amount;
    expect(of(refunded.sessionId)).toEqual([
      ['sale', price, price],
      ['refund', '-3', '-3'],
    ]);
    expect(of(disputed.sessionId)).toEqual([
      ['sale', price, price],
      ['dispute_withdrawal', `-${price}`, `-${price}`],
    ]);
    // Fees and net are Stripe's figures as stored on the sale and its reversal, to the cent.
    const cents = (n: number) => formatDecimal(BigInt(n), 2);
    for (const session of [refunded.sessionId, disputed.sessionId]) {
      const item = (await stored.get(session))!;
      expect(item.feeCents, 'the stand-in gives every sale a fee').toBeGreaterThan(0);
      expect(transactions.find((r) => r.reference === session && r.type === 'sale')).toMatchObject({
        processor_fee_usd: cents(item.feeCents!),
        net_usd: cents(item.amountCents - item.feeCents!),
      });
    }
    const withdrawal = Object.values((await stored.get(disputed.sessionId))!.reversals!).find((r) => r.kind === 'dispute_withdrawal')!;
    expect(transactions.find((r) => r.reference === disputed.sessionId && r.type === 'dispute_withdrawal')).toMatchObject({
      processor_fee_usd: cents(withdrawal.feeCents!),
      net_usd: cents(-withdrawal.amountCents - withdrawal.feeCents!),
    });
    // The net rollup of each day and channel is the sum of the books' rows of that day and channel.
    const micro = (v: string | null) => parseUnits(v ?? '0', 6);
    for (const r of net) {
      const rows = transactions.filter((t) => t.day === r.day && t.channel === r.channel);
      const sum = (pick: (t: (typeof rows)[number]) => bigint) => usdString(rows.reduce((s, t) => s + pick(t), 0n));
      expect(r.sales).toBe(rows.filter((t) => t.type === 'sale').length);
      expect(r.gross_usd).toBe(sum((t) => (t.type === 'sale' ? micro(t.gross_usd) : 0n)));
      expect(r.refunds_usd).toBe(sum((t) => (t.type === 'sale' ? 0n : -micro(t.gross_usd))));
      expect(r.fees_usd).toBe(sum((t) => micro(t.processor_fee_usd)));
      expect(r.gas_usd).toBe(sum((t) => micro(t.gas_usd)));
      expect(r.net_usd).toBe(sum((t) => micro(t.gross_usd) - micro(t.processor_fee_usd) - micro(t.gas_usd)));
    }
  });

  it("an x402 v2 sale is a sale row, and the relayer's transaction a gas row whose ETH is what its receipt says it cost", async () => {
    const account = await chain.freshWallet(USDC, 10n ** 9n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${X402_SKILL}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const settled = JSON.parse(Buffer.from(res.headers.get('payment-response')!, 'base64').toString()) as { transaction: Hex };
    const tx = settled.transaction.toLowerCase() as Hex;
    const receipt = await chain.pub.getTransactionReceipt({ hash: tx });

    const { transactions } = await stackBooks(dynamo);
    const rows = transactions.filter((r) => r.reference === tx);
    expect(rows.map((r) => r.type).sort()).toEqual(['relayer_gas', 'sale']);
    const sale = rows.find((r) => r.type === 'sale')!;
    expect(sale).toMatchObject({
      channel: 'x402',
      currency: 'USDC',
      chain: 'base',
      product: X402_SKILL,
      amount: '0.49',
      gross_usd: '0.49',
    });
    expect(sale.payer?.toLowerCase()).toBe(account.address.toLowerCase());
    const gas = rows.find((r) => r.type === 'relayer_gas')!;
    expect(gas.gas_eth).toBe(formatDecimal(receipt.gasUsed * receipt.effectiveGasPrice, 18));
    expect(gas).toMatchObject({ currency: 'ETH', gross_usd: '0', amount: gas.gas_eth });
    expect(usdString(toMicroUsd(490_000n, 6))).toBe(sale.net_usd);
    // In dollars at the ETH/USD feed's answer at the receipt's block, half up to the micro-dollar; net is minus that.
    const micro = await gasUsdMicro(receipt);
    expect(gas.gas_usd).toBe(usdString(micro));
    expect(gas.net_usd).toBe(usdString(-micro));
  });

  it('an escrowed sale (x402 auth-capture) is a sale row, and its authorize and capture each a gas row of that sale, whose ETH is what each receipt says it cost', async () => {
    const account = testAccount(171);
    await chain.setTokenBalance(USDC, account.address, 10n ** 9n);
    const client = new x402Client().register('eip155:8453', new AuthCaptureEvmScheme(account));
    const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${ESCROW_SKILL}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const authorizeTx = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction.toLowerCase() as Hex;
    const { authorize, capture } = await escrowedOnChain(chain.pub, authorizeTx);

    const { transactions, net } = await stackBooks(dynamo);
    const rows = transactions.filter((r) => r.sale === authorizeTx);
    // In any order: the authorize's end is written beside the sale's claim, so either may be first.
    expect(rows.map((r) => [r.type, r.step, r.reference]).sort()).toEqual([
      ['relayer_gas', 'authorize', authorizeTx],
      ['relayer_gas', 'capture', capture.transactionHash],
      ['sale', null, authorizeTx],
    ]);
    for (const r of rows) expect(r).toMatchObject({ channel: 'x402', scheme: 'auth-capture', chain: 'base', product: ESCROW_SKILL });
    const sale = rows.find((r) => r.type === 'sale')!;
    expect(sale).toMatchObject({ currency: 'USDC', amount: '0.25', gross_usd: '0.25', net_usd: '0.25' });
    expect(sale.payer?.toLowerCase()).toBe(account.address.toLowerCase());
    // Each transaction's gas is its receipt's gasUsed × effectiveGasPrice, priced at the feed's answer at its block.
    for (const [step, receipt] of [
      ['authorize', authorize],
      ['capture', capture],
    ] as const) {
      const gas = rows.find((r) => r.step === step)!;
      const wei = receipt.gasUsed * receipt.effectiveGasPrice;
      expect(wei).toBeGreaterThan(0n);
      const micro = await gasUsdMicro(receipt);
      expect(gas, step).toMatchObject({
        currency: 'ETH',
        amount: formatDecimal(wei, 18),
        gas_eth: formatDecimal(wei, 18),
        gas_usd: usdString(micro),
        net_usd: usdString(-micro),
      });
    }
    // The day's net rollup holds both gas rows: its gas is the sum of every gas row of the day and channel.
    const day = net.find((r) => r.day === sale.day && r.channel === 'x402')!;
    const ofDay = transactions.filter((t) => t.day === sale.day && t.channel === 'x402');
    expect(day.gas_eth).toBe(
      formatDecimal(
        ofDay.reduce((s, t) => s + parseUnits(t.gas_eth, 18), 0n),
        18,
      ),
    );
  });
});
