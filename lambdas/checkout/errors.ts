/**
 * The checkout domain's error codes (docs/CHECKOUT.md): the 400s of a creation or update, each
 * thrown with `param` naming the field, and the session's own refusals. A code whose status the
 * protocol sets (a closed session: ACP 405, UCP 409; a reused key: ACP 422, UCP 409) is thrown with it.
 */
import { errorCatalog } from '../platform/errors';

const FIX_ITEMS = 'Send exactly one line item {"id", "quantity": 1} (ACP) or {"item": {"id"}, "quantity": 1} (UCP) of a card pack.';

export const CHECKOUT_ERRORS = errorCatalog({
  LINE_ITEMS_REQUIRED: { status: 400, message: '`line_items` is required.', tip: FIX_ITEMS },
  INVALID_LINE_ITEMS: { status: 400, message: '`line_items` must hold exactly one line item.', tip: FIX_ITEMS },
  INVALID_QUANTITY: { status: 400, message: 'The quantity must be 1.', tip: 'Send quantity 1: one pack per session.' },
  ITEM_ID_REQUIRED: { status: 400, message: "The line item's id is required.", tip: FIX_ITEMS },
  UNKNOWN_ITEM: { status: 400, message: 'No pack has this id.', tip: 'GET /.well-known/acp.json lists the card packs.' },
  ITEM_NOT_SOLD_BY_CARD: { status: 400, message: 'This pack is not sold by card.', tip: 'Pay in USDC over x402: GET /api/pay?skill=<id>.' },
  INVALID_BUYER: {
    status: 400,
    message: '`buyer` must be an object.',
    tip: 'Send {"buyer": {"email": "you@example.com"}} or leave buyer out.',
  },
  INVALID_EMAIL: {
    status: 400,
    message: '`buyer.email` is not an email address.',
    tip: 'Send an address such as buyer@example.com, or leave it out.',
  },
  INVALID_CURRENCY: { status: 400, message: 'The currency must be usd.', tip: 'Send currency "usd", or leave it out.' },
  /** 503, retry false: card checkout has no Stripe keys in this deployment. */
  CHECKOUT_NOT_CONFIGURED: {
    status: 503,
    message: 'Card checkout is not configured on this deployment: it has no Stripe keys.',
    tip: 'Pay in USDC over x402 instead (GET /api/pay?skill=<id>). The operator turns card checkout on with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (docs/CHECKOUT.md).',
  },
  /** A completed, canceled or expired session cannot change (ACP: 405; UCP: 409). */
  CHECKOUT_SESSION_CLOSED: {
    status: 409,
    message: 'This checkout session can no longer change.',
    tip: 'Nothing was charged. Open a new checkout session to buy.',
  },
  /** An Idempotency-Key reused with a different request (ACP: 422; UCP: 409). */
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: 'This Idempotency-Key was used for a different request.',
    tip: 'Use a new key for a new request; resend the first request unchanged to get its answer again.',
  },
  /** The request with this Idempotency-Key is still being answered; retry after Retry-After. */
  IDEMPOTENCY_KEY_IN_FLIGHT: {
    status: 409,
    message: 'The request with this Idempotency-Key is still being answered.',
    tip: 'Retry after Retry-After seconds with the same key and body.',
    retry: true,
  },
  /** 400: a Stripe webhook whose Stripe-Signature does not hold for its body, or is stale. */
  INVALID_WEBHOOK_SIGNATURE: {
    status: 400,
    message: 'The Stripe-Signature header does not hold for this body, or it is too old.',
    tip: "Deliver Stripe's request unchanged; the endpoint's signing secret must be STRIPE_WEBHOOK_SECRET.",
  },
  /** 401: a call on a checkout session without its client secret (`Authorization: Bearer`), or with another. */
  CHECKOUT_SECRET_REQUIRED: {
    status: 401,
    message: "This call on a checkout session needs the session's client secret.",
    tip: 'Send Authorization: Bearer <client_secret>, the client_secret the creation of this session answered (only its creator has it).',
  },
  /** 403: a card pack already delivered, asked for again with the Stripe session id alone; present its license. */
  LICENSE_REQUIRED: {
    status: 403,
    message:
      "This checkout's pack was already delivered: the Stripe session id alone does not deliver it again. Present the license that delivery gave.",
    tip: 'Send it as X-LICENSE: <token> with this request (or to POST /api/pay); the success page keeps it in the browser that paid. The agent that opened the session may present its client secret instead (Authorization: Bearer <client_secret>).',
  },
});

export type CheckoutErrorCode = keyof typeof CHECKOUT_ERRORS.specs;
