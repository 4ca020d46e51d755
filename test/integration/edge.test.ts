import { describe, expect, inject, it } from 'vitest';

const base = inject('baseUrl');

async function getJson(path: string, init?: RequestInit) {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  expect(res.headers.get('content-type'), `${path} content-type`).toMatch(/^application\/json/);
  return { res, body: JSON.parse(text) as Record<string, unknown> };
}

describe('API through the local edge server', () => {
  it('GET /api/health answers 200 liveness', async () => {
    const { res, body } = await getJson('/api/health');
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ ok: true, status: 'live' });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET /api/ready is ready on the local parts, with every check ok', async () => {
    const { res, body } = await getJson('/api/ready');
    expect(res.status).toBe(200);
    expect(body['ready']).toBe(true);
    const checks = body['checks'] as { name: string; ok: boolean; detail: string }[];
    expect(checks.map((c) => c.name)).toEqual([
      'catalog',
      'challenge_shape',
      'challenge_live_402',
      'sealed_pack',
      'money_safety',
      'tables',
      'chain',
    ]);
    for (const c of checks) expect(c, c.name).toMatchObject({ ok: true });
    expect(checks.find((c) => c.name === 'chain')!.detail).toMatch(/chain id 8453/);
    expect(checks.find((c) => c.name === 'catalog')!.detail).toMatch(/^250 skills/);
  });

  it.each(['/api/nope', '/api/', '/api', '/.well-known/nothing', '/api/health/extra'])(
    'unknown %s is a JSON 404, never HTML',
    async (path) => {
      const { res, body } = await getJson(path);
      expect(res.status).toBe(404);
      expect(body).toMatchObject({ ok: false, error: 'not_found', error_code: 'not_found', retry: false });
      expect(typeof body['message']).toBe('string');
      expect(typeof body['tip']).toBe('string');
    },
  );

  it('a known path with the wrong method is a JSON 405 naming the allowed method', async () => {
    const { res, body } = await getJson('/api/health', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(body['error_code']).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers CORS preflights for the payment headers', async () => {
    const res = await fetch(`${base}/api/pay`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-payment' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/X-PAYMENT/);
  });

  it('refuses an oversized body with a JSON 413', async () => {
    const { res, body } = await getJson('/api/nope', {
      method: 'POST',
      body: 'x'.repeat(70 * 1024),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(body['error_code']).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('static files as CloudFront serves them', () => {
  it('serves the landing page with a strong ETag and answers 304 to it', async () => {
    const first = await fetch(`${base}/`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/text\/html/);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await fetch(`${base}/index.html`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it.each(['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json', '/missing.json'])('never serves %s', async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toMatch(/skill-market|dependencies/);
  });
});
