/** The 402 PAYMENT_VERIFICATION_FAILED answer every payment flow gives when a payment does not (yet) pay. */
import type { AppError } from '../platform/errors';
import { PAYMENT_ERRORS } from './errors';

/** What a buyer should do next, by flow and by whether waiting can help. */
const TIPS = {
  transfer: {
    retry: 'Wait 2 to 5 seconds and POST again (backoff 2 s, 4 s, 8 s); check the transaction on a Base block explorer.',
    final: 'This transfer cannot unlock the skill. Check it on a Base block explorer; pay the current challenge to unlock.',
  },
  authorization: {
    retry: 'Send the same request again in a few seconds (backoff 2 s, 4 s, 8 s); nothing is charged twice.',
    final:
      'Sign a new authorization for the challenge in PAYMENT-REQUIRED (the x402 `exact` scheme), or pay by transfer and POST /api/pay with X-PAYMENT.',
  },
} as const;

/** 402 with the spec's code; `details.reason` says why, `retry` whether the same request can still succeed. */
export const verificationFailed = (
  flow: keyof typeof TIPS,
  message: string,
  retry: boolean,
  details: Record<string, unknown>,
  headers?: Record<string, string>,
): AppError =>
  PAYMENT_ERRORS.PAYMENT_VERIFICATION_FAILED({
    message,
    retry,
    tip: retry ? TIPS[flow].retry : TIPS[flow].final,
    details,
    ...(headers ? { headers } : {}),
  });

/** 402 for a signed payment that cannot settle; `reason` is x402's (`invalid_payload`, …) or ours, with any further details. */
export const paymentRefused = (
  reason: string,
  message: string,
  headers: Record<string, string> = {},
  retry = false,
  details: Record<string, unknown> = {},
) => verificationFailed('authorization', message, retry, { reason, ...details }, headers);
