import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES, activeDomains, routeKey, type RouteDefinition } from '../../lambdas/contract/routes';
import { matchRoute } from '../../lambdas/platform/route-matcher';

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
    // The spec: "no hard public rate limit" on the skill pay path: its challenge is never limited. Carrying a
    // payment or a sign-in it verifies, settles or writes, and spends the unlock budget (issue 50, I7).
    expect(limited('getPay')).toEqual({ ...limited('postPay'), onlyWith: ['payment-signature', 'x-payment', 'sign-in-with-x'] });
    // Every other POST or PUT is Stripe's signed webhook, which stores only what Stripe reports paid.
    const unlimitedWrites = ROUTES.filter((r) => r.method !== 'GET' && !(r as RouteDefinition).rateLimit).map((r) => r.operationId);
    expect(unlimitedWrites).toEqual(['postStripeWebhook']);
  });

  it('has a Lambda entry for every active domain', () => {
    for (const domain of activeDomains()) expect(existsSync(`lambdas/${domain}/handler.ts`), domain).toBe(true);
  });
});

describe('matchRoute', () => {
  it('matches as API Gateway does, and knows the methods a path allows', () => {
    expect(matchRoute('GET', '/api/health').match).toMatchObject({ route: { operationId: 'getHealth' }, routeKey: 'GET /api/health' });
    const wrongMethod = matchRoute('POST', '/api/health');
    expect(wrongMethod.match).toBeUndefined();
    expect(wrongMethod.allowed).toEqual(['GET']);
    expect(matchRoute('GET', '/api/health/').match).toBeUndefined();
    expect(matchRoute('GET', '/api/nope')).toEqual({ match: undefined, allowed: [] });
  });

  it('fills path parameters, percent-decoded, and keeps near misses apart', () => {
    expect(matchRoute('PUT', '/api/ucp/checkout-sessions/cs_1').match).toMatchObject({
      route: { operationId: 'updateUcpCheckout' },
      routeKey: 'PUT /api/ucp/checkout-sessions/{id}',
      pathParameters: { id: 'cs_1' },
    });
    expect(matchRoute('GET', '/api/acp/checkout_sessions/a%20b').match?.pathParameters).toEqual({ id: 'a b' });
    expect(matchRoute('POST', '/api/acp/checkout_sessions/x/complete').match?.route.operationId).toBe('completeAcpCheckout');
    expect(matchRoute('DELETE', '/api/acp/checkout_sessions/x').allowed).toEqual(['GET', 'POST']);
    // A parameter is one segment: neither empty nor spanning a slash.
    for (const path of ['/api/acp/checkout_sessions/', '/api/acp/checkout_sessions/x/y', '/api/acp/checkout_sessions/x/complete/'])
      expect(matchRoute('GET', path), path).toEqual({ match: undefined, allowed: [] });
  });

  it('finds every route of the table by its own method and path', () => {
    for (const route of ROUTES) {
      const { match } = matchRoute(route.method, route.path.replace(/\{\w+\}/g, 'x-1'));
      expect(match?.route.operationId, routeKey(route)).toBe(route.operationId);
    }
  });

  it('throws URIError for a path parameter that is not valid percent-encoding (the edge answers 400)', () => {
    expect(() => matchRoute('GET', '/api/acp/checkout_sessions/%zz')).toThrow(URIError);
  });
});
