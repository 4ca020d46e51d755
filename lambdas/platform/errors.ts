/**
 * The one error model. Every failure the API reports is an {@link AppError}; the
 * error handler middleware turns it into the spec's failure body in one place.
 */

/**
 * An error code: written once, in the catalog of the layer or domain that owns it (see
 * {@link errorCatalog}); the platform's own are below, the domains' beside their code
 * (`lambdas/<domain>/errors.ts`).
 */
export type ErrorCode = string;

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

/** What a catalog says of a code: its status, the default message, what the client should do, and whether retrying helps. */
export interface ErrorSpec {
  status: number;
  message: string;
  tip: string;
  retry?: boolean;
}

/**
 * What a throw site adds: a message or tip for its case, the field, details, headers; whether
 * retrying helps where the code covers both (a transfer not mined yet, one that never will be);
 * a status only where a protocol sets another.
 */
export interface ErrorDetail {
  message?: string;
  tip?: string;
  retry?: boolean;
  status?: number;
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A catalog's codes as functions: a throw site names the code (`throw ERRORS.NOT_YOURS()`), the catalog says the rest. */
export type ErrorCatalog<T extends Record<string, ErrorSpec>> = { readonly [K in keyof T & string]: (detail?: ErrorDetail) => AppError } & {
  /** Every code of the catalog with its spec: the tests check that no code is written in two catalogs. */
  readonly specs: T;
};

/**
 * One catalog of error codes: each code once, with its status, message and tip. Every failure the
 * API reports is built from one, so a code answers the same wherever it is thrown.
 */
export function errorCatalog<const T extends Record<string, ErrorSpec>>(specs: T): ErrorCatalog<T> {
  const catalog: Record<string, unknown> = { specs };
  for (const [code, spec] of Object.entries(specs)) {
    catalog[code] = (d: ErrorDetail = {}) =>
      new AppError({
        status: d.status ?? spec.status,
        code,
        message: d.message ?? spec.message,
        tip: d.tip ?? spec.tip,
        retry: d.retry ?? spec.retry ?? false,
        ...(d.param !== undefined ? { param: d.param } : {}),
        ...(d.details !== undefined ? { details: d.details } : {}),
        ...(d.headers !== undefined ? { headers: d.headers } : {}),
      });
  }
  return catalog as ErrorCatalog<T>;
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

/**
 * The platform's codes: what any route, the edge or the handler around every route answers. The
 * domains' codes are in their own catalogs (docs/ARCHITECTURE.md, "Choices the spec left open").
 */
export const PLATFORM_ERRORS = errorCatalog({
  /** The spec's 404 for an unknown path, and for an unknown thing a route names. */
  not_found: { status: 404, message: 'Nothing is there.', tip: 'Check GET /api/health, or GET /api/esp for the list of endpoints.' },
  INVALID_REQUEST: { status: 400, message: 'A parameter is wrong.', tip: 'Check the parameter named in details.parameter.' },
  INVALID_JSON: {
    status: 400,
    message: 'The request body is not valid JSON.',
    tip: 'Send a JSON object with Content-Type: application/json.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.', tip: 'Keep request bodies under 64 KiB.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not supported here.', tip: 'Use the method the Allow header names.' },
  /** A caller over a route's per-caller limit (the route table's `rateLimit`), or over an allowance. */
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests from this caller.',
    tip: 'Wait for Retry-After seconds, then retry.',
    retry: true,
  },
  /** The header block is over the edge's limit (the local edge, as CloudFront). */
  HEADERS_TOO_LARGE: {
    status: 431,
    message: 'The request headers are larger than the server accepts (16 KB).',
    tip: 'Send fewer or shorter headers (cookies especially).',
  },
  /** The client did not send a whole request in time (the local edge). */
  REQUEST_TIMEOUT: {
    status: 408,
    message: 'The request was not received completely in time.',
    tip: 'Send the whole request promptly, then retry.',
    retry: true,
  },
  /** A request without a valid origin secret: it reached the API's own endpoint directly, around CloudFront and its web ACL. */
  ORIGIN_REQUIRED: {
    status: 403,
    message: "This endpoint serves only requests that come through the marketplace's own address.",
    tip: 'Call the base URL the marketplace advertises (GET /.well-known/esp.json there), not the API Gateway endpoint.',
  },
  /** A fault on our side (RPC down, table throttled): always 503 with retry true, never a stack trace. */
  INTERNAL_ERROR: {
    status: 503,
    message: 'The service hit a temporary fault; nothing was recorded.',
    tip: 'Retry with exponential backoff (2 s, 4 s, 8 s).',
    retry: true,
  },
});

export const notFound = (message: string, tip?: string): AppError =>
  PLATFORM_ERRORS.not_found({ message, ...(tip !== undefined ? { tip } : {}) });

export const invalidRequest = (parameter: string, message: string, tip: string): AppError =>
  PLATFORM_ERRORS.INVALID_REQUEST({ message, tip, details: { parameter } });

export const invalidJson = (detail: string): AppError =>
  PLATFORM_ERRORS.INVALID_JSON({ message: `The request body is not valid JSON: ${detail}` });

export const payloadTooLarge = (limit: number): AppError =>
  PLATFORM_ERRORS.PAYLOAD_TOO_LARGE({
    message: `The request body is larger than ${limit} bytes.`,
    tip: `Keep request bodies under ${limit} bytes.`,
  });

export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]): AppError =>
  PLATFORM_ERRORS.METHOD_NOT_ALLOWED({
    message: `${method} is not supported on ${path}.`,
    tip: `Use ${allowed.join(' or ')}.`,
    headers: { allow: allowed.join(', ') },
  });

export const originRequired = (): AppError => PLATFORM_ERRORS.ORIGIN_REQUIRED();

export const internalError = (message?: string): AppError => PLATFORM_ERRORS.INTERNAL_ERROR(message !== undefined ? { message } : {});
