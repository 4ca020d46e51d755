/**
 * Issue 12 figures, side by side in one run on loopback: creating an ACP checkout session
 * through the local server (validation, the Stripe SDK's request to the stand-in, one
 * DynamoDB put) next to the Stripe leg alone (the same SDK call straight to the stand-in),
 * interleaved so both see the same machine; then handling a signed checkout.session.completed
 * (signature check, one sale put, one session update, the event's record) and the success
 * page's delivery of the pack.
 * Usage: npx tsx bench/checkout.ts [sessions=30]
 */
import Stripe from 'stripe';
import { startStripeStandIn } from '../test/support/stripe-stand-in';
import { percentile, startMarket } from './harness';

const n = Number(process.argv[2] ?? '30');
const stand = await startStripeStandIn();
const market = await startMarket({
  STRIPE_SECRET_KEY: stand.secretKey,
  STRIPE_WEBHOOK_SECRET: stand.webhookSecret,
  STRIPE_API_BASE: stand.base,
});
stand.setWebhookUrl(`${market.url}/api/checkout/stripe-webhook`);
const { hostname, port } = new URL(stand.base);
const sdk = new Stripe(stand.secretKey, { host: hostname, port: Number(port), protocol: 'http', telemetry: false });

const time = async <T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
};
const summary = (label: string, xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { label, p50: percentile(s, 50), p90: percentile(s, 90), n: s.length };
};

try {
  const created: number[] = [];
  const stripeOnly: number[] = [];
  const webhook: number[] = [];
  const delivery: number[] = [];
  const sessions: { id: string; stripeId: string }[] = [];
  for (let i = 0; i < n + 3; i++) {
    const ours = await time(async () => {
      const res = await fetch(`${market.url}/api/acp/checkout_sessions`, {
        method: 'POST',
        body: JSON.stringify({ line_items: [{ id: 'ten-send', quantity: 1 }] }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { id: string; continue_url: string };
    });
    const alone = await time(() =>
      sdk.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 1900, product_data: { name: 'Ten Send' } } }],
          success_url: `${market.url}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
        },
        { idempotencyKey: `bench-${i}-${Date.now()}` },
      ),
    );
    // The first three warm both paths up (JIT, connections) and are not counted.
    if (i < 3) continue;
    created.push(ours.ms);
    stripeOnly.push(alone.ms);
    sessions.push({ id: ours.value.id, stripeId: ours.value.continue_url.split('/').at(-1)! });
  }
  for (const s of sessions) {
    const event = await (await fetch(`${stand.base}/_test/sessions/${s.stripeId}/pay`, { method: 'POST' })).text();
    const signature = sdk.webhooks.generateTestHeaderString({ payload: event, secret: stand.webhookSecret });
    const hook = await time(async () => {
      const res = await fetch(`${market.url}/api/checkout/stripe-webhook`, {
        method: 'POST',
        headers: { 'stripe-signature': signature },
        body: event,
      });
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
      return res.json();
    });
    webhook.push(hook.ms);
    const got = await time(async () => {
      const res = await fetch(`${market.url}/api/checkout/delivery?session_id=${s.stripeId}`);
      if (res.status !== 200) throw new Error(`delivery answered ${res.status}`);
      return res.json();
    });
    delivery.push(got.ms);
  }
  const rows = [
    summary('POST /api/acp/checkout_sessions (201)', created),
    summary('  the Stripe SDK call alone, same stand-in', stripeOnly),
    summary('POST /api/checkout/stripe-webhook (completed, paid)', webhook),
    summary('GET /api/checkout/delivery (pack + license)', delivery),
  ];
  for (const r of rows) console.log(`${r.label.padEnd(54)} p50 ${r.p50.toFixed(1)} ms  p90 ${r.p90.toFixed(1)} ms  (n=${r.n})`);
  console.log(`creation / Stripe leg alone, p50: ${(rows[0]!.p50 / rows[1]!.p50).toFixed(2)}x`);
} finally {
  await market.stop();
  await stand.close();
}
