import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTimeout } from '../../local/gateway-timeout';
import { bytesOf, startEdgeServer, VIEWER_TIMEOUTS } from '../../local/edge-server';
import { parseTarget, toLambdaEvent } from '../../local/lambda-event';
import { runInNewContext } from 'node:vm';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_FUNCTION, VIEWER_ADDRESS_HEADER } from '../../lambdas/contract/edge-identity';

/** What the local edge reported before its fast path: the WHATWG URL parser's reading. */
function byUrlParser(target: string): { path: string; rawQueryString: string } | undefined {
  try {
    const url = new URL(target, 'http://localhost');
    return { path: url.pathname, rawQueryString: url.search.slice(1) };
  } catch {
    return undefined;
  }
}

describe('parseTarget (the local edge reads a request target once)', () => {
  const tricky = [
    '/',
    '/api/health',
    '/api/pay?skill=agent-x402-first-buy',
    '/api/catalog?q=a+b&tag=x&tag=y',
    '/api?',
    '/api/x?',
    '/.well-known/agent-card.json',
    '/api/../etc/passwd',
    '/api/./health',
    '/api/%2e%2e/health',
    '/api/.%2E/health',
    '/api/..',
    '/api/.',
    '/api/..?x=1',
    '/api/...',
    '/api/.hidden',
    '//evil.example/api/health',
    '/api\\..\\health',
    '/api/a b',
    '/api/é',
    "/api/it's",
    "/api/x?q=it's",
    '/api/x?q=a b',
    '/api/x?q="x"',
    '/api/x#frag',
    '/api/x?q=1#frag',
    '/api/x?q=%zz',
    '/api/x?q=%41',
    '/api/{x}',
    '/api/x?q={x}|^`',
    'http://other.example/api/health?x=1',
    '*',
    '',
  ];
  it.each(tricky)('reads %j as the URL parser does', (target) => {
    expect(parseTarget(target)).toEqual(byUrlParser(target));
  });

  it('reads 5,000 random targets as the URL parser does', () => {
    const pool = [
      '/',
      '/',
      'a',
      'Z',
      '0',
      '.',
      '.',
      '..',
      '%',
      '%2e',
      '%2E',
      '?',
      '?',
      '#',
      '&',
      '=',
      '+',
      ' ',
      '\\',
      "'",
      '"',
      '~',
      '@',
      ':',
      ';',
      '{',
      '|',
      'é',
      '\t',
    ];
    let seed = 42;
    const next = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 5_000; i++) {
      let target = '/';
      for (let j = next(12); j > 0; j--) target += pool[next(pool.length)];
      expect(parseTarget(target), target).toEqual(byUrlParser(target));
    }
  });
});

describe('gatewayTimeout (API Gateway gives up on a handler after its timeout)', () => {
  /** The guard's outcome as a promise, for the tests: a value resolves, an error rejects. */
  const guarded =
    (guard: ReturnType<typeof gatewayTimeout>) =>
    <T>(work: Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) => guard(work, (o) => (o.ok ? resolve(o.value) : reject(o.error))));

  it('passes an answer or a failure through unchanged, once', async () => {
    const guard = guarded(gatewayTimeout(1_000, 10));
    await expect(guard(Promise.resolve('answer'))).resolves.toBe('answer');
    await expect(guard(Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    const calls: unknown[] = [];
    gatewayTimeout(30, 10)(Promise.resolve('only'), (o) => calls.push(o));
    await new Promise((r) => setTimeout(r, 80));
    expect(calls).toEqual([{ ok: true, value: 'only' }]);
  });

  it('answers 503 INTERNAL_ERROR with retry true once the timeout has passed, and ignores a late answer', async () => {
    const guard = guarded(gatewayTimeout(50, 10));
    let late: (e: Error) => void = () => undefined;
    const started = Date.now();
    const outcome = guard(new Promise<string>((_, reject) => (late = reject))).catch((e: unknown) => e);
    const err = (await outcome) as { status: number; code: string; retry: boolean; message: string };
    const waited = Date.now() - started;
    expect({ status: err.status, code: err.code, retry: err.retry }).toEqual({ status: 503, code: 'INTERNAL_ERROR', retry: true });
    expect(err.message).toContain('0.05 s');
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(waited).toBeLessThan(1_000);
    // A handler failing after the timeout has nobody to tell: no unhandled rejection, no second outcome.
    const after: unknown[] = [];
    const g = gatewayTimeout(20, 5);
    let fail: (e: Error) => void = () => undefined;
    g(new Promise<string>((_, reject) => (fail = reject)), (o) => after.push(o.ok));
    await new Promise((r) => setTimeout(r, 60));
    late(new Error('too late'));
    fail(new Error('too late'));
    await new Promise((r) => setTimeout(r, 20));
    expect(after).toEqual([false]);
  });

  it('times out each waiting request on its own', async () => {
    const guard = guarded(gatewayTimeout(40, 10));
    const slow = guard(new Promise<string>(() => undefined)).catch(() => 'timed out');
    const quick = guard(new Promise<string>((resolve) => setTimeout(() => resolve('answered'), 5)));
    expect(await Promise.all([slow, quick])).toEqual(['timed out', 'answered']);
  });
  it('keeps the other waiting requests when one in the middle, first or last answers, and answers each once', async () => {
    const guard = gatewayTimeout(60, 10);
    const answers: ((v: string) => void)[] = [];
    const calls: string[] = [];
    for (const i of [0, 1, 2, 3, 4])
      guard(new Promise<string>((resolve) => (answers[i] = resolve)), (o) =>
        calls.push(o.ok ? o.value : `${i}: ${(o.error as { code: string }).code}`),
      );
    for (const i of [2, 0, 4]) answers[i]!(`${i}: answered`);
    await new Promise((r) => setTimeout(r, 150));
    expect(calls.sort()).toEqual(['0: answered', '1: INTERNAL_ERROR', '2: answered', '3: INTERNAL_ERROR', '4: answered']);
    // The list is empty again: a new request is timed out on its own schedule.
    await expect(guarded(guard)(new Promise<string>(() => undefined))).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});

describe('bytesOf (the edge encodes a large answer it saw recently once)', () => {
  it('gives the UTF-8 bytes of a large text, the same bytes for the same text, and never stale ones', () => {
    const page = `{"name":"Müller — 東京","pad":"${'x'.repeat(5000)}"}`;
    const first = bytesOf(page);
    expect(Buffer.isBuffer(first)).toBe(true);
    expect((first as Buffer).equals(Buffer.from(page, 'utf8'))).toBe(true);
    expect(bytesOf(page)).toBe(first);
    // Same length, other text: its own bytes.
    const other = page.replace('Müller', 'Mueler');
    expect(other.length).toBe(page.length);
    expect((bytesOf(other) as Buffer).toString('utf8')).toBe(other);
    // After many other answers the first is forgotten, and encoded again correctly.
    for (let i = 0; i < 20; i++) bytesOf(`${'y'.repeat(5000)}${i}`);
    expect((bytesOf(page) as Buffer).toString('utf8')).toBe(page);
  });

  it('leaves small and very large texts as strings', () => {
    expect(bytesOf('{"ok":true}')).toBe('{"ok":true}');
    const huge = 'z'.repeat(2 * 1024 * 1024);
    expect(bytesOf(huge)).toBe(huge);
  });
});

describe('slow viewers (issue 31, finding 9): the edge closes what trickles in, as a CDN edge does', () => {
  /** Short limits for the test; the production values are checked as data below. */
  const LIMITS = { headersMs: 1_000, requestMs: 2_000, checkEveryMs: 100 };
  /** One sweep late at most, plus scheduling on a shared machine. */
  const SLACK_MS = LIMITS.checkEveryMs + 700;
  let server: Server;
  let port: number;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'edge-slow-'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>x</title>');
    server = await startEdgeServer({ port: 0, publicDir: root, viewerTimeouts: LIMITS });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  interface Outcome {
    /** When the edge ended its side (the viewer read to the end), from the connection's start. */
    endedAfterMs: number;
    /** What the edge sent before closing. */
    answer: string;
  }

  /**
   * One viewer on loopback: sends `first`, then `drip` every `everyMs` until the edge ends the
   * connection; a polite viewer then closes its side, a rude one keeps writing until the edge drops it.
   */
  function viewer(first: string, drip: string | undefined, everyMs: number, rude = false): Promise<Outcome & { closedAfterMs: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      let answer = '';
      let endedAfterMs = -1;
      let timer: NodeJS.Timeout | undefined;
      const socket: Socket = connect(port, '127.0.0.1', () => {
        socket.write(first);
        if (drip !== undefined) timer = setInterval(() => socket.writable && socket.write(drip), everyMs);
      });
      socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
      socket.on('end', () => {
        endedAfterMs = Date.now() - started;
        if (!rude) {
          clearInterval(timer);
          socket.end();
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        if (endedAfterMs < 0) return reject(new Error(`closed without an answer after ${Date.now() - started} ms: ${answer}`));
        resolve({ endedAfterMs, answer, closedAfterMs: Date.now() - started });
      });
    });
  }

  const expect408 = (o: Outcome): void => {
    expect(o.answer).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(o.answer.slice(o.answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: false, error_code: 'REQUEST_TIMEOUT', retry: true });
  };

  it('60 viewers trickling their headers, and 10 sending nothing, are each answered 408 REQUEST_TIMEOUT and closed within the limit', async () => {
    const trickling = Array.from({ length: 60 }, (_, i) => viewer(`GET /?v=${i} HTTP/1.1\r\nHost: 127.0.0.1\r\n`, 'X-Slow: a\r\n', 150));
    const silent = Array.from({ length: 10 }, () => viewer('', undefined, 0));
    const outcomes = await Promise.all([...trickling, ...silent]);
    for (const o of outcomes) {
      expect408(o);
      expect(o.endedAfterMs).toBeGreaterThanOrEqual(LIMITS.headersMs - 50);
      expect(o.endedAfterMs).toBeLessThanOrEqual(LIMITS.headersMs + SLACK_MS);
    }
    // And the edge still serves.
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
  });

  it('a viewer trickling its body is answered 408 at the whole-request limit', async () => {
    const o = await viewer('POST /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n', 'a', 150);
    expect408(o);
    expect(o.endedAfterMs).toBeGreaterThanOrEqual(LIMITS.requestMs - 50);
    expect(o.endedAfterMs).toBeLessThanOrEqual(LIMITS.requestMs + SLACK_MS);
  });

  it('a viewer that keeps writing after the 408 still reads its answer, and is dropped', async () => {
    const o = await viewer(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n`, 'X-Slow: a\r\n', 150, true);
    expect408(o);
    // At the latest once the edge's linger (5 s, so the answer is read rather than reset) is over.
    expect(o.closedAfterMs).toBeLessThanOrEqual(LIMITS.headersMs + 5_000 + SLACK_MS);
  }, 15_000);

  it('a request sent promptly is answered, and its kept-alive connection outlives the header limit while idle', async () => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let closed = false;
    socket.on('data', (c: Buffer) => (received += c.toString('utf8')));
    socket.on('close', () => (closed = true));
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await expect.poll(() => received, { timeout: 2_000 }).toMatch(/^HTTP\/1\.1 200 /);
    await new Promise((r) => setTimeout(r, LIMITS.headersMs + SLACK_MS));
    expect(closed).toBe(false);
    socket.destroy();
  });

  it('the production limits: headers in 10 s, the whole request in 30 s, enforced every second, and applied by default', async () => {
    expect(VIEWER_TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 });
    // Headers first, then the body, within API Gateway's 30 s; a sweep is a small part of the header limit.
    expect(VIEWER_TIMEOUTS.headersMs).toBeLessThan(VIEWER_TIMEOUTS.requestMs);
    expect(VIEWER_TIMEOUTS.checkEveryMs * 10).toBeLessThanOrEqual(VIEWER_TIMEOUTS.headersMs);
    const plain = await startEdgeServer({ port: 0, publicDir: root });
    try {
      expect(plain.headersTimeout).toBe(VIEWER_TIMEOUTS.headersMs);
      expect(plain.requestTimeout).toBe(VIEWER_TIMEOUTS.requestMs);
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});

describe('toLambdaEvent (the local edge sends what CloudFront sends; issue 31, finding 2)', () => {
  /** A request as node:http hands it over: a viewer at `viewer` reaching the edge listening on `edge`. */
  const request = (viewer: string, edge: string, headers: Record<string, string>) =>
    ({
      method: 'POST',
      url: '/api/pay',
      httpVersion: '1.1',
      headers,
      socket: { remoteAddress: viewer, localAddress: edge },
    }) as unknown as IncomingMessage;
  const route = { routeKey: 'POST /api/pay', pathParameters: {}, domainName: '127.0.0.1' };

  it("gives API Gateway's peer as the edge's own address, the viewer in the viewer-address header, and the origin secret", () => {
    const forged = { [VIEWER_ADDRESS_HEADER]: '203.0.113.66', [ORIGIN_VERIFY_HEADER]: 'guessed', 'x-forwarded-for': '10.9.8.7' };
    const a = toLambdaEvent(request('127.0.0.21', '127.0.0.1', forged), Buffer.alloc(0), route, undefined, 'the-local-secret');
    const b = toLambdaEvent(request('127.0.0.22', '127.0.0.1', {}), Buffer.alloc(0), route, undefined, 'the-local-secret');
    // One upstream address for every viewer, as CloudFront's edge host is for API Gateway.
    expect(a.requestContext.http.sourceIp).toBe('127.0.0.1');
    expect(b.requestContext.http.sourceIp).toBe('127.0.0.1');
    // What the viewer sent under those names is overwritten, as CloudFront's function and origin header do.
    expect(a.headers[VIEWER_ADDRESS_HEADER]).toBe('127.0.0.21');
    expect(b.headers[VIEWER_ADDRESS_HEADER]).toBe('127.0.0.22');
    expect(a.headers[ORIGIN_VERIFY_HEADER]).toBe('the-local-secret');
    expect(a.headers['x-forwarded-for']).toBe('10.9.8.7, 127.0.0.21, 127.0.0.1');
    // Without a secret the edge passes none, not the viewer's.
    expect(toLambdaEvent(request('127.0.0.21', '127.0.0.1', forged), Buffer.alloc(0), route).headers[ORIGIN_VERIFY_HEADER]).toBeUndefined();
  });

  it('writes the viewer address as the CloudFront Function does', () => {
    const viewer = '2001:db8::21';
    const edge = toLambdaEvent(request(viewer, '::1', { [VIEWER_ADDRESS_HEADER]: 'forged' }), Buffer.alloc(0), route, undefined, 's');
    const cloudFront = runInNewContext(
      `${VIEWER_ADDRESS_FUNCTION}; handler(${JSON.stringify({ viewer: { ip: viewer }, request: { headers: { [VIEWER_ADDRESS_HEADER]: { value: 'forged' } } } })})`,
    ) as { headers: Record<string, { value: string }> };
    expect(edge.headers[VIEWER_ADDRESS_HEADER]).toBe(cloudFront.headers[VIEWER_ADDRESS_HEADER]!.value);
  });
});
