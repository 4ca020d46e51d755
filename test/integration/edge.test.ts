import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { API_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from '../../lambdas/contract/security-headers';

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
      'relayer',
    ]);
    for (const c of checks) expect(c, c.name).toMatchObject({ ok: true });
    expect(checks.find((c) => c.name === 'relayer')!.detail).toMatch(
      // The pool of 4 keys (relayerKeys' default), the first still the relayer's one-key address.
      /^4 of 4 relayer keys hold the minimum for gas \(0\.002 ETH\): 0x71bE63f3384f5fb98995898A86B02Fb2426c5788 holds \d+(\.\d+)? ETH(; 0x[0-9a-fA-F]{40} holds \d+(\.\d+)? ETH){3}$/,
    );
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
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ');
    // The spec's proof header, x402 v2's signed authorization, and the wallet sign-in a buyer re-accesses with.
    expect(allowed).toEqual(expect.arrayContaining(['X-PAYMENT', 'PAYMENT-SIGNATURE', 'SIGN-IN-WITH-X']));
    const exposed = (await fetch(`${base}/api/pay?skill=agent-x402-first-buy`)).headers.get('access-control-expose-headers')!.split(', ');
    // The payment headers, and the challenge of a checkout session's 401 (WWW-Authenticate).
    expect(exposed).toEqual(
      expect.arrayContaining(['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-PAYMENT-REQUIRED', 'X-PAYMENT-RESPONSE', 'WWW-Authenticate']),
    );
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

  it('serves the storefront: pages revalidated by ETag, hashed assets immutable', async () => {
    const home = await (await fetch(`${base}/`)).text();
    const assets = [...home.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const path of assets) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(/^(text\/javascript|text\/css)/);
    }
    const skill = await fetch(`${base}/skills/csv-cleaner/`);
    expect(skill.headers.get('content-type')).toMatch(/text\/html/);
    expect(skill.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it.each(['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json', '/missing.json'])('never serves %s', async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toMatch(/skill-market|dependencies/);
  });
});

describe('security headers on every answer, as CloudFront’s response headers policies add them (issue 31, finding 7)', () => {
  const expectHeaders = (headers: Headers, expected: Record<string, string>, what: string): void => {
    for (const [name, value] of Object.entries(expected)) expect(headers.get(name), `${what}: ${name}`).toBe(value);
  };

  it.each(['/', '/skills/csv-cleaner/', '/proof/', '/recover/', '/checkout/success?session_id=cs_test_x', '/checkout/cancel/'])(
    'the page %s: CSP with frame-ancestors none, X-Frame-Options, nosniff, Referrer-Policy',
    async (path) => {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expectHeaders(res.headers, PAGE_SECURITY_HEADERS, path);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    },
  );

  it('every other static answer too: an asset, catalog.json, a 304, a HEAD, a 404 and a 405', async () => {
    const home = await (await fetch(`${base}/`)).text();
    const asset = home.match(/src="(\/assets\/[^"]+)"/)![1]!;
    const first = await fetch(`${base}/catalog.json`);
    const answers: [string, Response][] = [
      [asset, await fetch(`${base}${asset}`)],
      ['catalog.json', first],
      ['304', await fetch(`${base}/catalog.json`, { headers: { 'if-none-match': first.headers.get('etag')! } })],
      ['HEAD', await fetch(`${base}/proof/`, { method: 'HEAD' })],
      ['404', await fetch(`${base}/missing.json`)],
      ['405', await fetch(`${base}/`, { method: 'POST' })],
    ];
    expect(answers.map(([, r]) => r.status)).toEqual([200, 200, 304, 200, 404, 405]);
    for (const [what, res] of answers) expectHeaders(res.headers, PAGE_SECURITY_HEADERS, what);
  });

  it('every API answer carries the API’s (a CSP that loads nothing), refusals and the edge’s own JSON included', async () => {
    const answers: [string, Response][] = [
      ['health', await fetch(`${base}/api/health`)],
      ['well-known', await fetch(`${base}/.well-known/acp.json`)],
      ['404', await fetch(`${base}/api/nothing-here`)],
      ['405', await fetch(`${base}/api/health`, { method: 'DELETE' })],
      ['400 path', await fetch(`${base}/api/acp/checkout_sessions/%zz`)],
    ];
    for (const [what, res] of answers) expectHeaders(res.headers, API_SECURITY_HEADERS, what);
    const raw = await rawRequest(['GET http://[ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n']);
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) expect(raw.headers[name], `raw 400: ${name}`).toBe(value);
  });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses one HTTP/1.1 answer read off a socket: status line, headers, then the body up to Content-Length. */
function parseAnswer(bytes: Buffer): RawAnswer {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  const length = Number(headers['content-length'] ?? bytes.length);
  const body = bytes.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')).subarray(0, length);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body.toString('utf8') };
}

/** Sends exactly these bytes on a fresh connection and reads until the server closes it; a reset fails. */
function rawRequest(parts: (string | Buffer)[]): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      for (const p of parts) socket.write(p);
      socket.end();
    });
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    socket.on('error', reject);
    socket.on('close', (hadError) => {
      if (hadError) return;
      try {
        resolve(parseAnswer(Buffer.concat(received)));
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}

/** A request through node:http, which (unlike fetch) sends the Host header it is given. */
function withHost(path: string, init: { method?: string; headers: Record<string, string>; body?: string }): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const expectFailure = (answer: RawAnswer, status: number, code: string): void => {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toMatchObject({ ok: false, error: code.toLowerCase(), error_code: code });
  expect(typeof body['message']).toBe('string');
  expect(typeof body['tip']).toBe('string');
  expect(typeof body['retry']).toBe('boolean');
};

const expectStillServing = async (): Promise<void> => {
  expect((await fetch(`${base}/api/health`)).status).toBe(200);
};

describe('the edge never trusts Host', () => {
  const evil = { host: 'evil.example' };

  it('advertises the real base URL in the agent card and GET /api/a2a whatever Host says', async () => {
    for (const path of ['/.well-known/agent.json', '/api/a2a']) {
      const answer = await withHost(path, { headers: evil });
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).not.toMatch(/evil\.example/);
      expect((JSON.parse(answer.body) as { url: string }).url, path).toBe(`${base}/api/a2a`);
    }
  });

  it('refuses POST /api/mcp from a foreign Origin even when Host names that origin (DNS rebinding)', async () => {
    const answer = await withHost('/api/mcp', {
      method: 'POST',
      headers: {
        ...evil,
        origin: 'http://evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(answer.status, answer.body.slice(0, 200)).toBe(403);
  });
});

describe('malformed requests get the JSON failure body, and the server keeps serving', () => {
  it('answers conflicting Content-Length and Transfer-Encoding with 400 INVALID_REQUEST', async () => {
    const answer = await rawRequest([
      'POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ]);
    expectFailure(answer, 400, 'INVALID_REQUEST');
    await expectStillServing();
  });

  it('answers a request target that is no URL with 400 INVALID_REQUEST instead of throwing in the server', async () => {
    const answer = await rawRequest(['GET http://[ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n']);
    expectFailure(answer, 400, 'INVALID_REQUEST');
    await expectStillServing();
  });

  it.each([
    ['GET', '/api/acp/checkout_sessions/%zz'],
    ['POST', '/api/ucp/checkout-sessions/%E0%A4%A/cancel'],
  ])(
    'answers %s %s (a path parameter that is no valid percent-encoding) with 400 INVALID_REQUEST, not a retryable fault',
    async (method, path) => {
      const { res, body } = await getJson(path, { method });
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST', retry: false });
    },
  );

  it('answers a 20 KB header with 431 HEADERS_TOO_LARGE', async () => {
    const answer = await rawRequest([`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`]);
    expectFailure(answer, 431, 'HEADERS_TOO_LARGE');
    await expectStillServing();
  });

  it.each(['content-length', 'chunked'])('answers an 11 MB body (%s) with 413 PAYLOAD_TOO_LARGE, not a reset', async (framing) => {
    const mb = Buffer.alloc(1024 * 1024, 'x');
    const parts: (string | Buffer)[] =
      framing === 'chunked'
        ? [
            'POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
            ...Array.from({ length: 11 }, () => [`${mb.length.toString(16)}\r\n`, mb, '\r\n']).flat(),
            '0\r\n\r\n',
          ]
        : [
            `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${11 * mb.length}\r\n\r\n`,
            ...Array.from({ length: 11 }, () => mb),
          ];
    const answer = await rawRequest(parts);
    expectFailure(answer, 413, 'PAYLOAD_TOO_LARGE');
    await expectStillServing();
  });
});
