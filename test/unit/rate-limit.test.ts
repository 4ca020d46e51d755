/**
 * The per-caller limiter (lambdas/platform/rate-limit.ts) and the limits the route table
 * declares for it.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, routeKey, type RouteDefinition } from '../../lambdas/contract/routes';
import { failureBody } from '../../lambdas/platform/errors';
import { keyedSlidingWindowLimiter, rateLimited, scopedRateLimiters, slidingWindowLimiter } from '../../lambdas/platform/rate-limit';

describe('slidingWindowLimiter', () => {
  it('admits exactly the limit in any rolling window and says when a slot frees', () => {
    const limiter = slidingWindowLimiter(3, 60_000);
    expect([limiter.take(0), limiter.take(10_000), limiter.take(20_000)]).toEqual([undefined, undefined, undefined]);
    expect(limiter.take(30_000)).toBe(30);
    expect(limiter.take(60_000)).toBe(undefined); // the first stamp has left the window
    expect(limiter.take(60_001)).toBe(10);
  });

  it('does not count refused requests, so a caller hammering a full window gets in once a slot frees', () => {
    const limiter = slidingWindowLimiter(2, 1_000);
    expect([limiter.take(0), limiter.take(1)]).toEqual([undefined, undefined]);
    for (let t = 2; t < 1_000; t += 10) expect(limiter.take(t)).toBeGreaterThanOrEqual(1);
    expect(limiter.take(1_000)).toBe(undefined);
  });
});

describe('keyedSlidingWindowLimiter', () => {
  it('keeps one window per caller: a caller at its limit does not limit another', () => {
    const limiter = keyedSlidingWindowLimiter(120, 60_000);
    for (let i = 0; i < 120; i++) expect(limiter.take('127.0.0.3', i)).toBe(undefined);
    expect(limiter.take('127.0.0.3', 200)).toBe(60);
    expect(limiter.take('127.0.0.4', 200)).toBe(undefined);
  });

  it('remembers at most maxKeys callers, forgetting the least recently seen first', () => {
    const limiter = keyedSlidingWindowLimiter(1, 60_000, 2);
    expect([limiter.take('a', 0), limiter.take('b', 0)]).toEqual([undefined, undefined]);
    expect(limiter.take('a', 1)).toBe(60); // touches a: b is now the least recently seen
    expect(limiter.take('c', 2)).toBe(undefined); // evicts b
    expect(limiter.take('a', 3)).toBe(60); // a is still remembered
    expect(limiter.take('b', 4)).toBe(undefined); // b starts afresh
  });
});

describe('scopedRateLimiters', () => {
  const unlock = { scope: 'unlock', requests: 2, perSeconds: 60 };

  it('shares one budget per scope and caller, whatever route spends it', () => {
    const limiters = scopedRateLimiters();
    expect(limiters.take(unlock, '10.0.0.1', 0)).toBe(undefined);
    expect(limiters.take({ ...unlock }, '10.0.0.1', 1)).toBe(undefined);
    expect(limiters.take(unlock, '10.0.0.1', 2)).toBe(60);
    expect(limiters.take({ scope: 'mcp', requests: 2, perSeconds: 60 }, '10.0.0.1', 2)).toBe(undefined);
  });

  it('refuses one scope declared with two sizes', () => {
    const limiters = scopedRateLimiters();
    limiters.take(unlock, 'x', 0);
    expect(() => limiters.take({ ...unlock, requests: 3 }, 'x', 1)).toThrow(/two different limits/);
  });
});

describe('rateLimited', () => {
  it("is the spec's failure body: 429 RATE_LIMITED, retry true, with Retry-After", () => {
    const err = rateLimited(17, { scope: 'unlock', requests: 300, perSeconds: 60 });
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({ 'retry-after': '17' });
    expect(failureBody(err)).toMatchObject({ ok: false, error: 'rate_limited', error_code: 'RATE_LIMITED', retry: true });
    expect(failureBody(err).tip).toMatch(/17 s/);
  });
});

describe('the route table limits', () => {
  const limitOf = (method: string, path: string) =>
    (ROUTES as readonly RouteDefinition[]).find((r) => routeKey(r) === `${method} ${path}`)?.rateLimit;

  it('limits A2A and MCP per caller at 120 per 60 s, and the unlock paths together at 300 per 60 s', () => {
    expect(limitOf('POST', '/api/a2a')).toEqual({ scope: 'a2a', requests: 120, perSeconds: 60 });
    expect(limitOf('POST', '/api/mcp')).toEqual({ scope: 'mcp', requests: 120, perSeconds: 60 });
    expect(limitOf('POST', '/api/pay')).toEqual({ scope: 'unlock', requests: 300, perSeconds: 60 });
    expect(limitOf('POST', '/api/recover')).toEqual({ scope: 'unlock', requests: 300, perSeconds: 60 });
  });

  it('declares one size per scope, within one domain (a scope is one budget in one function)', () => {
    const byScope = new Map<string, RouteDefinition>();
    for (const r of ROUTES as readonly RouteDefinition[]) {
      if (!r.rateLimit) continue;
      const first = byScope.get(r.rateLimit.scope);
      if (!first) byScope.set(r.rateLimit.scope, r);
      else {
        // The same budget; a route may count only requests carrying some headers (`onlyWith`).
        const { onlyWith: _a, ...size } = r.rateLimit;
        const { onlyWith: _b, ...firstSize } = first.rateLimit!;
        expect(size, r.operationId).toEqual(firstSize);
        expect(r.domain, r.operationId).toBe(first.domain);
      }
    }
  });
});
