/**
 * The checkout domain's view of the outside: its sessions, the answers saved for
 * Idempotency-Keys, the Stripe events already handled, and the card processor (Stripe).
 * Interfaces only; `wiring.ts` builds them and `adapters/` implements them.
 */
import type { CardSale, ChargeFee, DisputeFees } from '../ledger';
import type { PaymentsPorts } from '../payments';
import type { AppError } from '../platform/errors';

/** The agentic-commerce protocol a session was opened with; a session answers only on its own protocol's paths. */
export type Protocol = 'acp' | 'ucp';

/**
 * Where a session stands, in our own words; each protocol names these its own way (core/views.ts).
 * `open`: payable on the hosted page. `processing`: paid by a method that confirms later.
 * `completed`: Stripe confirmed the payment and the sale is recorded. `canceled`: by the buyer, or
 * a payment that failed. `expired`: the hosted page closed unpaid.
 */
export type SessionState = 'open' | 'processing' | 'completed' | 'canceled' | 'expired';

/** One checkout session, one item (quantity 1): the catalog's card price at creation. */
export interface CheckoutSession {
  id: string;
  protocol: Protocol;
  skill: string;
  /** The pack's name when the session was opened: the line item's title. */
  name: string;
  amountCents: number;
  currency: 'usd';
  buyerEmail: string | undefined;
  state: SessionState;
  /** Why it closed without a sale: the buyer or agent canceled, the payment failed, or the page expired. */
  closedReason?: 'canceled' | 'payment_failed' | 'expired' | undefined;
  /** Stripe's Checkout Session: its id (cs_…) and hosted page, the session's `continue_url`. */
  stripeSessionId: string;
  continueUrl: string;
  createdAt: string;
  updatedAt: string;
  /** When the hosted page stops taking payment (Stripe's `expires_at`). */
  expiresAt: string;
  /**
   * sha256 (hex) of the session's client secret, the one thing only its creator holds: the secret
   * itself is answered once, on creation, and never stored. Absent on sessions created before
   * secrets existed, which then no secret opens.
   */
  secretHash?: string | undefined;
  /** When the pack was first delivered for the Stripe session id alone, and to whom (a pseudonym of the caller's address). */
  deliveredAt?: string | undefined;
  deliveredTo?: string | undefined;
}

/** The first delivery for a Stripe session id alone: this caller's, or someone's before it. */
export type FirstDelivery = { first: true } | { first: false; current: CheckoutSession | undefined };

export type TransitionResult = { ok: true; session: CheckoutSession } | { ok: false; current: CheckoutSession | undefined };

/** Sessions in DynamoDB; every change is one conditional write on one item. */
export interface CheckoutSessions {
  create(session: CheckoutSession): Promise<void>;
  get(id: string): Promise<CheckoutSession | undefined>;
  /** The session whose Stripe Checkout Session this is (the success page knows only Stripe's id). */
  byStripeId(stripeSessionId: string): Promise<CheckoutSession | undefined>;
  /**
   * Applies `patch` (and a new `updatedAt`) only while the session is in one of `from`: one
   * conditional UpdateItem, so a webhook and a cancel that race cannot both win. On a lost race
   * (or no session) it answers the session as it now is.
   */
  transition(
    id: string,
    from: readonly SessionState[],
    patch: Partial<Pick<CheckoutSession, 'state' | 'closedReason' | 'buyerEmail'>>,
    now: Date,
  ): Promise<TransitionResult>;
  /**
   * Records the first delivery for the Stripe session id alone (one conditional write: only
   * while none is recorded), with the caller's pseudonym; a second caller learns it was not first.
   */
  claimFirstDelivery(id: string, caller: string | undefined, now: Date): Promise<FirstDelivery>;
}

/** A response saved for an Idempotency-Key. */
export interface SavedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyBegin =
  /** First use of the key (or a stale in-flight one taken over): run the request, then `finish` or `abandon`. */
  | { kind: 'started' }
  /** The same request was answered before: send the saved answer again. */
  | { kind: 'replay'; response: SavedResponse }
  /** The same key is being answered right now. */
  | { kind: 'in_flight'; retryAfterSeconds: number }
  /** The key was used for a different request. */
  | { kind: 'mismatch' };

/** Idempotency-Keys per scope (protocol, and whose key it is): the first request with a key runs, later ones get its saved answer. */
export interface IdempotencyKeys {
  /** Claims the key for the request whose fingerprint is given (one conditional write). */
  begin(scope: string, key: string, fingerprint: string, now: Date): Promise<IdempotencyBegin>;
  /** Saves the answer to replay; kept for a day. */
  finish(scope: string, key: string, fingerprint: string, response: SavedResponse, now: Date): Promise<void>;
  /** Releases the key after a fault, so a retry runs again (nothing was saved to replay). */
  abandon(scope: string, key: string, fingerprint: string): Promise<void>;
}

/** Stripe events already handled, so a redelivery changes nothing and costs one read. */
export interface HandledEvents {
  seen(eventId: string): Promise<boolean>;
  /** Remembered after the event's effects are written, so a crash in between means a redelivery redoes them (they are idempotent). */
  remember(eventId: string, type: string, now: Date): Promise<void>;
}

/** What card checkout needs from Stripe's Checkout Session, in Stripe's own field names. */
export interface StripeCheckoutView {
  id: string;
  url: string | undefined;
  status: 'open' | 'complete' | 'expired' | string;
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required' | string;
  amountTotal: number | undefined;
  currency: string | undefined;
  clientReferenceId: string | undefined;
  metadata: Record<string, string>;
  paymentIntent: string | undefined;
  livemode: boolean;
  expiresAt: number | undefined;
  /** The buyer's country (ISO 3166-1 alpha-2) from the billing address Stripe collected, when it has one. */
  country: string | undefined;
}

/** A verified webhook event. */
export interface StripeEventView {
  id: string;
  type: string;
  /** When Stripe created the event (ISO time): when a refund or dispute happened, for the books. */
  created: string;
  /** Set for `checkout.session.*` events. */
  session: StripeCheckoutView | undefined;
  /** Set for `charge.*` events other than disputes (`charge.refunded`). */
  charge?: StripeChargeView | undefined;
  /** Set for `charge.dispute.*` events. */
  dispute?: StripeDisputeView | undefined;
}

/** What the books need of a Charge: whose payment it is and how much of it is refunded in all. */
export interface StripeChargeView {
  id: string;
  paymentIntent: string | undefined;
  /** Copied by Stripe from the PaymentIntent when it was confirmed: ours carry `market` and `session_id`. */
  metadata: Record<string, string>;
  amountCents: number;
  /** Cents refunded so far in all (`amount_refunded`). */
  amountRefundedCents: number;
  /** The charge's balance transaction id (txn_…), once Stripe has made it (`charge.updated` tells when). */
  balanceTransaction: string | undefined;
}

/** What the books need of a Dispute. */
export interface StripeDisputeView {
  id: string;
  paymentIntent: string | undefined;
  amountCents: number;
  /** Stripe's status: `warning_*` for an inquiry (no money moves), `needs_response`…, then `won` or `lost`. */
  status: string;
  reason: string;
  created: string;
  /** What the dispute's `balance_transactions` say it moved: the withdrawal's and a reinstatement's fees. */
  fees: DisputeFees;
}

/** The charge that paid a PaymentIntent, and its fee once its balance transaction exists. */
export interface StripeChargeFees {
  chargeId: string | undefined;
  fee: ChargeFee | undefined;
}

export interface CreateCheckoutInput {
  sessionId: string;
  protocol: Protocol;
  skill: string;
  name: string;
  description: string;
  amountCents: number;
  buyerEmail: string | undefined;
  successUrl: string;
  cancelUrl: string;
  expiresAt: Date;
}

/** The card processor: Stripe, through its official SDK. */
export interface CardProcessor {
  /** A hosted Checkout Session; the same `sessionId` always yields the same Stripe session (its idempotency key). */
  createCheckout(input: CreateCheckoutInput): Promise<StripeCheckoutView>;
  retrieveCheckout(stripeSessionId: string): Promise<StripeCheckoutView>;
  /** Closes the hosted page; `not_open` when Stripe says it is no longer open (paid or expired meanwhile). */
  expireCheckout(stripeSessionId: string): Promise<'expired' | 'not_open'>;
  /**
   * The PaymentIntent's charge and its balance transaction's fee (one retrieve, expanded); `fee`
   * undefined while Stripe has not made the balance transaction yet (asynchronous capture).
   */
  chargeFees(paymentIntent: string): Promise<StripeChargeFees>;
  /** The event if its Stripe-Signature holds for this exact body (and is recent), else undefined. */
  verifyEvent(rawBody: string, signature: string): Promise<StripeEventView | undefined>;
}

/** Everything the checkout routes use. */
export interface CheckoutPorts {
  /** The catalog, packs, licenses and card sales: payments keeps the money records and signs licenses. */
  payments: PaymentsPorts;
  sessions: CheckoutSessions;
  idempotency: IdempotencyKeys;
  events: HandledEvents;
  /** Stripe, or undefined when card checkout is not configured (no secret key or no webhook secret). */
  card: () => Promise<CardProcessor | undefined>;
  now: () => Date;
  newId: () => string;
  /** A new session's client secret (256 random bits). */
  newSecret: () => string;
}

/**
 * One protocol's face on the shared session routes: how it names the states and shapes the
 * session, and which HTTP status its standard gives a closed session and a reused Idempotency-Key.
 */
export interface ProtocolFace {
  protocol: Protocol;
  /** The session in the standard's shape; `notice` adds a message (e.g. payment not made yet). */
  view(session: CheckoutSession, sale: CardSale | undefined, baseUrl: string, notice?: 'payment_pending'): Record<string, unknown>;
  /** Headers every answer of this protocol carries (e.g. the version it speaks). */
  headers: Record<string, string>;
  /** What the protocol's clients read in an error, beside the spec's failure body. */
  errorFields(error: AppError): Record<string, unknown>;
  /** ACP: 405; UCP: 409. */
  closedStatus: number;
  /** ACP: 422; UCP: 409. */
  reusedKeyStatus: number;
}
