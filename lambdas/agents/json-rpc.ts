/**
 * What A2A and MCP share as JSON-RPC 2.0 endpoints: the error answer, the bounded body reader
 * (the platform's `parseJson`, so a body nested thousands of levels deep never reaches an SDK)
 * and the answer to a caller over the route's rate limit.
 */
import type { RateLimitRule } from '../contract/routes';
import { AppError } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { BODY_LIMITS, jsonDepth, parseJson } from '../platform/json';

/** The JSON-RPC error codes these endpoints answer with: JSON-RPC's own, A2A's, and ours. */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP: resources/read of a URI the server does not have. */
  resourceNotFound: -32002,
  /** A2A: TaskNotFoundError. */
  taskNotFound: -32001,
  /** Rate limited (the implementation-defined server-error range). */
  rateLimited: -32029,
} as const;

/** JSON-RPC code for "rate limited". */
export const RATE_LIMITED_CODE = RPC_CODES.rateLimited;

export type RpcId = string | number | null;

/** A JSON-RPC error answer with the given HTTP status. */
export function rpcError(
  status: number,
  id: RpcId,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
): ApiResponse {
  return json(status, { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } }, headers);
}

/** The request's id when it is one JSON-RPC allows (string, integer, null); otherwise null, as an error answer must use. */
export function rpcId(body: unknown): RpcId {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

/** A body read through the platform's bounded reader. */
export type RpcBody =
  | { ok: true; value: unknown }
  /** Not JSON at all: JSON-RPC's parse error (-32700). */
  | { ok: false; kind: 'malformed' }
  /** JSON over this API's limits (too large: 413, nested too deep: 400): JSON-RPC's invalid request (-32600). */
  | { ok: false; kind: 'refused'; status: number; message: string };

/**
 * Reads a JSON-RPC body with `parseJson` (64 KiB, 32 levels), before any SDK parses or walks it.
 * Refusals keep the platform's message and status so every endpoint states the same limits.
 */
export function readRpcBody(text: string | undefined): RpcBody {
  const raw = text ?? '';
  try {
    return { ok: true, value: parseJson(raw) };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const overLimit = e.code === 'PAYLOAD_TOO_LARGE' || jsonDepth(raw, BODY_LIMITS.maxDepth) > BODY_LIMITS.maxDepth;
    return overLimit
      ? { ok: false, kind: 'refused', status: e.status, message: `Invalid Request: ${e.message}` }
      : { ok: false, kind: 'malformed' };
  }
}

/**
 * The answer to a caller over the route's limit, in JSON-RPC's shape (what JSON-RPC clients
 * read): HTTP 429, Retry-After, and error -32029 with `data.retry_after_seconds`.
 */
export function rpcRateLimited(_req: ApiRequest, retryAfterSeconds: number, rule: RateLimitRule): ApiResponse {
  return rpcError(
    429,
    null,
    RATE_LIMITED_CODE,
    `Rate limited: at most ${rule.requests} requests per ${rule.perSeconds} s per caller.`,
    { retry_after_seconds: retryAfterSeconds, error_code: 'RATE_LIMITED', retry: true },
    { 'retry-after': String(retryAfterSeconds) },
  );
}
