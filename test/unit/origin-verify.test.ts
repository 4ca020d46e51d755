/**
 * Issue 31, finding 2: only requests that came through the edge are served, and the caller is the
 * viewer the edge reports. createDomainHandler with the origin check given a fake of its port (the
 * accepted values, counted), and a clock the test moves.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  ORIGIN_SECRET_MAX_AGE_SECONDS,
  ORIGIN_SECRET_REFRESH_SECONDS,
  ORIGIN_VERIFY_HEADER,
  VIEWER_ADDRESS_HEADER,
} from '../../lambdas/contract/edge-identity';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { createDomainHandler } from '../../lambdas/platform/domain-handler';
import { json, type ApiRequest } from '../../lambdas/platform/http';
import { originGuard, originGuardFromEnv } from '../../lambdas/platform/origin-verify';

process.env['PUBLIC_BASE_URL'] ??= 'https://market.example';

/** CloudFront's edge host, as API Gateway reports it for every viewer behind it. */
const EDGE_HOST = '130.176.0.10';
const CURRENT = 'current-origin-secret-0123456789abcdef';
const PENDING = 'pending-origin-secret-0123456789abcdef';
const PREVIOUS = 'previous-origin-secret-0123456789abcde';

const ctx = { awsRequestId: 'r', functionName: 'f', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

const event = (headers: Record<string, string>, routeKey = 'GET /api/health'): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1],
    rawQueryString: '',
    headers: { host: 'abc123.execute-api.us-east-1.amazonaws.com', ...headers },
    requestContext: { requestId: 'r', http: { method: 'GET', path: '/', protocol: 'HTTP/1.1', sourceIp: EDGE_HOST, userAgent: '' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

const fromEdge = (viewer: string, secret = CURRENT, extra: Record<string, string> = {}) =>
  event({ [ORIGIN_VERIFY_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: viewer, ...extra });

/** The accepted values as Secrets Manager would give them, with a count of reads and a switch to fail them. */
function secretStore(values: string[]) {
  const store = { values, reads: 0, failing: false };
  const secrets = async () => {
    store.reads += 1;
    if (store.failing) throw new Error('Secrets Manager is unreachable');
    return store.values;
  };
  return { store, secrets };
}

/** A discovery handler whose health route echoes what it saw of the caller. */
/** The discovery domain's handler with every route echoing the caller, behind `origin` (none: no origin check). */
function echoHandler(origin: Parameters<typeof createDomainHandler>[1]['origin'], ports: () => object = () => ({})) {
  const seen: ApiRequest[] = [];
  const echo = (req: ApiRequest) => {
    seen.push(req);
    return json(200, { caller: req.sourceIp });
  };
  const handler = createDomainHandler('discovery', {
    routes: {
      getHealth: echo,
      getEsp: echo,
      getShop: echo,
      getJudges: echo,
      getOpenApi: echo,
      getEspDiscovery: echo,
      getX402Discovery: echo,
      getPackProvenance: echo,
    },
    ports,
    origin,
  });
  return { handler, seen };
}

function handlerWith(secrets: () => Promise<readonly string[]>, clock: { t: number }) {
  return echoHandler(originGuard({ secrets, now: () => clock.t }));
}

const body = (res: { body?: string | undefined }) => JSON.parse(res.body ?? '{}');

describe('direct calls to the API are refused (issue 31, finding 2)', () => {
  it('refuses no secret, a wrong one and a forged viewer address without one: 403 ORIGIN_REQUIRED, JSON, retry false', async () => {
    const clock = { t: 1_000_000 };
    const { store, secrets } = secretStore([CURRENT]);
    const { handler, seen } = handlerWith(secrets, clock);
    for (const direct of [
      event({}),
      event({ [ORIGIN_VERIFY_HEADER]: 'guessed' }),
      event({ [VIEWER_ADDRESS_HEADER]: '203.0.113.1' }),
      event({ [ORIGIN_VERIFY_HEADER]: '', [VIEWER_ADDRESS_HEADER]: '203.0.113.1' }),
      event({ [ORIGIN_VERIFY_HEADER]: CURRENT.slice(0, -1), [VIEWER_ADDRESS_HEADER]: '203.0.113.1' }),
      event({ [ORIGIN_VERIFY_HEADER]: `${CURRENT},${CURRENT}`, [VIEWER_ADDRESS_HEADER]: '203.0.113.1' }),
    ]) {
      const res = await handler(direct, ctx);
      expect(res.statusCode).toBe(403);
      expect(res.headers?.['content-type']).toMatch(/^application\/json/);
      expect(body(res)).toMatchObject({ ok: false, error: 'origin_required', error_code: 'ORIGIN_REQUIRED', retry: false });
      expect(res.body).not.toContain(CURRENT);
    }
    expect(seen).toHaveLength(0);
    // Only the wrong secrets needed a read, and one read answered them all.
    expect(store.reads).toBe(1);
  });

  it('serves the current, the pending and the previous value (edges pick up a rotation over minutes)', async () => {
    const clock = { t: 1_000_000 };
    const { secrets } = secretStore([CURRENT, PENDING, PREVIOUS]);
    const { handler } = handlerWith(secrets, clock);
    for (const secret of [CURRENT, PENDING, PREVIOUS]) {
      const res = await handler(fromEdge('203.0.113.5', secret), ctx);
      expect(res.statusCode).toBe(200);
      expect(body(res)).toEqual({ caller: '203.0.113.5' });
    }
  });

  it('a flood of direct calls costs no Secrets Manager call per request once cached: one read per period at most', async () => {
    const clock = { t: 1_000_000 };
    const { store, secrets } = secretStore([CURRENT]);
    const { handler } = handlerWith(secrets, clock);
    expect((await handler(fromEdge('203.0.113.5'), ctx)).statusCode).toBe(200);
    expect(store.reads).toBe(1);
    // 1,000 calls with no secret and 1,000 with made-up ones within one period: no read.
    for (let i = 0; i < 1000; i++) {
      expect((await handler(event({}), ctx)).statusCode).toBe(403);
      expect((await handler(fromEdge('203.0.113.6', `made-up-${i}`), ctx)).statusCode).toBe(403);
      clock.t += 1;
    }
    // The first made-up secret came right after the cold read: still inside the wait.
    expect(store.reads).toBe(1);
    // After the wait, a made-up secret may cause one read, and the next 1,000 none.
    clock.t += ORIGIN_SECRET_REFRESH_SECONDS * 1000;
    for (let i = 0; i < 1000; i++) expect((await handler(fromEdge('203.0.113.6', `again-${i}`), ctx)).statusCode).toBe(403);
    expect(store.reads).toBe(2);
    // Requests through the edge were never in doubt meanwhile.
    expect((await handler(fromEdge('203.0.113.5'), ctx)).statusCode).toBe(200);
    expect(store.reads).toBe(2);
  });

  it('answers a warm request through the edge at once (no promise), and reads nothing for a request without a secret, even cold', async () => {
    const { store, secrets } = secretStore([CURRENT]);
    const guard = originGuard({ secrets, now: () => 1_000_000 });
    expect(() => guard.callerOf({})).toThrow(expect.objectContaining({ code: 'ORIGIN_REQUIRED' }));
    expect(store.reads).toBe(0);
    const headers = { [ORIGIN_VERIFY_HEADER]: CURRENT, [VIEWER_ADDRESS_HEADER]: '203.0.113.5' };
    const cold = guard.callerOf(headers);
    expect(cold).toBeInstanceOf(Promise);
    expect(await cold).toBe('203.0.113.5');
    expect(guard.callerOf(headers)).toBe('203.0.113.5');
    expect(store.reads).toBe(1);
  });

  it('takes a new value as soon as the edges send it after a rotation, and reads again when the values are old', async () => {
    const clock = { t: 1_000_000 };
    const { store, secrets } = secretStore([CURRENT]);
    const { handler } = handlerWith(secrets, clock);
    expect((await handler(fromEdge('203.0.113.5'), ctx)).statusCode).toBe(200);
    // The rotation stores the pending value, waits out the re-read period, then CloudFront sends it.
    store.values = [CURRENT, PENDING];
    clock.t += ORIGIN_SECRET_REFRESH_SECONDS * 1000;
    expect((await handler(fromEdge('203.0.113.5', PENDING), ctx)).statusCode).toBe(200);
    expect(store.reads).toBe(2);
    // Two rotations later (an emergency one) the old value is gone from the secret: refused once the values age out.
    store.values = ['fresh-after-two-rotations-0123456789ab'];
    expect((await handler(fromEdge('203.0.113.5', CURRENT), ctx)).statusCode).toBe(200);
    clock.t += ORIGIN_SECRET_MAX_AGE_SECONDS * 1000;
    expect((await handler(fromEdge('203.0.113.5', CURRENT), ctx)).statusCode).toBe(403);
    expect(store.reads).toBe(3);
  });

  it('keeps serving on the values it knows when a read fails, and answers 503 retry true when it never knew any', async () => {
    const clock = { t: 1_000_000 };
    const { store, secrets } = secretStore([CURRENT]);
    const cold = handlerWith(secrets, clock);
    store.failing = true;
    const res = await cold.handler(fromEdge('203.0.113.5'), ctx);
    expect(res.statusCode).toBe(503);
    expect(body(res)).toMatchObject({ error_code: 'INTERNAL_ERROR', retry: true });
    // Within the wait it does not ask again.
    expect((await cold.handler(fromEdge('203.0.113.5'), ctx)).statusCode).toBe(503);
    expect(store.reads).toBe(1);
    store.failing = false;
    clock.t += ORIGIN_SECRET_REFRESH_SECONDS * 1000;
    expect((await cold.handler(fromEdge('203.0.113.5'), ctx)).statusCode).toBe(200);
    // Aged values and Secrets Manager down: the known value still passes, an unknown one does not.
    store.failing = true;
    clock.t += ORIGIN_SECRET_MAX_AGE_SECONDS * 1000;
    expect((await cold.handler(fromEdge('203.0.113.5'), ctx)).statusCode).toBe(200);
    expect((await cold.handler(fromEdge('203.0.113.5', 'made-up'), ctx)).statusCode).toBe(403);
  });

  it('a request with the secret but no viewer address is a deploy fault: 503, not the edge host as the caller', async () => {
    const clock = { t: 1_000_000 };
    const { secrets } = secretStore([CURRENT]);
    const { handler, seen } = handlerWith(secrets, clock);
    for (const viewer of [undefined, '', 'not-an-address', `${EDGE_HOST}, 203.0.113.5`]) {
      const headers: Record<string, string> = { [ORIGIN_VERIFY_HEADER]: CURRENT };
      if (viewer !== undefined) headers[VIEWER_ADDRESS_HEADER] = viewer;
      const res = await handler(event(headers), ctx);
      expect(res.statusCode).toBe(503);
      expect(body(res)).toMatchObject({ error_code: 'INTERNAL_ERROR' });
    }
    expect(seen).toHaveLength(0);
  });

  it('gives the route the viewer as sourceIp and neither header: the secret never reaches a route', async () => {
    const clock = { t: 1_000_000 };
    const { secrets } = secretStore([CURRENT]);
    const { handler, seen } = handlerWith(secrets, clock);
    await handler(fromEdge('2001:db8::7', CURRENT, { 'x-forwarded-for': '198.51.100.1' }), ctx);
    expect(seen[0]!.sourceIp).toBe('2001:db8::7');
    expect(seen[0]!.headers[ORIGIN_VERIFY_HEADER]).toBeUndefined();
    expect(seen[0]!.headers[VIEWER_ADDRESS_HEADER]).toBeUndefined();
  });
});

describe('a cold instance', () => {
  it('builds its ports while it reads the secret for a request that carries one, and not for a request without one', async () => {
    const events: string[] = [];
    let release!: () => void;
    const read = new Promise<void>((resolve) => (release = resolve));
    const { handler } = echoHandler(
      originGuard({ secrets: async () => (events.push('read'), await read, [CURRENT]) }),
      () => (events.push('ports'), {}),
    );
    expect((await handler(event({}), ctx)).statusCode).toBe(403);
    expect(events).toEqual([]);
    const answer = handler(fromEdge('203.0.113.5'), ctx);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The read has not ended, and the ports are built already.
    expect(events).toEqual(['read', 'ports']);
    release();
    expect(body(await answer)).toEqual({ caller: '203.0.113.5' });
  });
});

describe('with no origin secret configured (hand-made events)', () => {
  it('is off: the caller is the direct peer and a viewer-address header is ignored', async () => {
    expect(originGuardFromEnv({})).toBeUndefined();
    expect(originGuardFromEnv({ [INFRA_ENV.originSecretArn]: 'arn:aws:secretsmanager:us-east-1:1:secret:o' })).toBeDefined();
    expect(originGuardFromEnv({ [INFRA_ENV.originSecretFile]: '/tmp/o' })).toBeDefined();
    const { handler, seen } = echoHandler(undefined);
    expect((await handler(event({ [VIEWER_ADDRESS_HEADER]: '203.0.113.1' }), ctx)).statusCode).toBe(200);
    expect(seen[0]!.sourceIp).toBe(EDGE_HOST);
  });
});
