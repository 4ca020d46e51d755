import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES, activeDomains, matchRoute, routeKey } from '../../lambdas/contract/routes';

describe('route table', () => {
  it('has unique route keys and operation ids', () => {
    expect(new Set(ROUTES.map(routeKey)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(ROUTES.length);
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
  });
});
