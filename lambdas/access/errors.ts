/** The access domain's own error codes (docs/ACCESS.md); the payment codes it answers are payments' (PAYMENT_ERRORS). */
import { errorCatalog } from '../platform/errors';

export const ACCESS_ERRORS = errorCatalog({
  /** 402: a meter draw the balance does not cover; top the meter up. */
  METER_BALANCE_LOW: {
    status: 402,
    message: 'The meter cannot pay this draw; nothing was charged.',
    tip: 'Top the meter up: GET /api/meter for the challenge, transfer, POST {"action":"top_up","txHash"}.',
  },
  /** 403: a meter draw past the cap its wallet set for the month. */
  METER_CAP_REACHED: {
    status: 403,
    message: "This draw would pass the meter's monthly cap; nothing was charged.",
    tip: 'Raise the cap (action set_cap, signed by the wallet) or wait for next month (UTC).',
  },
  /** 401: GET /api/purchases without a proof of the wallet. */
  SIGN_IN_REQUIRED: {
    status: 401,
    message: 'Sign in with the wallet to see what it bought.',
    tip: 'Send header SIGN-IN-WITH-X: an EIP-4361 message for uri <base>/api/purchases signed by the wallet (docs/ACCESS.md), or X-LICENSE with a license for one purchase.',
  },
  /** 401: a purchases session that expired, was tampered with, or was never this service's. */
  SESSION_EXPIRED: {
    status: 401,
    message: 'The sign-in session has expired or is not valid.',
    tip: 'Sign in again with SIGN-IN-WITH-X; a session lasts 15 minutes.',
  },
  /** 409: a renewal of a subscription its wallet cancelled; start it again instead. */
  SUBSCRIPTION_CANCELLED: {
    status: 409,
    message: 'The subscription was cancelled, so it cannot be renewed.',
    tip: 'POST the same txHash with {"action":"start"}: it starts the plan again (the transfer counts once).',
  },
});
