/**
 * The life of a checkout session, the same for ACP and UCP (each protocol only names the
 * states and shapes the answer its own way, in core/acp.ts and core/ucp.ts):
 *
 *   open ──paid on the hosted page, Stripe confirms──▶ completed (card sale + license)
 *     │  └─paid by a method that confirms later──▶ processing ──confirmed──▶ completed
 *     │                                                        └─failed──▶ canceled
 *     ├─cancel (the hosted page is expired first)──▶ canceled
 *     └─the hosted page expires unpaid──▶ expired
 *
 * A sale is recorded only from Stripe's own record of the payment: its signed webhook, or the
 * Checkout Session read back from Stripe's API when the agent calls complete. Never from the
 * browser's redirect. Every change is one conditional write, so racing deliveries agree.
 */
import { links } from '../contract/links';
import type { CardSale } from '../ledger';
import { invalidRequest, notFound, type AppError } from '../platform/errors';
import { CHECKOUT_ERRORS } from './errors';
import type { ApiRequest } from '../platform/http';
import { logger } from '../platform/logger';
import { readCreate, readBuyer } from './core/create-request';
import { checkCreator, hashSecret, type CreatorCheck } from './core/session-secret';
import type { CardProcessor, CheckoutPorts, CheckoutSession, Protocol, SessionState, StripeChargeFees, StripeCheckoutView } from './ports';
import { METRICS } from '../contract/metrics';
import { countMetric } from '../platform/metrics';

/** ISO 3166-1 alpha-2, as Stripe reports a billing address's country. */
const COUNTRY_CODE = /^[A-Z]{2}$/;
/** How long the hosted page takes payment: Stripe's default and longest, so a person an agent sends there has a day. */
export const SESSION_SECONDS = 24 * 3600;
/** The states from which a session can still be paid, updated or canceled. */
const OPEN: readonly SessionState[] = ['open'];
/** Every state a confirmed payment completes: money Stripe took is never left without its pack. */
const PAYABLE: readonly SessionState[] = ['open', 'processing', 'canceled', 'expired'];
/** The marker in Stripe metadata that says a Checkout Session is one of ours (an account may sell other things). */
export const STRIPE_MARKER = { market: 'skill-market' } as const;

const notConfigured = (): AppError => CHECKOUT_ERRORS.CHECKOUT_NOT_CONFIGURED();

/** Stripe, or 503 CHECKOUT_NOT_CONFIGURED. */
export async function requireCard(ports: CheckoutPorts): Promise<CardProcessor> {
  const card = await ports.card();
  if (!card) throw notConfigured();
  return card;
}

/** A refusal for a session that can no longer change; each protocol has its status for it (ACP 405, UCP 409). */
export const sessionClosed = (session: CheckoutSession, status: number, action: string): AppError =>
  CHECKOUT_ERRORS.CHECKOUT_SESSION_CLOSED({
    status,
    message: `This checkout session is ${session.state}: it cannot be ${action}.`,
    ...(session.state === 'completed' ? { tip: 'The pack is paid for: GET the session for its order and the success page.' } : {}),
  });

/** The session with this id on this protocol's paths; 404 otherwise (a UCP id is unknown to ACP, and vice versa). */
export async function loadSession(protocol: Protocol, id: string | undefined, ports: CheckoutPorts): Promise<CheckoutSession> {
  const session = id ? await ports.sessions.get(id) : undefined;
  if (!session || session.protocol !== protocol) {
    throw notFound(`No ${protocol.toUpperCase()} checkout session has the id "${id ?? ''}".`, 'Use the id the creation answered.');
  }
  return session;
}

/**
 * The refusal of a call that did not come with the session's client secret: 401 with RFC 6750's
 * `WWW-Authenticate` (`invalid_token` when one was presented), or 400 for an `Authorization`
 * header that is no bearer credential at all.
 */
export function notTheCreator(check: Exclude<CreatorCheck, 'creator'>): AppError {
  const tip =
    'Send Authorization: Bearer <client_secret>, the client_secret the creation of this session answered (only its creator has it).';
  if (check === 'malformed') return invalidRequest('Authorization', 'The Authorization header must be "Bearer <client_secret>".', tip);
  return CHECKOUT_ERRORS.CHECKOUT_SECRET_REQUIRED({
    message:
      check === 'missing'
        ? "This call on a checkout session needs the session's client secret."
        : "The client secret presented is not this checkout session's.",
    tip,
    headers: {
      'www-authenticate':
        check === 'missing' ? 'Bearer realm="checkout-session"' : 'Bearer realm="checkout-session", error="invalid_token"',
    },
  });
}

/**
 * The session with this id on this protocol's paths, for a call only its creator may make (read,
 * update, complete, cancel): 404 for an unknown id, then 401 without its client secret. Our
 * session id is in URLs and logs; the secret is not.
 */
export async function loadOwnedSession(protocol: Protocol, req: ApiRequest, ports: CheckoutPorts): Promise<CheckoutSession> {
  const session = await loadSession(protocol, req.pathParameters['id'], ports);
  const check = checkCreator(session.secretHash, req.headers['authorization']);
  if (check !== 'creator') throw notTheCreator(check);
  return session;
}

/** The sale of a completed session (the order), if recorded. */
export const saleOf = (session: CheckoutSession, ports: CheckoutPorts): Promise<CardSale | undefined> =>
  session.state === 'completed' ? ports.payments.cardSales.get(session.id) : Promise.resolve(undefined);

/**
 * Validates, then opens the Stripe Checkout Session and stores ours. Amount, currency and item
 * come from the catalog's price source; the client chooses only which card pack. Answers the
 * session and its client secret, which is stored only as a hash: this is the one time it is told.
 */
export async function openSession(
  protocol: Protocol,
  body: Record<string, unknown>,
  ports: CheckoutPorts,
  baseUrl: string,
): Promise<{ session: CheckoutSession; secret: string }> {
  const { catalog } = ports.payments;
  const request = readCreate(protocol, body, catalog);
  const card = await requireCard(ports);
  const entry = catalog.get(request.skill)!;
  const amountCents = catalog.pricing.cardCents[request.skill]!;
  const now = ports.now();
  const id = ports.newId();
  const secret = ports.newSecret();
  const l = links(baseUrl);
  const stripe = await card.createCheckout({
    sessionId: id,
    protocol,
    skill: entry.id,
    name: entry.name,
    description: entry.summary,
    amountCents,
    buyerEmail: request.buyerEmail,
    successUrl: l.checkout_success,
    cancelUrl: l.checkout_cancel,
    expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000),
  });
  if (!stripe.url) throw new Error(`Stripe answered Checkout Session ${stripe.id} without a url`);
  const session: CheckoutSession = {
    id,
    protocol,
    skill: entry.id,
    name: entry.name,
    amountCents,
    currency: 'usd',
    buyerEmail: request.buyerEmail,
    state: 'open',
    stripeSessionId: stripe.id,
    continueUrl: stripe.url,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiresAt: new Date((stripe.expiresAt ?? now.getTime() / 1000 + SESSION_SECONDS) * 1000).toISOString(),
    secretHash: hashSecret(secret),
  };
  // Stored after Stripe answered: a crash in between leaves a Stripe page whose URL nobody was given.
  await ports.sessions.create(session);
  return { session, secret };
}

/** Changes the buyer's email of an open session; `item` (UCP's full replacement) must name the session's own pack. */
export async function updateSession(
  session: CheckoutSession,
  body: Record<string, unknown>,
  ports: CheckoutPorts,
  closedStatus: number,
): Promise<CheckoutSession> {
  if (body['line_items'] !== undefined) {
    const { skill } = readCreate(session.protocol, body, ports.payments.catalog);
    if (skill !== session.skill) {
      throw CHECKOUT_ERRORS.INVALID_LINE_ITEMS({
        param: session.protocol === 'ucp' ? 'line_items[0].item.id' : 'line_items[0].id',
        message: `This session sells ${session.skill}; its item cannot change.`,
        tip: 'Open a new checkout session for another pack.',
      });
    }
  }
  const buyerEmail = readBuyer(body);
  if (!OPEN.includes(session.state)) throw sessionClosed(session, closedStatus, 'updated');
  if (buyerEmail === undefined) return session;
  const result = await ports.sessions.transition(session.id, OPEN, { buyerEmail }, ports.now());
  if (!result.ok) throw sessionClosed(result.current ?? session, closedStatus, 'updated');
  return result.session;
}

/**
 * The sale's charge and Stripe's fee on it, for the books. Never a reason not to record the sale:
 * when Stripe cannot be asked now, or has no balance transaction yet, the sale is recorded without
 * them and `charge.updated` brings the fee (webhook.ts).
 */
export async function chargeFeesOf(paymentIntent: string | undefined, ports: CheckoutPorts): Promise<StripeChargeFees | undefined> {
  if (!paymentIntent) return undefined;
  try {
    return await (await ports.card())?.chargeFees(paymentIntent);
  } catch (e) {
    logger.warn('Stripe fee not read at the sale: charge.updated fills it in', { paymentIntent, error: String(e) });
    return undefined;
  }
}

export type Fulfilment = 'recorded' | 'already_recorded' | 'not_ours' | 'unpaid' | 'amount_mismatch';

/**
 * Records the card sale of a Checkout Session Stripe reports paid, then marks our session
 * completed. Both writes are idempotent, and the sale comes first: a crash in between leaves a
 * sale whose session a redelivery (or complete) marks completed; never a completed session
 * without its sale.
 */
export async function fulfil(stripe: StripeCheckoutView, ports: CheckoutPorts): Promise<Fulfilment> {
  if (stripe.metadata['market'] !== STRIPE_MARKER.market) return 'not_ours';
  const id = stripe.clientReferenceId ?? stripe.metadata['session_id'];
  const session = id ? await ports.sessions.get(id) : undefined;
  if (!session || session.stripeSessionId !== stripe.id) {
    // A Stripe session of ours is stored before its URL is given to anyone, so an unknown one cannot have been paid for a pack.
    logger.error('Stripe Checkout Session not found among ours', { stripeSessionId: stripe.id, clientReferenceId: id });
    return 'not_ours';
  }
  if (stripe.paymentStatus !== 'paid') return 'unpaid';
  if (stripe.currency !== 'usd' || (stripe.amountTotal ?? 0) < session.amountCents) {
    logger.error('Stripe collected less than the price: no pack delivered; refund or reconcile by hand', {
      sessionId: session.id,
      stripeSessionId: stripe.id,
      amountTotal: stripe.amountTotal,
      currency: stripe.currency,
      priceCents: session.amountCents,
    });
    return 'amount_mismatch';
  }
  const now = ports.now();
  // The pack as sold, from the server's catalog, kept on the sale: what its receipt states.
  const seal = ports.payments.catalog.packMeta(session.skill)?.seal;
  const fees = await chargeFeesOf(stripe.paymentIntent, ports);
  const { recorded, sale } = await ports.payments.cardSales.record({
    id: session.id,
    protocol: session.protocol,
    skill: session.skill,
    amountCents: stripe.amountTotal!,
    priceCents: session.amountCents,
    currency: 'usd',
    stripeSessionId: stripe.id,
    paymentIntent: stripe.paymentIntent,
    livemode: stripe.livemode,
    recordedAt: now.toISOString(),
    status: 'paid',
    ...(seal ? { packSeal: seal } : {}),
    ...(stripe.country && COUNTRY_CODE.test(stripe.country) ? { buyerCountry: stripe.country } : {}),
    ...(fees?.chargeId ? { chargeId: fees.chargeId } : {}),
    ...(fees?.chargeId && fees.fee ? fees.fee : {}),
  });
  // Recorded before the fee existed (an earlier delivery): this delivery's fee fills it in, once.
  if (!recorded && sale.feeCents === undefined && fees?.chargeId && fees.fee)
    await ports.payments.cardSales.recordFee(sale.id, fees.chargeId, fees.fee);
  if (session.state !== 'completed') {
    if (session.state === 'canceled' || session.state === 'expired') {
      logger.warn('a payment completed a session that was closed: the sale stands', { sessionId: session.id, state: session.state });
    }
    await ports.sessions.transition(session.id, PAYABLE, { state: 'completed' }, now);
  }
  // Counted once per sale: only the delivery that recorded it.
  if (recorded) countMetric(METRICS.checkoutCompletions);
  return recorded ? 'recorded' : 'already_recorded';
}

/** Marks a session whose payment Stripe will confirm later (a delayed method). */
export const markProcessing = (session: CheckoutSession, ports: CheckoutPorts) =>
  ports.sessions.transition(session.id, OPEN, { state: 'processing' }, ports.now());

/**
 * complete: the payment is made on the hosted page, so completing asks Stripe (server to
 * server) whether it was; a paid session is fulfilled exactly as the webhook would, so an agent
 * that completes before the webhook arrives still gets its order.
 */
export async function completeSession(
  session: CheckoutSession,
  ports: CheckoutPorts,
  closedStatus: number,
): Promise<{ session: CheckoutSession; paid: boolean }> {
  if (session.state === 'completed') return { session, paid: true };
  if (session.state === 'canceled' || session.state === 'expired') throw sessionClosed(session, closedStatus, 'completed');
  const card = await requireCard(ports);
  const stripe = await card.retrieveCheckout(session.stripeSessionId);
  const outcome = await fulfil(stripe, ports);
  if (outcome === 'recorded' || outcome === 'already_recorded')
    return { session: (await ports.sessions.get(session.id)) ?? session, paid: true };
  if (stripe.status === 'expired') {
    const expired = await ports.sessions.transition(session.id, OPEN, { state: 'expired', closedReason: 'expired' }, ports.now());
    throw sessionClosed(expired.ok ? expired.session : (expired.current ?? session), closedStatus, 'completed');
  }
  if (stripe.status === 'complete' && stripe.paymentStatus === 'unpaid') {
    const processing = await markProcessing(session, ports);
    return { session: processing.ok ? processing.session : (processing.current ?? session), paid: false };
  }
  return { session, paid: false };
}

/**
 * cancel: the hosted page is expired at Stripe first, so no payment can land after the
 * session says canceled; if Stripe says the page is no longer open, it was paid (fulfilled
 * here) or expired, and the session is closed either way.
 */
export async function cancelSession(session: CheckoutSession, ports: CheckoutPorts, closedStatus: number): Promise<CheckoutSession> {
  if (!OPEN.includes(session.state)) throw sessionClosed(session, closedStatus, 'canceled');
  const card = await requireCard(ports);
  if ((await card.expireCheckout(session.stripeSessionId)) === 'not_open') {
    const stripe = await card.retrieveCheckout(session.stripeSessionId);
    const outcome = await fulfil(stripe, ports);
    if (stripe.status === 'expired')
      await ports.sessions.transition(session.id, OPEN, { state: 'expired', closedReason: 'expired' }, ports.now());
    // Paid by a method that confirms later: the session is processing, and its outcome comes by webhook.
    else if (outcome === 'unpaid') await markProcessing(session, ports);
    throw sessionClosed((await ports.sessions.get(session.id)) ?? session, closedStatus, 'canceled');
  }
  const result = await ports.sessions.transition(session.id, OPEN, { state: 'canceled', closedReason: 'canceled' }, ports.now());
  if (!result.ok) throw sessionClosed(result.current ?? session, closedStatus, 'canceled');
  return result.session;
}
