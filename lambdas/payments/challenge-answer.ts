/**
 * The 402 challenge of GET /api/pay: a skill's price as the spec's challenge and as x402 v2's
 * `PaymentRequired`, serialised once per (skill, base URL), and the answer that carries them. The
 * route itself is the access domain's (lambdas/access/pay.ts), which answers both methods of
 * /api/pay; this module loads no parser, so a cold start that only challenges stays small.
 */
import { randomBytes } from 'node:crypto';
import { requireSkill } from '../catalog';
import type { AppError } from '../platform/errors';
import { jsonText, type ApiRequest, type ApiResponse } from '../platform/http';
import { lruPerOwner } from '../platform/memo';
import { buildChallenge, buildPaymentRequired, escrowClock, signInExtension, type PaymentRequiredV2 } from './core/challenge';
import { acceptedEscrowTerms, challengeMinute } from '../contract/auth-capture';
import { same } from '../contract/chain';
import type { PaymentRequirementsV2 } from '../contract/x402';
import { PAYMENT_ERRORS } from './errors';
import type { PaymentsPorts, SignedPayment } from './ports';

/** 503 PAYMENTS_DISABLED, saying why. */
export const paymentsDisabled = (why: string): AppError => PAYMENT_ERRORS.PAYMENTS_DISABLED({ message: why });

/** Whether a payment can be taken now: a sound configuration with a treasury, and payments on (else GET /api/pay refuses with 503). */
export const takesPayments = (ports: Pick<PaymentsPorts, 'config' | 'configReading'>): boolean =>
  ports.configReading.problems.length === 0 && ports.config.treasury !== undefined && ports.config.paymentsEnabled;

/** Refuses with 503 PAYMENTS_DISABLED when the payment configuration is unsafe or has no treasury. */
export function requireSoundConfig(ports: PaymentsPorts): void {
  const { problems } = ports.configReading;
  if (problems.length > 0 || !ports.config.treasury) {
    throw paymentsDisabled(`Payments are off: the deployment's payment configuration is unsafe (${problems.join(' ') || 'no treasury'}).`);
  }
}

/**
 * Serialised challenges by (ports, skill, base URL): configuration and catalog are fixed
 * for the life of a process, so the same 3 KB body and its base64 need not be rebuilt.
 */
const challenges = lruPerOwner<PaymentsPorts, SerialisedChallenge>(1000);

/** A skill's challenge, serialised: the spec's body, its base64, and x402 v2's `PaymentRequired` (with its Bazaar extension) in base64. */
export interface SerialisedChallenge {
  body: string;
  encoded: string;
  v2: PaymentRequiredV2;
  v2Encoded: string;
}

/** The serialised challenge of a skill, with every refusal GET /api/pay makes (unknown skill, payments off). */
export function challengeFor(skill: string | undefined, ports: PaymentsPorts, baseUrl: string): SerialisedChallenge {
  const entry = requireSkill(ports.catalog, skill);
  requireSoundConfig(ports);
  if (!ports.config.paymentsEnabled) throw paymentsDisabled('Payments are switched off by the operator.');
  const cache = challenges(ports);
  // An escrow offer names absolute deadlines, those of the challenge's minute: the memo is per minute then.
  // Offered only while the operator's account delegates to its guard (I2): a payment of a scheme
  // not offered is refused by requirementFor before anything is read or sent.
  const escrow = ports.x402?.escrow?.offered() ? ports.x402.escrow : undefined;
  const nowSeconds = Math.floor(ports.now().getTime() / 1000);
  const key = `${entry.id} ${baseUrl}${escrow ? ` ${challengeMinute(nowSeconds)}` : ''}`;
  let hit = cache.get(key);
  if (!hit) {
    const body = JSON.stringify(buildChallenge(entry, ports.config, baseUrl));
    const required = buildPaymentRequired(entry, ports.config, baseUrl, escrow ? { operator: escrow.operator, nowSeconds } : undefined);
    // x402's Bazaar discovery extension: how to call this resource and what the paid answer is.
    // Where the service settles signed payments itself, x402's payment-identifier too (an idempotency key; docs/PAYMENTS.md).
    const v2 = {
      ...required,
      extensions: {
        ...ports.discoveryExtension(entry, ports.catalog.packMeta(entry.id), required.resource.url),
        ...ports.x402?.paymentIds.declaration,
      },
    };
    hit = {
      body,
      encoded: Buffer.from(body).toString('base64'),
      v2,
      v2Encoded: ports.paymentRequiredHeader(v2),
    };
    cache.set(key, hit);
  }
  return hit;
}

/** A sign-in nonce: 128 random bits as 32 hex digits (EIP-4361 asks for at least 8 alphanumerics). */
const freshNonce = (): string => randomBytes(16).toString('hex');

/**
 * The answer of GET /api/pay?skill= without a payment (access's route function, and readiness's
 * live check, call it): 402 with the spec's challenge in the body and, base64, in
 * `X-PAYMENT-REQUIRED`; `PAYMENT-REQUIRED` carries the same price as x402 v2, which is the only
 * thing a stock x402 client reads, with x402's Bazaar discovery extension (how to call it, what the
 * paid answer is) and its sign-in-with-x extension for a wallet that already paid (docs/PAYMENTS.md).
 */
export function challengeAnswer(req: ApiRequest, ports: PaymentsPorts): ApiResponse {
  const hit = challengeFor(req.query['skill'], ports, req.baseUrl);
  // The sign-in challenge is fresh per answer (its nonce and time); the rest, the Bazaar extension with it, is the memoised challenge.
  const v2 = {
    ...hit.v2,
    extensions: {
      ...hit.v2.extensions,
      ...signInExtension(ports.config.network, hit.v2.resource.url, req.baseUrl, freshNonce(), ports.now()),
    },
  };
  return jsonText(402, hit.body, { 'payment-required': ports.paymentRequiredHeader(v2), 'x-payment-required': hit.encoded });
}

/**
 * The server's own requirement a signed payment chose from a challenge's `accepts` (scheme,
 * network, asset), never the client's: for `auth-capture`, with the deadlines of the challenge
 * it paid, if one of this service's recent challenges gave them (contract/auth-capture.ts). The
 * settlement and the owner check both read it here.
 */
export function requirementFor(
  payment: SignedPayment,
  accepts: readonly PaymentRequirementsV2[],
  ports: Pick<PaymentsPorts, 'config' | 'now'>,
):
  | { ok: true; requirement: PaymentRequirementsV2 }
  | { ok: false; reason: 'unsupported_scheme' | 'invalid_auth_capture_terms'; message: string } {
  const offered = accepts.find(
    (r) => r.scheme === payment.accepted.scheme && r.network === payment.accepted.network && same(r.asset, payment.accepted.asset),
  );
  if (!offered)
    return {
      ok: false,
      reason: 'unsupported_scheme',
      message: 'The payment names a scheme, network or asset this resource does not accept (see PAYMENT-REQUIRED).',
    };
  if (offered.scheme !== 'auth-capture') return { ok: true, requirement: offered };
  const terms = acceptedEscrowTerms(payment.accepted, offered, escrowClock(ports.config, Math.floor(ports.now().getTime() / 1000)));
  return terms.ok
    ? terms
    : { ok: false, reason: 'invalid_auth_capture_terms', message: `The payment's escrow terms are not this resource's: ${terms.message}.` };
}
