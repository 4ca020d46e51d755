/**
 * Refunds and disputes of card sales through the local server: Stripe's signed `charge.refunded`,
 * `charge.dispute.created` and `charge.dispute.closed` events (made by the Stripe stand-in, as an
 * operator refunding in the dashboard or a card holder's bank would cause them) change the sale,
 * and the sale's license stops or works again by what they say; redeliveries change nothing.
 */
import { describe, expect, inject, it } from 'vitest';
import { cardSales } from '../support/card-sales';
import { stripeEvent } from '../support/stripe-stand-in';

const base = inject('baseUrl');
const {
  stripeTest,
  deliver,
  cardSale: sale,
} = cardSales({
  base,
  stripeBase: inject('stripeBase'),
  webhookSecret: inject('stripeWebhookSecret'),
});

type Json = Record<string, unknown>;
const SKILL = 'csv-cleaner';
const PRICE_CENTS = 1000;

/** A paid card sale of the skill: its Stripe session id and the license its success page delivered. */
const cardSale = () => sale(SKILL);

/** The license's way back to the pack: POST /api/pay with X-LICENSE. */
async function redeem(license: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': license } });
  return { status: res.status, body: (await res.json()) as Json };
}

const purchase = async (license: string): Promise<Json> => {
  const res = await fetch(`${base}/api/purchases`, { headers: { 'x-license': license } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { purchases: Json[] }).purchases[0]!;
};

describe('card refunds and disputes', () => {
  it('a partial refund leaves the license working; the rest refunded stops it everywhere; redeliveries change nothing', async () => {
    const { stripeId, license } = await cardSale();
    expect((await redeem(license)).status).toBe(200);

    const partial = await stripeTest(`/_test/sessions/${stripeId}/refund`, { amount: 300 });
    expect(await deliver(partial)).toMatchObject({ outcome: 'refund_recorded' });
    expect(await deliver(partial)).toMatchObject({ duplicate: true });
    expect((await redeem(license)).status).toBe(200);
    expect(await purchase(license)).toMatchObject({ status: 'paid', refunded_cents: 300, download: { method: 'POST' } });

    const rest = await stripeTest(`/_test/sessions/${stripeId}/refund`);
    expect(await deliver(rest)).toMatchObject({ outcome: 'refund_recorded' });
    // The older event again under a new id (Stripe's order is not guaranteed): the total stands.
    expect(await deliver({ ...partial, id: `${String(partial['id'])}_late` })).toMatchObject({ outcome: 'unchanged' });

    const refused = await redeem(license);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ ok: false, error_code: 'CARD_SALE_REVERSED', retry: false });
    expect(String(refused.body['message'])).toContain('refunded');
    expect(refused.body['sealed_pack']).toBeUndefined();
    // The success page gives nothing either, with the license or as the first caller.
    const page = await fetch(`${base}/api/checkout/delivery?session_id=${stripeId}`, { headers: { 'x-license': license } });
    expect(page.status).toBe(403);
    expect(((await page.json()) as Json)['error_code']).toBe('CARD_SALE_REVERSED');
    expect((await fetch(`${base}/api/checkout/delivery?session_id=${stripeId}`)).status).toBe(403);
    // The buyer still sees the purchase, and that it was refunded.
    expect(await purchase(license)).toMatchObject({ how: 'card', status: 'refunded', refunded_cents: PRICE_CENTS, download: null });
  });

  it('a dispute stops the license while open; won, it works again; lost, it stays stopped', async () => {
    const won = await cardSale();
    const opened = await stripeTest(`/_test/sessions/${won.stripeId}/dispute`);
    expect(await deliver(opened)).toMatchObject({ outcome: 'dispute_recorded' });
    expect((await redeem(won.license)).body).toMatchObject({ error_code: 'CARD_SALE_REVERSED' });
    expect(await purchase(won.license)).toMatchObject({ status: 'disputed', download: null });
    const dispute = (opened['data'] as { object: Json }).object['id'] as string;
    const closedWon = await stripeTest(`/_test/disputes/${dispute}/close`, { status: 'won' });
    expect(await deliver(closedWon)).toMatchObject({ outcome: 'dispute_recorded' });
    expect(await deliver({ ...closedWon, id: `${String(closedWon['id'])}_again` })).toMatchObject({ outcome: 'unchanged' });
    expect((await redeem(won.license)).status).toBe(200);

    const lost = await cardSale();
    const lostOpened = await stripeTest(`/_test/sessions/${lost.stripeId}/dispute`);
    const lostId = (lostOpened['data'] as { object: Json }).object['id'] as string;
    // Closed first, opened after (Stripe delivers in any order): the same end as in order.
    expect(await deliver(await stripeTest(`/_test/disputes/${lostId}/close`, { status: 'lost' }))).toMatchObject({
      outcome: 'dispute_recorded',
    });
    expect(await deliver(lostOpened)).toMatchObject({ outcome: 'unchanged' });
    expect((await redeem(lost.license)).body).toMatchObject({ error_code: 'CARD_SALE_REVERSED' });
  });

  it('an inquiry (a warning, no money moved) leaves the license working', async () => {
    const sale = await cardSale();
    const inquiry = await stripeTest(`/_test/sessions/${sale.stripeId}/dispute`, { status: 'warning_needs_response' });
    expect(await deliver(inquiry)).toMatchObject({ outcome: 'dispute_recorded' });
    expect((await redeem(sale.license)).status).toBe(200);
  });

  it("another integration's refund on the same Stripe account is acknowledged and changes nothing here", async () => {
    const foreign = stripeEvent(
      'charge.refunded',
      { id: 'ch_foreign', object: 'charge', amount: 500, amount_refunded: 500, payment_intent: 'pi_foreign', metadata: {} },
      'evt_foreign_refund',
    );
    expect(await deliver(foreign)).toMatchObject({ outcome: 'not_ours' });
  });
});
