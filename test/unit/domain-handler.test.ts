import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createDomainHandler } from '../../lambdas/platform/domain-handler';
import { AppError, skillRequired } from '../../lambdas/platform/errors';
import { json } from '../../lambdas/platform/http';

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
