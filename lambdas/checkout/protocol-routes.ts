/**
 * The ACP and UCP checkout routes: one implementation, two faces. A face names the states and
 * shapes the session the way its standard does, and says which HTTP status each standard
 * gives a closed session and a reused Idempotency-Key.
 */
import { links } from '../contract/links';
import { AppError, failureBody } from '../platform/errors';
import { readJsonObject, json, type ApiRequest, type ApiResponse } from '../platform/http';
import { withIdempotency } from './core/idempotency';
import type { CheckoutPorts, Protocol, ProtocolFace } from './ports';
import { cancelSession, completeSession, loadSession, openSession, saleOf, updateSession } from './sessions';

/** The body, read first on every write: malformed JSON is 400 INVALID_JSON before any lookup, whatever the route. */
const body = (req: ApiRequest): Record<string, unknown> => readJsonObject(req) ?? {};

/**
 * Answers in the face's terms: its headers on every answer, and a refusal as the spec's failure
 * body plus the fields the protocol's clients read (ACP's `type` and `code`, UCP's `code` and
 * `content`). Faults other than AppErrors go on to the platform's one 503.
 */
async function answer(face: ProtocolFace, run: () => Promise<ApiResponse>): Promise<ApiResponse> {
  try {
    const res = await run();
    return { ...res, headers: { ...res.headers, ...face.headers } };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return json(e.status, { ...failureBody(e), ...face.errorFields(e) }, { ...(e.headers ?? {}), ...face.headers });
  }
}

/** Runs a write under the request's Idempotency-Key (a saved refusal replays in the face's terms too). */
const write = (face: ProtocolFace, req: ApiRequest, ports: CheckoutPorts, run: () => Promise<ApiResponse>): Promise<ApiResponse> =>
  answer(face, () => withIdempotency(req, ports, { protocol: face.protocol, reusedStatus: face.reusedKeyStatus }, () => answer(face, run)));

export const createRoute = (face: ProtocolFace) => (req: ApiRequest, ports: CheckoutPorts) =>
  write(face, req, ports, async () => {
    const session = await openSession(face.protocol, body(req), ports, req.baseUrl);
    return json(201, face.view(session, undefined, req.baseUrl), { location: sessionUrl(face.protocol, session.id, req.baseUrl) });
  });

export const getRoute = (face: ProtocolFace) => (req: ApiRequest, ports: CheckoutPorts) =>
  answer(face, async () => {
    const session = await loadSession(face.protocol, req.pathParameters['id'], ports);
    return json(200, face.view(session, await saleOf(session, ports), req.baseUrl));
  });

export const updateRoute = (face: ProtocolFace) => (req: ApiRequest, ports: CheckoutPorts) =>
  write(face, req, ports, async () => {
    const changes = body(req);
    const session = await loadSession(face.protocol, req.pathParameters['id'], ports);
    const updated = await updateSession(session, changes, ports, face.closedStatus);
    return json(200, face.view(updated, await saleOf(updated, ports), req.baseUrl));
  });

export const completeRoute = (face: ProtocolFace) => (req: ApiRequest, ports: CheckoutPorts) =>
  write(face, req, ports, async () => {
    // ACP's payment_data and UCP's payment instrument are read and ignored: payment happens on the hosted page.
    body(req);
    const session = await loadSession(face.protocol, req.pathParameters['id'], ports);
    const { session: now, paid } = await completeSession(session, ports, face.closedStatus);
    return json(200, face.view(now, await saleOf(now, ports), req.baseUrl, paid ? undefined : 'payment_pending'));
  });

export const cancelRoute = (face: ProtocolFace) => (req: ApiRequest, ports: CheckoutPorts) =>
  write(face, req, ports, async () => {
    body(req);
    const session = await loadSession(face.protocol, req.pathParameters['id'], ports);
    return json(200, face.view(await cancelSession(session, ports, face.closedStatus), undefined, req.baseUrl));
  });

const sessionUrl = (protocol: Protocol, id: string, baseUrl: string): string =>
  protocol === 'acp' ? links(baseUrl).acp_session(id) : links(baseUrl).ucp_session(id);
