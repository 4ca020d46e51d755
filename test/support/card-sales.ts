/**
 * Card sales through the running stack and the Stripe stand-in, as a buyer and Stripe make them:
 * a checkout session opened with ACP, paid at the stand-in, Stripe's signed events delivered to
 * the webhook; and the stand-in's test endpoints an operator's refund or a bank's dispute cause.
 */
import Stripe from 'stripe';
import { expect } from 'vitest';

type Json = Record<string, unknown>;

export function cardSales(o: { base: string; stripeBase: string; webhookSecret: string }) {
  const signer = new Stripe('sk_test_signer_only');

  /** A stand-in test endpoint (pay, refund, dispute, close): answers the event Stripe would send. */
  async function stripeTest(path: string, body: Json = {}): Promise<Json> {
    const res = await fetch(`${o.stripeBase}${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  }

  /** Delivers an event to the webhook, signed with the endpoint's secret, as Stripe does. */
  async function deliver(event: unknown): Promise<Json> {
    const payload = JSON.stringify(event);
    const res = await fetch(`${o.base}/api/checkout/stripe-webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret: o.webhookSecret }),
      },
      body: payload,
    });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  /**
   * A paid card sale of `skill`: our session id, Stripe's, and the license its success page
   * delivered. `pay` is the stand-in's payment options (e.g. `{ balance_transaction: 'later' }`).
   */
  async function cardSale(skill: string, pay: Json = {}): Promise<{ sessionId: string; stripeId: string; license: string }> {
    const res = await fetch(`${o.base}/api/acp/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ line_items: [{ id: skill, quantity: 1 }] }),
    });
    const created = (await res.json()) as Json;
    expect(res.status, JSON.stringify(created)).toBe(201);
    const stripeId = String(created['continue_url']).split('/').at(-1)!;
    expect((await deliver(await stripeTest(`/_test/sessions/${stripeId}/pay`, pay)))['outcome']).toBe('recorded');
    const delivered = (await (await fetch(`${o.base}/api/checkout/delivery?session_id=${stripeId}`)).json()) as Json;
    return { sessionId: String(created['id']), stripeId, license: (delivered['license'] as Json)['token'] as string };
  }

  return { stripeTest, deliver, cardSale };
}
