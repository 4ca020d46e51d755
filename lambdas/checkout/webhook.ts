/**
 * POST /api/checkout/stripe-webhook: Stripe's signed events, the one place a card payment
 * becomes a sale without the agent asking. Stripe delivers at least once and in any order, so
 * each event is handled idempotently (per event id, and per session through the conditional
 * writes), and an event that arrives after a later state changes nothing.
 */
import type { CardChange, CardSale } from '../ledger';
import { internalError, type AppError } from '../platform/errors';
import { CHECKOUT_ERRORS } from './errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { fulfil, markProcessing, requireCard, type Fulfilment } from './sessions';
import type { CheckoutPorts, StripeChargeView, StripeEventView } from './ports';

const invalidSignature = (): AppError => CHECKOUT_ERRORS.INVALID_WEBHOOK_SIGNATURE();

type Outcome =
  Fulfilment | 'processing' | 'closed' | 'unchanged' | 'ignored' | 'refund_recorded' | 'dispute_recorded' | 'fee_recorded' | 'not_ours';

/** The `metadata.market` this service sets on its PaymentIntents (stripe-card-processor.ts), which Stripe copies to their charges. */
const OUR_MARKET = 'skill-market';

/**
 * A refund or dispute of one of our card sales, applied to the sale (one conditional write; the
 * license then stands or stops by the sale's status). The sale is found by our session id, which
 * Stripe copied from the PaymentIntent to the charge, or else by the PaymentIntent (a dispute
 * names only that).
 */
type Found = { sessionId: string | undefined; paymentIntent: string | undefined; ours: boolean };

async function saleOf(found: Found, ports: CheckoutPorts): Promise<CardSale | undefined> {
  const sales = ports.payments.cardSales;
  const sale =
    (found.sessionId ? await sales.get(found.sessionId) : undefined) ??
    (found.paymentIntent ? await sales.byPaymentIntent(found.paymentIntent) : undefined);
  if (!sale || (found.paymentIntent && sale.paymentIntent && sale.paymentIntent !== found.paymentIntent)) {
    // A charge of ours whose sale is not recorded yet (Stripe delivers in any order): 503 makes Stripe
    // deliver it again, after the sale. Anything else is another integration's payment.
    if (found.ours) throw internalError('The sale of this charge is not recorded yet; Stripe delivers the event again.');
    return undefined;
  }
  return sale;
}

async function changeSale(found: Found, change: CardChange, ports: CheckoutPorts): Promise<Outcome> {
  const sale = await saleOf(found, ports);
  if (!sale) return 'not_ours';
  const result = await ports.payments.cardSales.change(sale.id, change);
  if (!result?.applied) return 'unchanged';
  return change.kind === 'refund' ? 'refund_recorded' : 'dispute_recorded';
}

/**
 * `charge.updated` with a balance transaction: Stripe made it after the sale was recorded
 * (asynchronous capture), so the fee is read now, by the same expanded retrieve as at the sale,
 * and written once (`recordFee`'s condition). A sale that has its fee costs no call to Stripe.
 */
async function recordLateFee(charge: StripeChargeView, ports: CheckoutPorts): Promise<Outcome> {
  const sale = await saleOf({ sessionId: charge.metadata['session_id'], paymentIntent: charge.paymentIntent, ours: true }, ports);
  if (!sale) return 'not_ours';
  if (sale.feeCents !== undefined || !sale.paymentIntent) return 'unchanged';
  const { chargeId, fee } = await (await requireCard(ports)).chargeFees(sale.paymentIntent);
  // The event says the balance transaction exists: a read without it is Stripe not caught up, so Stripe delivers again.
  if (!fee || !chargeId)
    throw internalError("Stripe's balance transaction of this charge is not readable yet; Stripe delivers the event again.");
  return (await ports.payments.cardSales.recordFee(sale.id, chargeId, fee))?.applied ? 'fee_recorded' : 'unchanged';
}

async function handle(event: StripeEventView, ports: CheckoutPorts): Promise<Outcome> {
  const { charge, dispute } = event;
  if (event.type === 'charge.updated' && charge) {
    if (charge.metadata['market'] !== OUR_MARKET) return 'not_ours';
    // Other updates of a charge (its description, its receipt) say nothing of money.
    return charge.balanceTransaction ? recordLateFee(charge, ports) : 'ignored';
  }
  if (event.type === 'charge.refunded' && charge) {
    const ours = charge.metadata['market'] === OUR_MARKET;
    return changeSale(
      { sessionId: ours ? charge.metadata['session_id'] : undefined, paymentIntent: charge.paymentIntent, ours },
      { kind: 'refund', refundedCents: charge.amountRefundedCents, at: event.created, event: event.id },
      ports,
    );
  }
  if ((event.type === 'charge.dispute.created' || event.type === 'charge.dispute.closed') && dispute) {
    // Stripe's `warning_*` states are inquiries (an early fraud warning): no money moves, the license stands.
    const facts = {
      id: dispute.id,
      amountCents: dispute.amountCents,
      reason: dispute.reason,
      inquiry: dispute.status.startsWith('warning_'),
      fees: dispute.fees,
    };
    const change: CardChange =
      event.type === 'charge.dispute.created'
        ? { kind: 'dispute_opened', dispute: facts, at: event.created, event: event.id }
        : {
            kind: 'dispute_closed',
            dispute: { ...facts, openedAt: dispute.created },
            outcome: dispute.status === 'won' ? 'won' : dispute.status === 'lost' ? 'lost' : 'closed',
            at: event.created,
            event: event.id,
          };
    return changeSale({ sessionId: undefined, paymentIntent: dispute.paymentIntent, ours: false }, change, ports);
  }
  const stripe = event.session;
  if (!stripe) return 'ignored';
  const id = stripe.clientReferenceId ?? stripe.metadata['session_id'];
  switch (event.type) {
    case 'checkout.session.completed': {
      // Completed with payment_status unpaid: a delayed method; async_payment_succeeded follows.
      const outcome = await fulfil(stripe, ports);
      if (outcome !== 'unpaid') return outcome;
      const session = id ? await ports.sessions.get(id) : undefined;
      if (!session || session.stripeSessionId !== stripe.id) return 'not_ours';
      return (await markProcessing(session, ports)).ok ? 'processing' : 'unchanged';
    }
    case 'checkout.session.async_payment_succeeded':
      return fulfil(stripe, ports);
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const session = id ? await ports.sessions.get(id) : undefined;
      if (!session || session.stripeSessionId !== stripe.id) return 'not_ours';
      const failed = event.type === 'checkout.session.async_payment_failed';
      // Only an open (or, for a failed payment, processing) session closes: a late `expired` never undoes a completed sale.
      const result = await ports.sessions.transition(
        session.id,
        failed ? ['open', 'processing'] : ['open'],
        failed ? { state: 'canceled', closedReason: 'payment_failed' } : { state: 'expired', closedReason: 'expired' },
        ports.now(),
      );
      return result.ok ? 'closed' : 'unchanged';
    }
    default:
      return 'ignored';
  }
}

export async function postStripeWebhook(req: ApiRequest, ports: CheckoutPorts): Promise<ApiResponse> {
  const signature = req.headers['stripe-signature'];
  if (!signature || req.body === undefined) throw invalidSignature();
  // Without keys a signed event cannot be verified: 503 makes Stripe retry until the operator sets them.
  const card = await requireCard(ports);
  const event = await card.verifyEvent(req.body, signature);
  if (!event) throw invalidSignature();
  if (await ports.events.seen(event.id)) return json(200, { received: true, event: event.id, duplicate: true });
  const outcome = await handle(event, ports);
  // Remembered only once its effects are written: a fault before this makes Stripe redeliver, and the effects are idempotent.
  await ports.events.remember(event.id, event.type, ports.now());
  return json(200, { received: true, event: event.id, type: event.type, outcome });
}
