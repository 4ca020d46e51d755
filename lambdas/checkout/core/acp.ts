/**
 * The ACP face (Agentic Commerce Protocol, agentic checkout, version 2026-04-17): a session in
 * ACP's CheckoutSession shape, plus the spec's own `amount`, `intent` and `method`. ACP names our
 * states ready_for_payment, in_progress, completed, canceled and expired; a closed session
 * answers 405 to a change, and a reused Idempotency-Key 422 (docs/CHECKOUT.md).
 */
import { links } from '../../contract/links';
import type { CardSale } from '../../ledger';
import type { AppError, ErrorCode } from '../../platform/errors';
import type { CheckoutSession, ProtocolFace, SessionState } from '../ports';
import { paidMessage } from './delivery';

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

/** ACP's error `code` for each of our refusals (its Error object: `type`, `code`, `message`, `param`). */
const ACP_CODES: Partial<Record<ErrorCode, string>> = {
  LINE_ITEMS_REQUIRED: 'missing',
  ITEM_ID_REQUIRED: 'missing',
  UNKNOWN_ITEM: 'not_found',
  not_found: 'not_found',
  ITEM_NOT_SOLD_BY_CARD: 'unsupported',
  CHECKOUT_SESSION_CLOSED: 'conflict',
  IDEMPOTENCY_KEY_REUSED: 'idempotency_conflict',
  IDEMPOTENCY_KEY_IN_FLIGHT: 'idempotency_in_flight',
};

export function acpErrorFields(e: AppError): Record<string, unknown> {
  const type = e.status === 503 ? 'service_unavailable' : e.status >= 500 ? 'processing_error' : 'invalid_request';
  return { type, code: ACP_CODES[e.code] ?? (e.status === 400 ? 'invalid' : e.code.toLowerCase()) };
}

function messages(session: CheckoutSession, notice: 'payment_pending' | undefined, baseUrl: string) {
  const info = (content: string) => ({ type: 'info', content_type: 'plain', content });
  switch (session.state) {
    case 'open':
      return [
        notice === 'payment_pending'
          ? {
              type: 'error',
              code: 'intervention_required',
              resolution: 'requires_buyer_input',
              content_type: 'plain',
              content: 'Not paid yet: the buyer pays by card at continue_url, then complete again.',
            }
          : {
              ...info('The buyer pays by card at continue_url (Stripe Checkout); the pack is delivered once Stripe confirms the payment.'),
              resolution: 'requires_buyer_input',
            },
      ];
    case 'processing':
      return [info('The payment is being confirmed by the card processor; complete again shortly.')];
    case 'completed':
      return [info(paidMessage(session, baseUrl))];
    case 'canceled':
      return [
        info(session.closedReason === 'payment_failed' ? 'The payment failed; nothing was charged.' : 'Canceled; nothing was charged.'),
      ];
    case 'expired':
      return [info('The checkout page expired unpaid; nothing was charged.')];
  }
}

export function acpView(session: CheckoutSession, sale: CardSale | undefined, baseUrl: string, notice?: 'payment_pending') {
  const amount = session.amountCents;
  const lineId = `li_${session.skill}`;
  const title = session.name;
  return {
    id: session.id,
    protocol: { version: ACP_VERSION },
    // Payment happens on Stripe's hosted page (continue_url): no delegated payment handler is offered.
    capabilities: { interventions: { supported: [], display_context: 'redirect', redirect_context: 'external_browser' } },
    status: STATUS[session.state],
    currency: session.currency,
    ...(session.buyerEmail ? { buyer: { email: session.buyerEmail } } : {}),
    line_items: [
      {
        id: lineId,
        item: { id: session.skill, name: title, unit_amount: amount },
        quantity: 1,
        name: title,
        unit_amount: amount,
        totals: [total('items_base_amount', 'Item', amount), total('total', 'Total', amount)],
      },
    ],
    fulfillment_options: [
      {
        type: 'digital',
        id: DIGITAL,
        title: 'Instant delivery',
        description: 'The sealed pack and its license, on the order permalink',
        totals: [total('fulfillment', 'Delivery', 0)],
      },
    ],
    selected_fulfillment_options: [{ type: 'digital', option_id: DIGITAL, item_ids: [lineId] }],
    totals: [
      total('items_base_amount', 'Item(s) total', amount),
      total('subtotal', 'Subtotal', amount),
      total('tax', 'Tax', 0),
      total('total', 'Total', amount),
    ],
    messages: messages(session, notice, baseUrl),
    // ACP's link types for the seller's pages (catalog/storefront/operator-pages.ts); the refund policy is its shop policy.
    links: [
      { type: 'terms_of_use', url: links(baseUrl).terms_page },
      { type: 'privacy_policy', url: links(baseUrl).privacy_page },
      { type: 'seller_shop_policies', url: links(baseUrl).refunds_page },
    ],
    continue_url: session.continueUrl,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    expires_at: session.expiresAt,
    // The spec's fields: the amount in cents, a one-off charge, by card.
    amount,
    intent: 'charge',
    method: 'card',
    ...(sale
      ? {
          order: {
            id: `ord_${sale.id}`,
            checkout_session_id: session.id,
            permalink_url: links(baseUrl).checkout_success_of(sale.stripeSessionId),
            status: 'confirmed',
          },
        }
      : {}),
  };
}

export const ACP_FACE: ProtocolFace = {
  protocol: 'acp',
  view: acpView,
  errorFields: acpErrorFields,
  headers: { 'api-version': ACP_VERSION },
  closedStatus: 405,
  reusedKeyStatus: 422,
};
