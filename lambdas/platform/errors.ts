/**
 * The one error model. Every failure the API reports is an {@link AppError}; the
 * error handler middleware turns it into the spec's failure body in one place.
 */

/** Error codes the API emits. The first group is the spec's; the rest are ours (documented in docs/ARCHITECTURE.md). */
export type ErrorCode =
  | 'SKILL_REQUIRED'
  | 'PAYMENT_REQUIRED'
  | 'PROOF_REQUIRED'
  | 'PAYMENT_VERIFICATION_FAILED'
  | 'INVALID_LICENSE'
  | 'AP2_MANDATE_REJECTED'
  | 'not_found'
  | 'INTERNAL_ERROR'
  | 'PAYMENTS_DISABLED'
  | 'INVALID_REQUEST'
  | 'INVALID_JSON'
  | 'PAYLOAD_TOO_LARGE'
  | 'METHOD_NOT_ALLOWED'
  /** 403: a claimed transfer asked for again without the buyer's license or wallet signature. */
  | 'BUYER_PROOF_REQUIRED'
  /** 403: a SIGN-IN-WITH-X proof that does not hold (field, signature or reused nonce). */
  | 'INVALID_WALLET_SIGNATURE'
  /** 403: a first claim not signed by the paying wallet where one is required or was offered. */
  | 'PAYER_PROOF_REQUIRED'
  /** 431: the request's header block is over the edge's limit (the local edge, as CloudFront). */
  | 'HEADERS_TOO_LARGE'
  /** 408: the client did not send a complete request in time (the local edge). */
  | 'REQUEST_TIMEOUT'
  /** 429: one caller over a route's per-caller limit (the route table's `rateLimit`); retry after Retry-After. */
  | 'RATE_LIMITED'
  /** 402: a meter draw the balance does not cover; top the meter up. */
  | 'METER_BALANCE_LOW'
  /** 403: a meter draw past the cap its wallet set for the month. */
  | 'METER_CAP_REACHED'
  /** 409: a renewal of a subscription its wallet cancelled; start it again instead. */
  | 'SUBSCRIPTION_CANCELLED'
  /** 400s of checkout creation and update, each with `param` naming the field (docs/CHECKOUT.md). */
  | 'LINE_ITEMS_REQUIRED'
  | 'INVALID_LINE_ITEMS'
  | 'INVALID_QUANTITY'
  | 'ITEM_ID_REQUIRED'
  | 'UNKNOWN_ITEM'
  | 'ITEM_NOT_SOLD_BY_CARD'
  | 'INVALID_BUYER'
  | 'INVALID_EMAIL'
  | 'INVALID_CURRENCY'
  /** 503, retry false: card checkout has no Stripe keys in this deployment. */
  | 'CHECKOUT_NOT_CONFIGURED'
  /** A checkout session that is completed, canceled or expired cannot change (ACP: 405; UCP: 409). */
  | 'CHECKOUT_SESSION_CLOSED'
  /** 409: complete asked before Stripe has confirmed the payment on the hosted page. */
  | 'PAYMENT_NOT_COMPLETED'
  /** An Idempotency-Key reused with a different request (ACP: 422; UCP: 409). */
  | 'IDEMPOTENCY_KEY_REUSED'
  /** 409: the request with this Idempotency-Key is still being answered; retry after Retry-After. */
  | 'IDEMPOTENCY_KEY_IN_FLIGHT'
  /** 400: a Stripe webhook whose Stripe-Signature does not hold for its body (or is stale). */
  | 'INVALID_WEBHOOK_SIGNATURE'
  /** 401: a call on a checkout session without its client secret (`Authorization: Bearer`), or with another. */
  | 'CHECKOUT_SECRET_REQUIRED'
  /** 403: a card pack already delivered, asked for again with the Stripe session id alone; present its license. */
  | 'LICENSE_REQUIRED'
  /** 403, retry false: a request that did not come through the edge (no valid origin secret): the API's own endpoint is not served. */
  | 'ORIGIN_REQUIRED';

/** The spec's failure body. */
export interface FailureBody {
  ok: false;
  error: string;
  error_code: ErrorCode;
  message: string;
  retry: boolean;
  tip: string;
  /** The offending request field, in the ACP/UCP path form (`line_items[0].quantity`). */
  param?: string;
  /** Extra machine-readable detail, e.g. which parameter was wrong. */
  details?: Record<string, unknown>;
}

export interface AppErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  tip: string;
  retry?: boolean;
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A failure with everything needed to answer the client: HTTP status, error_code, retry and tip. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly tip: string;
  readonly retry: boolean;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(init: AppErrorInit) {
    super(init.message);
    this.name = 'AppError';
    this.status = init.status;
    this.code = init.code;
    this.tip = init.tip;
    this.retry = init.retry ?? false;
    this.param = init.param;
    this.details = init.details;
    this.headers = init.headers;
  }
}

/** Builds the failure body; `error` is the lower-case snake name of the code, as the spec shows. */
export function failureBody(err: AppError): FailureBody {
  const body: FailureBody = {
    ok: false,
    error: err.code.toLowerCase(),
    error_code: err.code,
    message: err.message,
    retry: err.retry,
    tip: err.tip,
  };
  if (err.param !== undefined) body.param = err.param;
  if (err.details !== undefined) body.details = err.details;
  return body;
}

export const skillRequired = (where = 'query parameter `skill`'): AppError =>
  new AppError({
    status: 400,
    code: 'SKILL_REQUIRED',
    message: `A skill id is required in the ${where}.`,
    tip: 'Supply a catalog id, e.g. ?skill=agent-x402-first-buy. GET /catalog.json lists them all.',
  });

export const notFound = (message: string, tip = 'Check GET /api/health, or GET /api/esp for the list of endpoints.'): AppError =>
  new AppError({ status: 404, code: 'not_found', message, tip });

export const invalidRequest = (parameter: string, message: string, tip: string): AppError =>
  new AppError({ status: 400, code: 'INVALID_REQUEST', message, tip, details: { parameter } });

export const invalidJson = (detail: string): AppError =>
  new AppError({
    status: 400,
    code: 'INVALID_JSON',
    message: `The request body is not valid JSON: ${detail}`,
    tip: 'Send a JSON object with Content-Type: application/json.',
  });

export const payloadTooLarge = (limit: number): AppError =>
  new AppError({
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: `The request body is larger than ${limit} bytes.`,
    tip: `Keep request bodies under ${limit} bytes.`,
  });

export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]): AppError =>
  new AppError({
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    message: `${method} is not supported on ${path}.`,
    tip: `Use ${allowed.join(' or ')}.`,
    headers: { allow: allowed.join(', ') },
  });

/**
 * A request without a valid origin secret: it reached the API's own endpoint directly, around
 * CloudFront and its web ACL. The answer says where to call instead and nothing of the secret.
 */
export const originRequired = (): AppError =>
  new AppError({
    status: 403,
    code: 'ORIGIN_REQUIRED',
    message: "This endpoint serves only requests that come through the marketplace's own address.",
    tip: 'Call the base URL the marketplace advertises (GET /.well-known/esp.json there), not the API Gateway endpoint.',
  });

/** A fault on our side (RPC down, table throttled): always 503 with retry true, never a stack trace. */
export const internalError = (message = 'The service hit a temporary fault; nothing was recorded.'): AppError =>
  new AppError({
    status: 503,
    code: 'INTERNAL_ERROR',
    message,
    tip: 'Retry with exponential backoff (2 s, 4 s, 8 s).',
    retry: true,
  });
