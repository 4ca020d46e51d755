/**
 * The UCP face (Universal Commerce Protocol, checkout capability, version 2026-08-25): a
 * session in UCP's checkout shape with its `ucp` envelope. Payment happens on the hosted card
 * page, which UCP calls escalation: an open session is `requires_escalation` with the page as
 * `continue_url` and a message of severity `requires_buyer_input`, as UCP requires. A closed
 * session answers 409 to a change, as does a reused Idempotency-Key (docs/CHECKOUT.md).
 */
import { links } from '../../contract/links';
import type { CardSale } from '../../ledger';
import type { AppError } from '../../platform/errors';
import type { CheckoutSession, ProtocolFace, SessionState } from '../ports';
import { paidMessage } from './delivery';

export const UCP_VERSION = '2026-08-25';
export const UCP_CHECKOUT_CAPABILITY = 'dev.ucp.shopping.checkout';
/**
 * The one payment handler, keyed by its reverse-domain name as UCP's registries are: Stripe's
 * hosted Checkout page, which the buyer reaches by escalation (continue_url).
 */
export const UCP_PAYMENT_HANDLERS = { 'com.stripe.checkout': [{ id: 'stripe_checkout', version: UCP_VERSION }] } as const;
export const UCP_CAPABILITIES = { [UCP_CHECKOUT_CAPABILITY]: [{ version: UCP_VERSION }] } as const;

/** UCP's protocol errors carry `code` and `content` (docs/specification/shopping/checkout/rest.md). */
export const ucpErrorFields = (e: AppError): Record<string, unknown> => ({ code: e.code.toLowerCase(), content: e.message });

const STATUS: Record<SessionState, string> = {
  open: 'requires_escalation',
  processing: 'complete_in_progress',
  completed: 'completed',
  canceled: 'canceled',
  expired: 'canceled',
};

function messages(session: CheckoutSession, notice: 'payment_pending' | undefined, baseUrl: string) {
  const info = (code: string, content: string) => ({ type: 'info', code, content_type: 'plain', content });
  switch (session.state) {
    case 'open':
      return [
        {
          type: 'error',
          code: notice === 'payment_pending' ? 'payment_required' : 'requires_escalation',
          path: '$',
          content_type: 'plain',
          content: 'The buyer pays by card at continue_url (Stripe Checkout); the pack is delivered once Stripe confirms the payment.',
          severity: 'requires_buyer_input',
        },
      ];
    case 'processing':
      return [info('payment_processing', 'The card processor is confirming the payment; complete again shortly.')];
    case 'completed':
      return [info('order_placed', paidMessage(session, baseUrl))];
    case 'canceled':
      return [
        info(
          'canceled',
          session.closedReason === 'payment_failed' ? 'The payment failed; nothing was charged.' : 'Canceled; nothing was charged.',
        ),
      ];
    case 'expired':
      return [info('expired', 'The checkout page expired unpaid; nothing was charged.')];
  }
}

export function ucpView(session: CheckoutSession, sale: CardSale | undefined, baseUrl: string, notice?: 'payment_pending') {
  const l = links(baseUrl);
  const amount = session.amountCents;
  const totals = [
    { type: 'subtotal', display_text: 'Subtotal', amount },
    { type: 'total', display_text: 'Total', amount },
  ];
  return {
    ucp: { version: UCP_VERSION, status: 'success', capabilities: UCP_CAPABILITIES, payment_handlers: UCP_PAYMENT_HANDLERS },
    id: session.id,
    status: STATUS[session.state],
    currency: session.currency.toUpperCase(),
    line_items: [{ id: `li_${session.skill}`, item: { id: session.skill, title: session.name, price: amount }, quantity: 1, totals }],
    ...(session.buyerEmail ? { buyer: { email: session.buyerEmail } } : {}),
    totals,
    messages: messages(session, notice, baseUrl),
    // UCP's well-known link types for the seller's pages (catalog/storefront/operator-pages.ts).
    links: [
      { type: 'terms_of_service', url: l.terms_page },
      { type: 'privacy_policy', url: l.privacy_page },
      { type: 'refund_policy', url: l.refunds_page },
    ],
    ...(session.state === 'open' ? { continue_url: session.continueUrl } : {}),
    expires_at: session.expiresAt,
    payment: { instruments: [] },
    // The spec's fields: the amount in cents, a one-off charge, by card.
    amount,
    intent: 'charge',
    method: 'card',
    ...(sale ? { order: { id: `ord_${sale.id}`, permalink_url: l.checkout_success_of(sale.stripeSessionId) } } : {}),
  };
}

export const UCP_FACE: ProtocolFace = {
  protocol: 'ucp',
  view: ucpView,
  errorFields: ucpErrorFields,
  headers: {},
  closedStatus: 409,
  reusedKeyStatus: 409,
};
