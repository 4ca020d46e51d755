/**
 * `Idempotency-Key` on every checkout POST and PUT, as ACP and UCP define it: the first request
 * with a key runs; the same request again gets the saved answer with `Idempotent-Replayed:
 * true`; another request with the same key is refused (ACP 422, UCP 409); while the first is
 * still running, 409 with Retry-After. The key is optional: the spec's clients do not send it.
 * A fault (5xx) saves nothing, so a retry with the same key runs again.
 *
 * A key belongs to its caller, as Stripe scopes keys to an account and ACP to the authenticated
 * identity: `scope` names whose it is (protocol-routes.ts: the pseudonym of the creating
 * caller's address, or the session whose secret the call presented). The same key and body from
 * someone else is their own, independent request, never a replay of another caller's answer.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { AppError, invalidRequest } from '../../platform/errors';
import { CHECKOUT_ERRORS } from '../errors';
import { errorResponse, type ApiRequest, type ApiResponse } from '../../platform/http';
import type { CheckoutPorts, Protocol } from '../ports';

/** Printable ASCII, 1 to 255 characters: what both standards allow for a key. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The same request, whatever its JSON's spacing or key order: method, path and canonical body. */
function fingerprint(req: ApiRequest): string {
  let body = req.body ?? '';
  try {
    if (body.trim() !== '') body = canonicalize(JSON.parse(body));
  } catch {
    // Not JSON: the bytes themselves (the request will be refused, and that answer is what replays).
  }
  return createHash('sha256').update(`${req.method} ${req.path}\n${body}`).digest('hex');
}

export async function withIdempotency(
  req: ApiRequest,
  ports: CheckoutPorts,
  opts: { protocol: Protocol; reusedStatus: number; scope: string },
  run: () => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return run();
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw invalidRequest(
      'Idempotency-Key',
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      'Send a UUID, or leave the header out.',
    );
  }
  const print = fingerprint(req);
  const echo = { 'idempotency-key': key };
  const scope = `${opts.protocol}#${opts.scope}`;
  const begun = await ports.idempotency.begin(scope, key, print, ports.now());
  switch (begun.kind) {
    case 'replay':
      return {
        statusCode: begun.response.status,
        headers: { ...begun.response.headers, ...echo, 'idempotent-replayed': 'true' },
        body: begun.response.body,
      };
    case 'mismatch':
      throw CHECKOUT_ERRORS.IDEMPOTENCY_KEY_REUSED({ status: opts.reusedStatus, headers: echo });
    case 'in_flight':
      throw CHECKOUT_ERRORS.IDEMPOTENCY_KEY_IN_FLIGHT({ headers: { ...echo, 'retry-after': String(begun.retryAfterSeconds) } });
    case 'started':
      break;
  }

  let response: ApiResponse;
  try {
    response = await run();
  } catch (e) {
    // A refusal (4xx) is the answer to this request and replays like any other; a fault is not.
    if (!(e instanceof AppError) || e.status >= 500) {
      await ports.idempotency.abandon(scope, key, print);
      throw e;
    }
    response = errorResponse(e);
  }
  if (response.statusCode >= 500) {
    await ports.idempotency.abandon(scope, key, print);
    return response;
  }
  const saved = { status: response.statusCode, headers: response.headers, body: String(response.body ?? '') };
  await ports.idempotency.finish(scope, key, print, saved, ports.now());
  return { ...response, headers: { ...response.headers, ...echo } };
}
