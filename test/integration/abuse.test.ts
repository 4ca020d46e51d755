/**
 * Issue 10, findings 3 and 5, as an abuser would try them against `npm start`: a body nested
 * 5000 levels deep on every POST route (once it stopped the local server: an unhandled rejection
 * in the A2A task store), and floods that spent one global A2A budget for everyone. One process
 * of its own, so a crash shows as a dead process and the floods spend no other test's budget;
 * callers are told apart by their loopback source address (all of 127.0.0.0/8 on Linux).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROUTES, type RouteDefinition } from '../../lambdas/contract/routes';
import { requestFrom, type SourcedResponse } from '../support/source-address';
import { killStarted, runStart, sharedStackEnv, type StartedProcess } from '../support/spawn-start';
import { rateLimitedBody } from '../support/failure-bodies';

let s: StartedProcess;
beforeAll(async () => {
  s = await runStart(sharedStackEnv(inject));
}, 60_000);
afterAll(async () => {
  await s?.interrupt();
  killStarted();
});

/** Alive, and nothing reached the last-resort handlers of local/start.ts. */
const expectHealthy = async (): Promise<void> => {
  expect(s.child.exitCode, s.output()).toBeNull();
  expect(s.child.signalCode).toBeNull();
  expect(s.output()).not.toMatch(/unhandled rejection|uncaught exception/i);
  expect((await fetch(`${s.baseUrl}/api/health`)).status).toBe(200);
};

const nested = (levels: number): string => {
  let value = 'null';
  for (let i = 0; i < levels; i++) value = `{"a":${value}}`;
  return value;
};
const JSON_RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const isRpc = (r: RouteDefinition): boolean => r.domain === 'agents';

describe('a body nested 5000 levels deep', () => {
  const deep = nested(5000);

  it('is refused on every POST route of the route table, and the server keeps serving', async () => {
    expect(deep.length).toBeGreaterThan(29_000);
    const posts = (ROUTES as readonly RouteDefinition[]).filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(5);
    for (const route of posts) {
      const path = route.path.replace(/\{\w+\}/g, 'x');
      const res = await fetch(`${s.baseUrl}${path}`, { method: 'POST', headers: JSON_RPC_HEADERS, body: deep });
      const body = (await res.json()) as any;
      expect(res.status, route.operationId).toBeGreaterThanOrEqual(400);
      expect(res.status, route.operationId).toBeLessThan(500);
      if (isRpc(route)) expect(body, route.operationId).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      // Stripe's webhook checks the signature over the raw bytes before anything reads them.
      else if (route.operationId === 'postStripeWebhook')
        expect(body).toMatchObject({ ok: false, error_code: 'INVALID_WEBHOOK_SIGNATURE' });
      else expect(body, route.operationId).toMatchObject({ ok: false, error_code: 'INVALID_JSON', retry: false });
      await expectHealthy();
    }
  });

  it('as the data part of an A2A message/send (the reported ~30 KB request) is a JSON-RPC error, not a 503, and nothing is left unhandled', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-deep","role":"user","parts":[{"kind":"data","data":${deep}}]}}}`;
    expect(body.length).toBeGreaterThan(29_000);
    const res = await fetch(`${s.baseUrl}/api/a2a`, { method: 'POST', headers: JSON_RPC_HEADERS, body });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    // The SDK's unawaited error path rejected a moment after the answer: give it that moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expectHealthy();
  });
});

describe('per-caller rate limits', () => {
  const flood = async (n: number, send: () => Promise<SourcedResponse>): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await send()).status);
    return statuses;
  };

  it('A2A: junk from 127.0.0.3 spends its own 120 per minute, not the budget of 127.0.0.4', async () => {
    const junk = () => requestFrom('127.0.0.3', `${s.baseUrl}/api/a2a`, { method: 'POST', headers: JSON_RPC_HEADERS, body: 'junk' });
    expect((await flood(120, junk)).filter((x) => x === 429)).toEqual([]);
    const limited = await junk();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32029, data: { retry_after_seconds: expect.any(Number) } } });
    const other = await requestFrom('127.0.0.4', `${s.baseUrl}/api/a2a`, {
      method: 'POST',
      headers: JSON_RPC_HEADERS,
      body: '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"no-such-task"}}',
    });
    expect(other.status).toBe(200);
    expect(other.body.error.code).toBe(-32001);
  });

  it('MCP: the same, with its own budget', async () => {
    const junk = () => requestFrom('127.0.0.3', `${s.baseUrl}/api/mcp`, { method: 'POST', headers: JSON_RPC_HEADERS, body: 'junk' });
    expect((await flood(120, junk)).filter((x) => x === 429)).toEqual([]);
    const limited = await junk();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32029, data: { retry_after_seconds: expect.any(Number) } } });
    const other = await requestFrom('127.0.0.4', `${s.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: JSON_RPC_HEADERS,
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(other.status).toBe(200);
    expect(other.body.result.tools.length).toBeGreaterThan(0);
  });

  it("unlock: the 301st POST to /api/pay and /api/recover from 127.0.0.5 in a minute is 429 RATE_LIMITED with the spec's body; 127.0.0.6 is served", async () => {
    const to = (from: string, path: string) => () => requestFrom(from, `${s.baseUrl}${path}`, { method: 'POST' });
    // One budget for both paths: 200 to /api/pay and 100 to /api/recover.
    const statuses = [...(await flood(200, to('127.0.0.5', '/api/pay'))), ...(await flood(100, to('127.0.0.5', '/api/recover')))];
    expect(statuses.filter((x) => x === 429)).toEqual([]);
    for (const path of ['/api/pay', '/api/recover']) {
      const limited = await to('127.0.0.5', path)();
      expect(limited.status, path).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.body).toMatchObject(rateLimitedBody());
    }
    const other = await to('127.0.0.6', '/api/pay')();
    expect(other.status).not.toBe(429);
    expect(other.body.ok).toBe(false); // no proof sent: refused for that, not for the flood
    expect(other.body.error_code).not.toBe('RATE_LIMITED');
    await expectHealthy();
  });

  it('mandates: the 31st POST from 127.0.0.7 in a minute is 429, in a budget of its own (the other wallet writes and 127.0.0.8 are served)', async () => {
    // Issue 31: a created mandate is kept for good and a fresh wallet signs for free, so mandates get a tighter budget.
    const to = (from: string, path: string) => () =>
      requestFrom(from, `${s.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await flood(30, to('127.0.0.7', '/api/mandates'))).filter((x) => x === 429)).toEqual([]);
    const limited = await to('127.0.0.7', '/api/mandates')();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ ok: false, error_code: 'RATE_LIMITED', retry: true, details: { scope: 'mandates', limit: 30 } });
    for (const [from, path] of [
      ['127.0.0.7', '/api/meter'],
      ['127.0.0.8', '/api/mandates'],
    ] as const) {
      const res = await to(from, path)();
      expect(res.status, `${from} ${path}`).toBe(400); // the empty body's refusal, not the flood's
      expect(res.body.error_code).toBe('INVALID_REQUEST');
    }
    await expectHealthy();
  });
});
