import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeServer, VIEWER_TIMEOUTS, withinGatewayTimeout } from '../../local/edge-server';
import { toLambdaEvent } from '../../local/lambda-event';
import { runInNewContext } from 'node:vm';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_FUNCTION, VIEWER_ADDRESS_HEADER } from '../../lambdas/contract/edge-identity';

describe('the gateway timeout (API Gateway gives up on a function after 30 s)', () => {
  it('passes an answer or a failure through unchanged', async () => {
    await expect(withinGatewayTimeout(Promise.resolve('answer'), 1_000)).resolves.toBe('answer');
    await expect(withinGatewayTimeout(Promise.reject(new Error('refused')), 1_000)).rejects.toThrow('refused');
  });

  it('answers a hung function 503 INTERNAL_ERROR with retry true once the timeout has passed', async () => {
    let late: (e: Error) => void = () => undefined;
    const started = Date.now();
    const err = (await withinGatewayTimeout(new Promise<string>((_, reject) => (late = reject)), 50).catch((e: unknown) => e)) as {
      status: number;
      code: string;
      retry: boolean;
      message: string;
    };
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect({ status: err.status, code: err.code, retry: err.retry }).toEqual({ status: 503, code: 'INTERNAL_ERROR', retry: true });
    expect(err.message).toContain('0.05 s');
    // A function failing after the timeout has nobody to tell: the run would report an unhandled rejection.
    late(new Error('too late'));
    await new Promise((r) => setTimeout(r, 20));
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
