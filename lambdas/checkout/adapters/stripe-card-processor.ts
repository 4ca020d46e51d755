/**
 * Stripe through its official SDK: hosted Checkout Sessions and signed webhook events.
 * Chosen over raw HTTP because the SDK signs nothing we must get right ourselves: it encodes
 * the request, retries with the idempotency key kept, and verifies webhook signatures with a
 * constant-time comparison and a timestamp tolerance.
 */
import Stripe from 'stripe';
import { API_ORIGIN } from '../../contract/settings';
import type { ChargeFee, DisputeFees } from '../../ledger';
import type { CardProcessor, StripeChargeView, StripeCheckoutView, StripeDisputeView } from '../ports';

export interface StripeKeys {
  secretKey: string;
  webhookSecret: string;
}

/** The SDK's host, port and protocol for an `http(s)://host:port` origin (tests' stand-in); Stripe's own API without one. */
function connection(apiBase: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  const m = apiBase ? API_ORIGIN.exec(apiBase) : null;
  if (!m) return {};
  const protocol = m[1] as 'http' | 'https';
  return { protocol, host: m[2]!.replace(/^\[|\]$/g, ''), port: m[3] ?? (protocol === 'https' ? 443 : 80) };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function view(s: Stripe.Checkout.Session): StripeCheckoutView {
  return {
    id: s.id,
    url: s.url ?? undefined,
    status: s.status ?? 'open',
    paymentStatus: s.payment_status,
    amountTotal: s.amount_total ?? undefined,
    currency: s.currency ?? undefined,
    clientReferenceId: s.client_reference_id ?? undefined,
    metadata: stringsOf(s.metadata),
    paymentIntent: idOf(s.payment_intent),
    livemode: s.livemode,
    expiresAt: s.expires_at,
    country: s.customer_details?.address?.country ?? undefined,
  };
}

const stringsOf = (m: Stripe.Metadata | null | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(m ?? {}).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
const idOf = (v: unknown): string | undefined => str(v) ?? str((v as { id?: unknown } | null)?.id);
const isoOf = (seconds: number): string => new Date(seconds * 1000).toISOString();

const chargeView = (c: Stripe.Charge): StripeChargeView => ({
  id: c.id,
  paymentIntent: idOf(c.payment_intent),
  metadata: stringsOf(c.metadata),
  amountCents: c.amount,
  amountRefundedCents: c.amount_refunded,
  balanceTransaction: idOf(c.balance_transaction),
});

/** A balance transaction's fee facts, as Stripe states them (minor units of the settlement currency). */
const feeOf = (t: Stripe.BalanceTransaction): ChargeFee => ({
  balanceTransaction: t.id,
  feeCents: t.fee,
  netCents: t.net,
  feeCurrency: t.currency,
  ...(typeof t.exchange_rate === 'number' ? { exchangeRate: String(t.exchange_rate) } : {}),
});

/**
 * The dispute's movements from its `balance_transactions` (always included in the object): the
 * withdrawal takes money from the balance (a negative amount), a won dispute's reinstatement gives
 * it back (a positive one).
 */
function disputeFees(d: Stripe.Dispute): DisputeFees {
  const moved = d.balance_transactions ?? [];
  const withdrawal = moved.find((t) => t.amount < 0);
  const reinstatement = moved.find((t) => t.amount > 0);
  return {
    ...(withdrawal ? { withdrawal: { feeCents: withdrawal.fee, currency: withdrawal.currency } } : {}),
    ...(reinstatement ? { reinstatement: { feeCents: reinstatement.fee, currency: reinstatement.currency } } : {}),
  };
}

const disputeView = (d: Stripe.Dispute): StripeDisputeView => ({
  id: d.id,
  paymentIntent: idOf(d.payment_intent),
  amountCents: d.amount,
  status: d.status,
  reason: d.reason,
  created: isoOf(d.created),
  fees: disputeFees(d),
});

/** The card processor backed by Stripe; `apiBase` overrides where the SDK connects. */
export function stripeCardProcessor(keys: StripeKeys, apiBase?: string): CardProcessor {
  const stripe = new Stripe(keys.secretKey, {
    ...connection(apiBase),
    // Idempotency keys make the SDK's retries safe; a request still ends well inside API Gateway's 30 s.
    maxNetworkRetries: 2,
    timeout: 8_000,
    telemetry: false,
    appInfo: { name: 'skill-market' },
  });
  return {
    async createCheckout(i) {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          // The spec's method is card: a filter on what Stripe would offer, so no delayed method (a bank debit) appears.
          allowed_payment_method_types: ['card'],
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: 'usd',
                unit_amount: i.amountCents,
                product_data: { name: i.name, description: i.description, metadata: { skill: i.skill } },
              },
            },
          ],
          client_reference_id: i.sessionId,
          metadata: { market: 'skill-market', session_id: i.sessionId, skill: i.skill, protocol: i.protocol },
          payment_intent_data: { metadata: { market: 'skill-market', session_id: i.sessionId, skill: i.skill, protocol: i.protocol } },
          success_url: i.successUrl,
          cancel_url: i.cancelUrl,
          expires_at: Math.floor(i.expiresAt.getTime() / 1000),
          ...(i.buyerEmail ? { customer_email: i.buyerEmail } : {}),
        },
        // One of our sessions is one Stripe session, whatever retries happen on either side.
        { idempotencyKey: `checkout-session-${i.sessionId}` },
      );
      return view(session);
    },
    async retrieveCheckout(id) {
      return view(await stripe.checkout.sessions.retrieve(id));
    },
    async expireCheckout(id) {
      try {
        await stripe.checkout.sessions.expire(id, {}, { idempotencyKey: `checkout-expire-${id}` });
        return 'expired';
      } catch (e) {
        // Stripe refuses to expire a session that is no longer open: it was paid, or it expired.
        if (e instanceof Stripe.errors.StripeInvalidRequestError && e.statusCode === 400) return 'not_open';
        throw e;
      }
    },
    async chargeFees(paymentIntent) {
      // Stripe's documented way to the fee of a PaymentIntent's payment: its latest charge's balance
      // transaction, expanded in one retrieve. Under asynchronous capture it may not exist yet.
      const pi = await stripe.paymentIntents.retrieve(paymentIntent, { expand: ['latest_charge.balance_transaction'] });
      const charge = pi.latest_charge && typeof pi.latest_charge === 'object' ? pi.latest_charge : undefined;
      const txn = charge?.balance_transaction;
      return { chargeId: idOf(pi.latest_charge), fee: txn && typeof txn === 'object' ? feeOf(txn) : undefined };
    },
    async verifyEvent(rawBody, signature) {
      let event: Stripe.Event;
      try {
        event = await stripe.webhooks.constructEventAsync(rawBody, signature, keys.webhookSecret);
      } catch (e) {
        if (e instanceof Stripe.errors.StripeSignatureVerificationError) return undefined;
        throw e;
      }
      const object = event.data.object as { object?: string };
      return {
        id: event.id,
        type: event.type,
        created: isoOf(event.created),
        session: object.object === 'checkout.session' ? view(object as Stripe.Checkout.Session) : undefined,
        charge: object.object === 'charge' ? chargeView(object as Stripe.Charge) : undefined,
        dispute: object.object === 'dispute' ? disputeView(object as Stripe.Dispute) : undefined,
      };
    },
  };
}
