import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES, activeDomains, matchRoute, routeKey, type RouteDefinition } from '../../lambdas/contract/routes';

describe('route table', () => {
  it('has unique route keys and operation ids', () => {
    expect(new Set(ROUTES.map(routeKey)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(ROUTES.length);
  });

  it('limits per caller every route that stores rows for a caller who paid nothing, and not the pay path (issue 31)', () => {
    const limited = (id: string) => (ROUTES as readonly RouteDefinition[]).find((r) => r.operationId === id)?.rateLimit;
    // Intents; mandates; subscription and meter writes; checkout sessions; the unlock (a signed claim's nonce); A2A tasks.
    for (const id of [
      'postIntent',
      'postMandates',
      'postSubscribe',
      'postMeter',
      'createAcpCheckout',
      'updateAcpCheckout',
      'completeAcpCheckout',
      'cancelAcpCheckout',
      'createUcpCheckout',
      'updateUcpCheckout',
      'completeUcpCheckout',
      'cancelUcpCheckout',
      'postPay',
      'postRecover',
      'postA2a',
      'postMcp',
    ])
      expect(limited(id), id).toBeDefined();
    expect(limited('postIntent')).toEqual({ scope: 'intent', requests: 20, perSeconds: 60 });
    expect(limited('postMandates')).toEqual({ scope: 'mandates', requests: 30, perSeconds: 60 });
    // The spec: "no hard public rate limit" on the skill pay path; its sign-in stores nothing instead.
    expect(limited('getPay')).toBeUndefined();
    // Every other POST or PUT is Stripe's signed webhook, which stores only what Stripe reports paid.
    const unlimitedWrites = ROUTES.filter((r) => r.method !== 'GET' && !(r as RouteDefinition).rateLimit).map((r) => r.operationId);
    expect(unlimitedWrites).toEqual(['postStripeWebhook']);
  });

  it('has a Lambda entry for every active domain', () => {
    for (const domain of activeDomains()) expect(existsSync(`lambdas/${domain}/handler.ts`), domain).toBe(true);
  });

  it('matches as API Gateway does, and knows the methods a path allows', () => {
    expect(matchRoute('GET', '/api/health').match?.route.operationId).toBe('getHealth');
    const wrongMethod = matchRoute('POST', '/api/health');
    expect(wrongMethod.match).toBeUndefined();
    expect(wrongMethod.allowed).toEqual(['GET']);
    expect(matchRoute('GET', '/api/health/').match).toBeUndefined();
    expect(matchRoute('GET', '/api/nope')).toEqual({ match: undefined, allowed: [] });
    // A path no pattern can match is answered from a frozen answer built once.
    expect(matchRoute('GET', '/api/catalog')).toBe(matchRoute('GET', '/api/catalog'));
    expect(Object.isFrozen(matchRoute('GET', '/api/catalog').match?.pathParameters)).toBe(true);
    expect(Object.isFrozen(matchRoute('DELETE', '/api/catalog').allowed)).toBe(true);
  });

  it('finds what testing every route pattern in table order finds, for every route and its near misses', () => {
    // The reference: each route's path as a pattern, tried in the table's order.
    const patterns = ROUTES.map((route) => ({
      route,
      regex: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '([^/]+)')}$`),
    }));
    const reference = (method: string, path: string) => {
      const allowed: string[] = [];
      let match: { operationId: string; values: string[] } | undefined;
      for (const { route, regex } of patterns) {
        const m = regex.exec(path);
        if (!m) continue;
        allowed.push(route.method);
        if (route.method === method && !match)
          match = { operationId: route.operationId, values: m.slice(1).map((v) => decodeURIComponent(v)) };
      }
      return { allowed, match };
    };
    const paths = new Set<string>(['/', '/api', '/api/', '/api/nope', '/.well-known/nope']);
    for (const { path } of ROUTES) {
      const filled = path.replace(/\{\w+\}/g, 'x-1');
      for (const p of [filled, `${filled}/`, `${filled}/more`, filled.slice(0, -1), path.replace(/\{\w+\}/g, 'a%20b'), path, `${path}x`])
        paths.add(p);
    }
    expect(paths.size).toBeGreaterThan(ROUTES.length * 3);
    for (const path of paths)
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS']) {
        const want = reference(method, path);
        const got = matchRoute(method, path);
        expect(got.allowed, `${method} ${path}`).toEqual(want.allowed);
        expect(got.match?.route.operationId, `${method} ${path}`).toBe(want.match?.operationId);
        expect(Object.values(got.match?.pathParameters ?? {}), `${method} ${path}`).toEqual(want.match?.values ?? []);
      }
  });
});
