/**
 * The request and response shapes route handlers see, and their conversion from and to
 * API Gateway HTTP API (payload v2) events. Route handlers never touch the raw event.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../contract/edge-identity';
import { SETTINGS } from '../contract/settings';
import { type AppError, failureBody, internalError, invalidJson, payloadTooLarge } from './errors';
import { MAX_BODY_BYTES, parseJson } from './json';

export { MAX_BODY_BYTES } from './json';

export interface ApiRequest {
  method: string;
  path: string;
  routeKey: string;
  /** Query parameters; a repeated parameter keeps its first value. */
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  pathParameters: Record<string, string>;
  /** The raw body decoded as UTF-8, or undefined when there is none. */
  body: string | undefined;
  requestId: string;
  /** Absolute base URL this deployment advertises (configured, never from a header), without a trailing slash. */
  baseUrl: string;
  /**
   * The caller's address: the viewer the edge reports (CloudFront's `event.viewer.ip`, carried in
   * the viewer-address header of a request with a valid origin secret; platform/origin-verify.ts),
   * never API Gateway's peer, which is CloudFront's edge host for every viewer behind it. Without
   * an origin secret configured (hand-made events in unit tests), the direct peer. Per-caller
   * limits and the lost-response retry are keyed by it.
   */
  sourceIp: string;
}

export type ApiResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> };

/** Headers every API answer carries; the payment headers (and checkout's WWW-Authenticate on a 401) are exposed so browsers can read the challenge. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-REQUIRED, X-PAYMENT-RESPONSE, X-Request-Id, Retry-After, Location, Idempotency-Key, Idempotent-Replayed, WWW-Authenticate',
  'x-content-type-options': 'nosniff',
};

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return jsonText(statusCode, JSON.stringify(body), headers);
}

/** A JSON answer from text already serialised (e.g. a memoised body). */
export function jsonText(statusCode: number, body: string, headers: Record<string, string> = {}): ApiResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body,
  };
}

export function errorResponse(err: AppError): ApiResponse {
  return json(err.status, failureBody(err), err.headers ?? {});
}

/**
 * The base URL this deployment advertises: the configured one (public-base-url.ts; always set
 * in AWS, and by local/stack.ts for the local run). It is never derived from a request header:
 * Host is the caller's choice, and trusting it would let a caller have the agent card signed for
 * its own host and pass the MCP Origin check (DNS rebinding). With nothing configured the request
 * is refused with 503 INTERNAL_ERROR naming the missing setting, rather than guessing.
 */
export function baseUrlOf(configured: string | undefined): string {
  if (configured) return configured;
  throw internalError(`The service has no public base URL: set ${SETTINGS.publicBaseUrl.env}.`);
}

/**
 * Converts a payload v2 event into an {@link ApiRequest}; throws 413 for an oversized body and
 * 503 when no base URL is configured (see {@link baseUrlOf}). `caller` is the viewer the edge
 * reported, once the origin secret was checked; without it the event's direct peer. The origin
 * secret and the viewer-address header never reach a route: identity is `sourceIp` alone.
 */
export function toApiRequest(event: APIGatewayProxyEventV2, configuredBaseUrl: string | undefined, caller?: string): ApiRequest {
  // Plain loops, and no parser for an empty query string: this runs on every request (issue 14).
  const headers: Record<string, string> = {};
  const given = event.headers;
  if (given)
    for (const k in given) {
      const v = given[k];
      if (v === undefined) continue;
      const name = k.toLowerCase();
      if (name !== ORIGIN_VERIFY_HEADER && name !== VIEWER_ADDRESS_HEADER) headers[name] = v;
    }

  let body: string | undefined;
  if (event.body !== undefined && event.body !== null && event.body !== '') {
    const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
    if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
    body = bytes.toString('utf8');
  }

  const query: Record<string, string> = {};
  // queryStringParameters joins repeated values with commas; the raw string keeps the first value intact.
  if (event.rawQueryString) for (const [k, v] of new URLSearchParams(event.rawQueryString)) if (!(k in query)) query[k] = v;

  const pathParameters: Record<string, string> = {};
  const params = event.pathParameters;
  if (params)
    for (const k in params) {
      const v = params[k];
      if (v !== undefined) pathParameters[k] = v;
    }

  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    routeKey: event.routeKey,
    query,
    headers,
    pathParameters,
    body,
    requestId: event.requestContext.requestId,
    baseUrl: baseUrlOf(configuredBaseUrl),
    sourceIp: caller ?? event.requestContext.http.sourceIp,
  };
}

/** Parses the body as a JSON object; undefined when there is no body. Malformed JSON is 400 INVALID_JSON. */
export function readJsonObject(req: ApiRequest): Record<string, unknown> | undefined {
  if (req.body === undefined || req.body.trim() === '') return undefined;
  const value = parseJson(req.body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidJson('expected a JSON object');
  return value as Record<string, unknown>;
}
