/**
 * GET /api/checkout/delivery?session_id=cs_…: a card sale's pack and a license, from the recorded
 * sale only (the success page's redirect proves nothing); 202 with Retry-After until Stripe has
 * confirmed the payment, 409 for a session closed unpaid. Once paid, the pack goes to whoever
 * shows one of (core/delivery.ts):
 *   1. the sale's card license (`X-LICENSE`), which every delivery hands out;
 *   2. the session's client secret (`Authorization: Bearer`), what the agent that opened it holds;
 *   3. the Stripe session id alone, the first time (one conditional write records that it was
 *      delivered, and to whom), and again for that same caller within the retry window.
 * Anyone else: 403 LICENSE_REQUIRED, naming the license.
 */
import type { CardSale } from '../ledger';
import { CARD_NETWORK, callerId, deliverCardSale, PAYMENT_ERRORS, readVersionParam } from '../payments';
import { invalidRequest, notFound, type AppError } from '../platform/errors';
import { CHECKOUT_ERRORS } from './errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { sameCallerSoon } from './core/delivery';
import { checkCreator } from './core/session-secret';
import type { CheckoutPorts, CheckoutSession } from './ports';
import { notTheCreator } from './sessions';

/** Stripe's Checkout Session ids: `cs_` then letters, digits and underscores. */
const STRIPE_SESSION_ID = /^cs_[A-Za-z0-9_]{1,250}$/;

const licenseRequired = (): AppError => CHECKOUT_ERRORS.LICENSE_REQUIRED({ details: { present: ['X-LICENSE', 'Authorization'] } });

const notThisLicense = (): AppError =>
  PAYMENT_ERRORS.INVALID_LICENSE({
    message: "The license token is not valid for this checkout's sale.",
    tip: 'Present the license this checkout delivered (the success page shows it), exactly as it was given.',
  });

/** The pack again for a license of this very sale (its `txHash` claim is the sale's id): one signature check, no new license. */
async function withLicense(sale: CardSale, license: string, ports: CheckoutPorts, baseUrl: string, version: number | undefined) {
  const claims = await ports.payments.licenses.verify(license);
  if (!claims || claims.network !== CARD_NETWORK || claims.txHash !== sale.id || claims.skill !== sale.skill) throw notThisLicense();
  return deliverCardSale(sale, ports.payments, baseUrl, license, version);
}

/** Whether this request, with the Stripe id alone, may have the pack: the first delivery, or its caller soon after. */
async function firstOrSameCaller(session: CheckoutSession, req: ApiRequest, ports: CheckoutPorts): Promise<boolean> {
  const caller = callerId(req.sourceIp);
  const now = ports.now();
  let current: CheckoutSession = session;
  if (current.deliveredAt === undefined) {
    const claim = await ports.sessions.claimFirstDelivery(session.id, caller, now);
    if (claim.first) return true;
    current = claim.current ?? session;
  }
  return sameCallerSoon(current, caller, now, ports.payments.config.retryWindowSeconds);
}

export async function getCheckoutDelivery(req: ApiRequest, ports: CheckoutPorts): Promise<ApiResponse> {
  const stripeId = req.query['session_id'];
  if (!stripeId || !STRIPE_SESSION_ID.test(stripeId)) {
    throw invalidRequest(
      'session_id',
      '`session_id` must be the Stripe Checkout Session id (cs_…) of the success URL.',
      'Open the link Stripe redirected you to.',
    );
  }
  const session = await ports.sessions.byStripeId(stripeId);
  if (!session)
    throw notFound('No checkout session of this service has that Stripe session id.', 'Open the link Stripe redirected you to.');
  const sale = await ports.payments.cardSales.get(session.id);
  if (!sale) {
    if (session.state === 'canceled' || session.state === 'expired') {
      throw CHECKOUT_ERRORS.CHECKOUT_SESSION_CLOSED({
        message: `This checkout session is ${session.state} and was not paid: nothing was charged.`,
        tip: 'Open a new checkout session to buy the pack.',
      });
    }
    return json(
      202,
      {
        ok: true,
        status: 'waiting_for_confirmation',
        skill_id: session.skill,
        message: 'Waiting for Stripe to confirm the payment; the pack appears here as soon as it does.',
        retry_after_seconds: 2,
      },
      { 'retry-after': '2' },
    );
  }

  // A re-download may ask for a version the sale covers (docs/ACCESS.md, "Versions"); the current one otherwise.
  const version = readVersionParam(req.query['version']);
  const license = req.headers['x-license'];
  if (license !== undefined) return json(200, await withLicense(sale, license, ports, req.baseUrl, version));
  const authorization = req.headers['authorization'];
  if (authorization !== undefined) {
    const check = checkCreator(session.secretHash, authorization);
    if (check !== 'creator') throw notTheCreator(check);
    return json(200, await deliverCardSale(sale, ports.payments, req.baseUrl, undefined, version));
  }
  // The Stripe id alone (the first delivery, or its caller soon after) gets the current version: a version refused
  // after the first delivery is claimed would leave the buyer without the license that asks for it.
  if (await firstOrSameCaller(session, req, ports)) return json(200, await deliverCardSale(sale, ports.payments, req.baseUrl));
  throw licenseRequired();
}
