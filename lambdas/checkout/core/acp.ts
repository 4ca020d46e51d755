/**
 * The ACP face (Agentic Commerce Protocol, agentic checkout, version 2026-04-17): a session in
 * ACP's CheckoutSession shape, plus the spec's own `amount`, `intent` and `method`. ACP names our
 * states ready_for_payment, in_progress, completed, canceled and expired; a closed session
 * answers 405 to a change, and a reused Idempotency-Key 422 (docs/CHECKOUT.md).
 */
import { links } from '../../contract/links';
import type { CardSale } from '../../payments';
import type { CheckoutSession, ProtocolFace, SessionState } from '../ports';

export const ACP_VERSION = '2026-04-17';

const STATUS: Record<SessionState, string> = {
  open: 'ready_for_payment',
  processing: 'in_progress',
  completed: 'completed',
  canceled: 'canceled',
  expired: 'expired',
};

/** The one way a pack is fulfilled: delivered as files, nothing shipped. */
const DIGITAL = 'digital_delivery';

const total = (type: string, display_text: string, amount: number) => ({ type, display_text, amount });

function messages(session: CheckoutSession, notice: 'payment_pending' | undefined) {
  const plain = (content: string) => ({ type: 'info', content_type: 'plain', content });
  switch (session.state) {
    case 'open':
      return [
        notice === 'payment_pending'
          ? {
              type: 'error',
              code: 'payment_declined',
              content_type: 'plain',
              content: 'No payment yet: the buyer pays at continue_url, then complete again.',
            }
          : plain('Pay by card at continue_url (Stripe Checkout); the pack is delivered once Stripe confirms the payment.'),
      ];
    case 'processing':
      return [plain('The payment is being confirmed by the card processor; complete again shortly.')];
    case 'completed':
      return [plain('Paid. The order permalink shows the pack and its license.')];
    case 'canceled':
      return [
        plain(session.closedReason === 'payment_failed' ? 'The payment failed; nothing was charged.' : 'Canceled; nothing was charged.'),
      ];
    case 'expired':
      return [plain('The checkout page expired unpaid; nothing was charged.')];
  }
}

export function acpView(session: CheckoutSession, sale: CardSale | undefined, baseUrl: string, notice?: 'payment_pending') {
  const l = links(baseUrl);
  const amount = session.amountCents;
  return {
    id: session.id,
    status: STATUS[session.state],
    currency: session.currency,
    ...(session.buyerEmail ? { buyer: { email: session.buyerEmail } } : {}),
    line_items: [
      {
        id: `li_${session.skill}`,
        item: { id: session.skill, quantity: 1 },
        base_amount: amount,
        discount: 0,
        subtotal: amount,
        tax: 0,
        total: amount,
      },
    ],
    fulfillment_options: [
      {
        type: 'digital',
        id: DIGITAL,
        title: 'Instant delivery',
        subtitle: 'The sealed pack and its license, on the success page',
        subtotal: 0,
        tax: 0,
        total: 0,
      },
    ],
    fulfillment_option_id: DIGITAL,
    totals: [
      total('items_base_amount', 'Item(s) total', amount),
      total('subtotal', 'Subtotal', amount),
      total('tax', 'Tax', 0),
      total('total', 'Total', amount),
    ],
    messages: messages(session, notice),
    links: [],
    payment_provider: { provider: 'stripe', supported_payment_methods: ['card'] },
    capabilities: { payment: { handlers: [{ id: 'stripe_checkout', name: 'Stripe Checkout (hosted card page)', method: 'card' }] } },
    continue_url: session.continueUrl,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    expires_at: session.expiresAt,
    // The spec's fields: the amount in cents, a one-off charge, by card.
    amount,
    intent: 'charge',
    method: 'card',
    ...(sale
      ? { order: { id: `ord_${sale.id}`, checkout_session_id: session.id, permalink_url: l.checkout_success_of(sale.stripeSessionId) } }
      : {}),
  };
}

export const ACP_FACE: ProtocolFace = {
  protocol: 'acp',
  view: acpView,
  headers: { 'api-version': ACP_VERSION },
  closedStatus: 405,
  reusedKeyStatus: 422,
};
