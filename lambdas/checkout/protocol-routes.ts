/**
 * The ACP and UCP checkout routes: one implementation, two faces. A face names the states and
 * shapes the session the way its standard does, and says which HTTP status each standard
 * gives a closed session and a reused Idempotency-Key.
 */
import { links } from '../contract/links';
import { callerId } from '../payments';
import { AppError, failureBody } from '../platform/errors';
import { readJsonObject, json, type ApiRequest, type ApiResponse } from '../platform/http';
import { withIdempotency } from './core/idempotency';
import type { CheckoutPorts, CheckoutSession, Protocol, ProtocolFace } from './ports';
import { cancelSession, completeSession, loadOwnedSession, openSession, saleOf, updateSession } from './sessions';

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

/**
 * Runs `run` under the request's Idempotency-Key within `scope`, whose key it is (a saved
 * refusal replays in the face's terms too).
 */
const idempotent = (face: ProtocolFace, req: ApiRequest, ports: CheckoutPorts, scope: string, run: () => Promise<ApiResponse>) =>
  withIdempotency(req, ports, { protocol: face.protocol, reusedStatus: face.reusedKeyStatus, scope }, () => answer(face, run));

/**
 * A write on an existing session: the body is read (400), the session found (404) and its client
 * secret checked (401) before the Idempotency-Key is looked at. The key is then the creator's,
 * scoped to the session, so it replays for its creator from any address; a refusal before the
 * request runs is not saved, as Stripe saves none for a request that fails authentication.
 */
const sessionWrite =
  (
    face: ProtocolFace,
    run: (session: CheckoutSession, changes: Record<string, unknown>, req: ApiRequest, ports: CheckoutPorts) => Promise<ApiResponse>,
  ) =>
  (req: ApiRequest, ports: CheckoutPorts): Promise<ApiResponse> =>
    answer(face, async () => {
      const changes = body(req);
      const session = await loadOwnedSession(face.protocol, req, ports);
      return idempotent(face, req, ports, `session:${session.id}`, () => run(session, changes, req, ports));
    });

/**
 * Creation: before the session exists its caller has no identity but its address, so the key is
 * scoped to a pseudonym of that (sha256, as the unlock's retry window keeps it; never the
 * address). The answer carries the session's `client_secret`, told this once (and to a replay of
 * this very request by the same caller): every later call on the session presents it.
 */
export const createRoute = (face: ProtocolFace) => (req: ApiRequest, ports: CheckoutPorts) =>
  answer(face, () =>
    idempotent(face, req, ports, `caller:${callerId(req.sourceIp) ?? 'unknown'}`, async () => {
      const { session, secret } = await openSession(face.protocol, body(req), ports, req.baseUrl);
      return json(
        201,
        { ...face.view(session, undefined, req.baseUrl), client_secret: secret },
        { location: sessionUrl(face.protocol, session.id, req.baseUrl) },
      );
    }),
  );

/** Reading a session is its creator's too: the session shows continue_url and the order's permalink, both naming the Stripe session. */
export const getRoute = (face: ProtocolFace) => (req: ApiRequest, ports: CheckoutPorts) =>
  answer(face, async () => {
    const session = await loadOwnedSession(face.protocol, req, ports);
    return json(200, face.view(session, await saleOf(session, ports), req.baseUrl));
  });

export const updateRoute = (face: ProtocolFace) =>
  sessionWrite(face, async (session, changes, req, ports) => {
    const updated = await updateSession(session, changes, ports, face.closedStatus);
    return json(200, face.view(updated, await saleOf(updated, ports), req.baseUrl));
  });

// ACP's payment_data and UCP's payment instrument are read (as JSON) and ignored: payment happens on the hosted page.
export const completeRoute = (face: ProtocolFace) =>
  sessionWrite(face, async (session, _changes, req, ports) => {
    const { session: now, paid } = await completeSession(session, ports, face.closedStatus);
    return json(200, face.view(now, await saleOf(now, ports), req.baseUrl, paid ? undefined : 'payment_pending'));
  });

export const cancelRoute = (face: ProtocolFace) =>
  sessionWrite(face, async (session, _changes, req, ports) =>
    json(200, face.view(await cancelSession(session, ports, face.closedStatus), undefined, req.baseUrl)),
  );

const sessionUrl = (protocol: Protocol, id: string, baseUrl: string): string =>
  protocol === 'acp' ? links(baseUrl).acp_session(id) : links(baseUrl).ucp_session(id);
