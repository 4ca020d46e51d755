import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lambdas/platform/errors';
import { MAX_BODY_BYTES, baseUrlOf, readJsonObject, toApiRequest } from '../../lambdas/platform/http';

function event(over: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'GET /api/health',
    rawPath: '/api/health',
    rawQueryString: 'skill=a&skill=b&q=x%20y',
    headers: { Host: 'market.example', 'X-Forwarded-Proto': 'https' },
    requestContext: {
      accountId: '1',
      apiId: 'a',
      domainName: 'market.example',
      domainPrefix: 'market',
      http: { method: 'get', path: '/api/health', protocol: 'HTTP/1.1', sourceIp: '1.2.3.4', userAgent: 'ua' },
      requestId: 'req-1',
      routeKey: 'GET /api/health',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
    ...over,
  };
}

const SHOP = 'https://shop.example';

const thrown = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('did not throw');
};

describe('toApiRequest', () => {
  it('lower-cases headers, keeps the first of repeated query values and takes the configured base URL', () => {
    const req = toApiRequest(event(), SHOP);
    expect(req.method).toBe('GET');
    expect(req.headers['host']).toBe('market.example');
    expect(req.query).toEqual({ skill: 'a', q: 'x y' });
    expect(req.baseUrl).toBe(SHOP);
    expect(req.requestId).toBe('req-1');
  });

  it('decodes a base64 body to its exact bytes', () => {
    const req = toApiRequest(event({ body: Buffer.from('{"a":"é"}').toString('base64'), isBase64Encoded: true }), SHOP);
    expect(req.body).toBe('{"a":"é"}');
  });

  it('answers 413 above the body limit', () => {
    const err = thrown(() => toApiRequest(event({ body: 'x'.repeat(MAX_BODY_BYTES + 1) }), SHOP));
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(413);
    expect(err.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('baseUrlOf', () => {
  const hostile = {
    Host: 'evil.example',
    'X-Forwarded-Host': 'evil.example',
    'X-Market-Host': 'evil.example',
    'X-Forwarded-Proto': 'http',
  };

  it('uses the configured URL whatever the headers say', () => {
    expect(baseUrlOf(SHOP)).toBe(SHOP);
    expect(toApiRequest(event({ headers: hostile }), SHOP).baseUrl).toBe(SHOP);
    expect(toApiRequest(event({ headers: { host: 'evil.example/<script>' } }), 'http://127.0.0.1:8787').baseUrl).toBe(
      'http://127.0.0.1:8787',
    );
  });

  it('never takes the base URL from Host: with nothing configured the request is refused with 503 naming the setting', () => {
    for (const headers of [hostile, { host: '127.0.0.1:8787', 'x-forwarded-proto': 'http' }, { host: 'evil.example/<script>' }, {}]) {
      const err = thrown(() => toApiRequest(event({ headers }), undefined));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 503, code: 'INTERNAL_ERROR', retry: true });
      expect(err.message).toMatch(/PUBLIC_BASE_URL/);
      expect(err.message).not.toMatch(/evil|127\.0\.0\.1/);
    }
    expect(() => baseUrlOf(undefined)).toThrow(/PUBLIC_BASE_URL/);
    expect(() => baseUrlOf('')).toThrow(/PUBLIC_BASE_URL/);
  });
});

describe('readJsonObject', () => {
  const req = (body: string | undefined) => ({ ...toApiRequest(event(), SHOP), body });
  it('parses an object and treats an empty body as absent', () => {
    expect(readJsonObject(req('{"a":1}'))).toEqual({ a: 1 });
    expect(readJsonObject(req(undefined))).toBeUndefined();
    expect(readJsonObject(req('  '))).toBeUndefined();
  });
  it('answers 400 INVALID_JSON for malformed JSON and for non-objects', () => {
    expect(thrown(() => readJsonObject(req('{"a":')))).toMatchObject({ status: 400, code: 'INVALID_JSON' });
    expect(thrown(() => readJsonObject(req('[1]')))).toMatchObject({ status: 400, code: 'INVALID_JSON' });
  });
});

describe('parseJson (the one bounded reader)', () => {
  it('refuses JSON nested deeper than the limit before parsing it, and counts no bracket inside a string', async () => {
    const { parseJson, jsonDepth, MAX_JSON_DEPTH } = await import('../../lambdas/platform/json');
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(() => parseJson(deep)).toThrow(/nested deeper than/);
    try {
      parseJson(deep);
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).status).toBe(400);
      expect((e as AppError).code).toBe('INVALID_JSON');
    }
    expect(jsonDepth('{"a":"[[[[[[","b":[1,{"c":2}]}')).toBe(3);
    expect(parseJson(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).toBeInstanceOf(Array);
    expect(() => parseJson('x'.repeat(70_000))).toThrow(/larger than/);
  });
});
