/**
 * Stripe's processor fees on card sales, through the local server and the Stripe stand-in: the
 * sale keeps its charge's balance transaction (fee and net, as Stripe states them), also when
 * Stripe makes that balance transaction after the session completed (`charge.updated`), and a
 * chargeback's withdrawal keeps Stripe's dispute fee. Redeliveries change nothing.
 *
 * Every card skill is bought by other test files too, so this file makes its own sales and reads
 * only their items, never a total.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { CardSale } from '../../lambdas/ledger';
import { dynamoCardSales } from '../../lambdas/ledger/adapters/dynamo-card-sales';
import { cardSales } from '../support/card-sales';
import { STAND_IN_DISPUTE_FEE_CENTS, standInFeeCents } from '../support/stripe-stand-in';

const base = inject('baseUrl');
const stripeBase = inject('stripeBase');
const webhookSecret = inject('stripeWebhookSecret');
const db = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const sales = dynamoCardSales(db);
afterAll(() => db.destroy());

type Json = Record<string, unknown>;
const SKILL = 'ten-send';

const { stripeTest, deliver, cardSale: paidSale } = cardSales({ base, stripeBase, webhookSecret });

/** A paid card sale of its own: its Stripe session id and the stored sale. */
async function cardSale(balance: 'now' | 'later' = 'now'): Promise<{ stripeId: string; sale: CardSale }> {
  const { sessionId, stripeId } = await paidSale(SKILL, { balance_transaction: balance });
  return { stripeId, sale: (await sales.get(sessionId))! };
}

const balanceTransaction = async (txn: string): Promise<Json> =>
  (await (await fetch(`${stripeBase}/_test/balance_transactions/${txn}`)).json()) as Json;

describe("Stripe's processor fees on card sales", () => {
  it("a card sale keeps its charge's fee and net, as Stripe's balance transaction states them", async () => {
    const { sale } = await cardSale();
    expect(sale.balanceTransaction).toMatch(/^txn_/);
    expect(sale.chargeId).toMatch(/^ch_/);
    const txn = await balanceTransaction(sale.balanceTransaction!);
    expect(sale).toMatchObject({ feeCents: txn['fee'], netCents: txn['net'], feeCurrency: txn['currency'], status: 'paid' });
    expect(sale.feeCents).toBe(standInFeeCents(sale.amountCents));
    // Gross = fee + net, to the cent, from the sale's own stored facts.
    expect(BigInt(sale.feeCents!) + BigInt(sale.netCents!)).toBe(BigInt(sale.amountCents));
    // No conversion: Stripe gives no exchange rate, so none is stored.
    expect(sale.exchangeRate).toBeUndefined();
  });

  it('a balance transaction Stripe makes after the session completed arrives by charge.updated, once', async () => {
    const { stripeId, sale } = await cardSale('later');
    // The sale stands without its fee.
    expect(sale).toMatchObject({ status: 'paid' });
    expect(sale.feeCents).toBeUndefined();
    expect((await fetch(`${base}/api/checkout/delivery?session_id=${stripeId}`)).status).toBe(200);

    const updated = await stripeTest(`/_test/sessions/${stripeId}/balance`);
    expect(await deliver(updated)).toMatchObject({ outcome: 'fee_recorded' });
    const withFee = (await sales.get(sale.id))!;
    const txn = await balanceTransaction(withFee.balanceTransaction!);
    expect(withFee).toMatchObject({ feeCents: txn['fee'], netCents: txn['net'], feeCurrency: 'usd', status: 'paid' });
    expect(withFee.feeCents! + withFee.netCents!).toBe(withFee.amountCents);

    // A replay, and the same fact under another event id: nothing changes.
    expect(await deliver(updated)).toMatchObject({ duplicate: true });
    expect(await deliver({ ...updated, id: `${String(updated['id'])}_again` })).toMatchObject({ outcome: 'unchanged' });
    expect(await sales.get(sale.id)).toEqual(withFee);
  });

  it("a chargeback's withdrawal keeps Stripe's dispute fee; won, the reinstatement keeps the fee given back", async () => {
    const { stripeId, sale } = await cardSale();
    const opened = await stripeTest(`/_test/sessions/${stripeId}/dispute`);
    expect(await deliver(opened)).toMatchObject({ outcome: 'dispute_recorded' });
    const dispute = (opened['data'] as { object: { id: string; balance_transactions: Json[] } }).object;
    const withdrawn = (await sales.get(sale.id))!.reversals![`dispute:${dispute.id}:withdrawn`]!;
    expect(withdrawn).toMatchObject({
      kind: 'dispute_withdrawal',
      amountCents: sale.amountCents,
      feeCents: dispute.balance_transactions[0]!['fee'],
    });
    expect(withdrawn.feeCents).toBe(STAND_IN_DISPUTE_FEE_CENTS);
    expect(await deliver({ ...opened, id: `${String(opened['id'])}_again` })).toMatchObject({ outcome: 'unchanged' });

    const closed = await stripeTest(`/_test/disputes/${dispute.id}/close`, { status: 'won' });
    expect(await deliver(closed)).toMatchObject({ outcome: 'dispute_recorded' });
    const after = (await sales.get(sale.id))!;
    expect(after.status).toBe('paid');
    expect(after.reversals![`dispute:${dispute.id}:reinstated`]).toMatchObject({
      kind: 'dispute_reinstatement',
      amountCents: -sale.amountCents,
      feeCents: -STAND_IN_DISPUTE_FEE_CENTS,
    });
    // The sale's own fee is untouched by the dispute.
    expect(after.feeCents).toBe(sale.feeCents);
  });
});
