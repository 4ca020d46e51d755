import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createDomainHandler, type RateLimitedHandler } from '../../lambdas/platform/domain-handler';
import { AppError } from '../../lambdas/platform/errors';
import { skillRequired } from '../../lambdas/catalog';
import { json } from '../../lambdas/platform/http';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../lambdas/contract/edge-identity';
import { originGuard, type OriginGuard } from '../../lambdas/platform/origin-verify';
import { rateLimitedBody } from '../support/failure-bodies';

const ev = (routeKey: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: '/api/x',
    rawQueryString: '',
    headers: { host: 'h' },
    requestContext: { requestId: 'r-9', http: { method: 'GET', path: '/api/x', protocol: 'HTTP/1.1', sourceIp: '1', userAgent: '' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;
// The platform never guesses the advertised base URL from a header; alone, this file configures one.
process.env['PUBLIC_BASE_URL'] ??= 'https://market.example';
// Hand-made events carry no origin secret: the origin check is off here, as with nothing configured
// (the test workers inherit the local stack's environment, which configures one).
delete process.env[INFRA_ENV.originSecretFile];
delete process.env[INFRA_ENV.originSecretArn];
const ok = () => json(200, {});
const ctx = { awsRequestId: 'r-9', functionName: 'f', getRemainingTimeInMillis: () => 1000 } as unknown as Context;

describe('createDomainHandler', () => {
  it('routes by route key and adds the common headers', async () => {
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => json(200, { ok: true }),
        getPackMetadata: () => json(200, { ready: true }),
        getIntent: ok,
        postIntent: ok,
      },
      ports: () => ({}),
    });
    const res = await handler(ev('GET /api/packs'), ctx);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body as string)).toEqual({ ready: true });
    expect(res.headers).toMatchObject({ 'access-control-allow-origin': '*', 'x-request-id': 'r-9' });
  });

  it("keeps a route's own header over the common ones and leaves a memoised answer as it was", async () => {
    const memoised = Object.freeze({
      statusCode: 200,
      headers: Object.freeze({ 'access-control-allow-origin': 'https://only.example', 'cache-control': 'max-age=60' }),
      body: '{}',
    });
    const handler = createDomainHandler('catalog', {
      routes: { listCatalog: () => memoised, getPackMetadata: ok, getIntent: ok, postIntent: ok },
      ports: () => ({}),
    });
    for (const requestId of ['r-1', 'r-2']) {
      const res = await handler({ ...ev('GET /api/catalog'), requestContext: { ...ev('x').requestContext, requestId } }, ctx);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': 'https://only.example',
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
        'cache-control': 'max-age=60',
      });
    }
    expect(memoised.headers).toEqual({ 'access-control-allow-origin': 'https://only.example', 'cache-control': 'max-age=60' });
  });

  it('maps an AppError to the failure body with its status', async () => {
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => {
          throw skillRequired();
        },
        getPackMetadata: () => json(200, {}),
        getIntent: ok,
        postIntent: ok,
      },
      ports: () => ({}),
    });
    const res = await handler(ev('GET /api/catalog'), ctx);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body as string)).toMatchObject({
      ok: false,
      error: 'skill_required',
      error_code: 'SKILL_REQUIRED',
      retry: false,
    });
    expect(res.headers?.['x-request-id']).toBe('r-9');
  });

  it('answers an unexpected fault with 503 INTERNAL_ERROR, retry true and no stack trace', async () => {
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => {
          throw new TypeError('secret detail at /var/task/index.mjs:1');
        },
        getPackMetadata: () => json(200, {}),
        getIntent: ok,
        postIntent: ok,
      },
      ports: () => ({}),
    });
    const res = await handler(ev('GET /api/catalog'), ctx);
    expect(res.statusCode).toBe(503);
    const body = JSON.parse(res.body as string);
    expect(body).toMatchObject({ ok: false, error_code: 'INTERNAL_ERROR', retry: true });
    expect(res.body).not.toMatch(/secret detail|index\.mjs/);
  });

  it("answers 503 INTERNAL_ERROR, retry true, before the function's own time runs out", async () => {
    let stalled = 0;
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => json(200, {}),
        // A route whose dependency never answers (a hung socket).
        getPackMetadata: () => {
          stalled++;
          return new Promise<never>(() => undefined);
        },
        getIntent: ok,
        postIntent: ok,
      },
      ports: () => ({}),
    });
    const deadline = Date.now() + 400;
    const timed = { ...ctx, getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
    // Two at once, as the local server runs them, and a quick one between them.
    const [first, quick, second] = await Promise.all([
      handler(ev('GET /api/packs'), timed),
      handler(ev('GET /api/catalog'), timed),
      handler(ev('GET /api/packs'), timed),
    ]);
    const answeredAt = Date.now();
    expect(stalled).toBe(2);
    expect(quick.statusCode).toBe(200);
    for (const res of [first, second]) {
      expect(res.statusCode).toBe(503);
      expect(JSON.parse(res.body as string)).toMatchObject({ error_code: 'INTERNAL_ERROR', retry: true });
      expect(res.headers).toMatchObject({ 'x-request-id': 'r-9' });
    }
    // Lambda would have cut the function at the deadline; the answer came before it.
    expect(answeredAt).toBeLessThan(deadline);
    expect(answeredAt).toBeGreaterThan(deadline - 200);
  });

  it('does not cache a failed port initialisation', async () => {
    let calls = 0;
    const handler = createDomainHandler('catalog', {
      routes: { listCatalog: () => json(200, { ok: true }), getPackMetadata: () => json(200, {}), getIntent: ok, postIntent: ok },
      ports: () => {
        calls += 1;
        if (calls === 1) throw new Error('table client failed');
        return {};
      },
    });
    expect((await handler(ev('GET /api/catalog'), ctx)).statusCode).toBe(503);
    expect((await handler(ev('GET /api/catalog'), ctx)).statusCode).toBe(200);
  });

  it('uses the fallback for route keys it does not own', async () => {
    const handler = createDomainHandler('catalog', {
      routes: { listCatalog: () => json(200, {}), getPackMetadata: () => json(200, {}), getIntent: ok, postIntent: ok },
      ports: () => ({}),
      fallback: () => {
        throw new AppError({ status: 404, code: 'not_found', message: 'nope', tip: 't' });
      },
    });
    expect((await handler(ev('$default'), ctx)).statusCode).toBe(404);
  });
});

describe('createDomainHandler rate limits (from the route table)', () => {
  const from = (routeKey: string, sourceIp: string): APIGatewayProxyEventV2 => {
    const e = ev(routeKey);
    return { ...e, requestContext: { ...e.requestContext, http: { ...e.requestContext.http, method: 'POST', sourceIp } } };
  };
  const access = (clock: () => number, extra: { rateLimited?: RateLimitedHandler; origin?: OriginGuard } = {}) =>
    createDomainHandler('access', {
      routes: {
        getPay: ok,
        postPay: ok,
        postRecover: ok,
        getPurchases: ok,
        getMandates: ok,
        postMandates: ok,
        getAgentIdentity: ok,
        getAccess: ok,
        getSubscribe: ok,
        postSubscribe: ok,
        getMeter: ok,
        postMeter: ok,
      },
      ports: () => ({}),
      clock,
      ...extra,
    });

  it('answers the 301st unlock POST of one caller in a minute with 429 RATE_LIMITED and Retry-After, and serves another caller', async () => {
    let now = 1_000_000;
    const handler = access(() => now);
    // POST /api/pay and POST /api/recover share the 'unlock' scope.
    for (let i = 0; i < 300; i++) {
      const res = await handler(from(i % 2 ? 'POST /api/pay' : 'POST /api/recover', '198.51.100.5'), ctx);
      expect(res.statusCode).toBe(200);
      now += 100;
    }
    const limited = await handler(from('POST /api/pay', '198.51.100.5'), ctx);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers?.['retry-after'])).toBe(30); // the first of the 300 leaves the window 30 s from now
    expect(JSON.parse(limited.body as string)).toMatchObject(rateLimitedBody());
    expect((await handler(from('POST /api/pay', '198.51.100.6'), ctx)).statusCode).toBe(200);
    // Unlimited routes of the same function are not counted.
    expect((await handler(ev('GET /api/access'), ctx)).statusCode).toBe(200);
    now += 30_000;
    expect((await handler(from('POST /api/pay', '198.51.100.5'), ctx)).statusCode).toBe(200);
  });

  it('GET /api/pay: the challenge is never limited; carrying a payment or a sign-in, it shares the unlock budget (issue 50, I7)', async () => {
    let now = 1_000_000;
    const handler = access(() => now);
    const get = (headers: Record<string, string>) => {
      const e = from('GET /api/pay', '198.51.100.7');
      return {
        ...e,
        headers: { ...e.headers, ...headers },
        requestContext: { ...e.requestContext, http: { ...e.requestContext.http, method: 'GET' } },
      };
    };
    for (let i = 0; i < 400; i++) expect((await handler(get({}), ctx)).statusCode).toBe(200);
    const carrying = [{ 'payment-signature': 'x' }, { 'x-payment': 'x' }, { 'sign-in-with-x': 'x' }];
    for (let i = 0; i < 300; i++) {
      expect((await handler(get(carrying[i % 3]!), ctx)).statusCode).toBe(200);
      now += 100;
    }
    for (const headers of carrying) expect((await handler(get(headers), ctx)).statusCode).toBe(429);
    // The same budget as POST's: it is spent too, and the bare challenge is still served.
    expect((await handler(from('POST /api/pay', '198.51.100.7'), ctx)).statusCode).toBe(429);
    expect((await handler(get({}), ctx)).statusCode).toBe(200);
  });

  it('lets a domain shape the 429 answer, and still sets Retry-After', async () => {
    const handler = access(() => 0, {
      rateLimited: (req, wait, rule) => json(429, { custom: true, wait, scope: rule.scope, ip: req.sourceIp }),
    });
    for (let i = 0; i < 300; i++) await handler(from('POST /api/pay', '198.51.100.7'), ctx);
    const limited = await handler(from('POST /api/pay', '198.51.100.7'), ctx);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers?.['retry-after']).toBe('60');
    expect(JSON.parse(limited.body as string)).toEqual({ custom: true, wait: 60, scope: 'unlock', ip: '198.51.100.7' });
  });

  it('behind CloudFront, counts each viewer it reports: one viewer over the limit gives another 429 nothing (issue 31, finding 2)', async () => {
    // Every viewer reaches API Gateway from CloudFront's edge host; the origin secret makes the viewer-address header believable.
    const EDGE_HOST = '130.176.0.10';
    const secret = 'origin-secret-of-this-test-0123456789';
    const viewer = (address: string) => {
      const e = from('POST /api/pay', EDGE_HOST);
      return { ...e, headers: { ...e.headers, [ORIGIN_VERIFY_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: address } };
    };
    const handler = access(() => 0, { origin: originGuard({ secrets: async () => [secret], now: () => 0 }) });
    for (let i = 0; i < 300; i++) expect((await handler(viewer('203.0.113.1'), ctx)).statusCode).toBe(200);
    expect((await handler(viewer('203.0.113.1'), ctx)).statusCode).toBe(429);
    expect((await handler(viewer('203.0.113.2'), ctx)).statusCode).toBe(200);
    // A direct call naming the second viewer is no viewer at all.
    const forged = from('POST /api/pay', '203.0.113.1');
    expect((await handler({ ...forged, headers: { ...forged.headers, [VIEWER_ADDRESS_HEADER]: '203.0.113.3' } }, ctx)).statusCode).toBe(
      403,
    );
  });
});
