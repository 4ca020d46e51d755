/** Lambda entry of the discovery domain: health, the ESP protocol surfaces, and the catch-all for unknown paths. */
import { createDomainHandler, loadedOnFirstRequest } from '../platform/domain-handler';
import { getEspDiscovery, getX402Discovery } from './discovery-docs';
import { getEsp } from './esp';
import { fallback } from './fallback';
import { getHealth } from './health';
import { getJudges } from './judges';
import { getShop } from './shop';

export const handler = createDomainHandler('discovery', {
  routes: {
    getHealth,
    getEsp,
    getShop,
    getJudges,
    // The OpenAPI document is generated from the zod schemas; zod loads with its first request, not at every cold start.
    getOpenApi: loadedOnFirstRequest(() => import('./openapi').then((m) => m.getOpenApi)),
    getEspDiscovery,
    getX402Discovery,
    // Signs with @sigstore/sign on a version's first request: loaded then, never at a cold start.
    getPackProvenance: loadedOnFirstRequest(() => import('./provenance').then((m) => m.getPackProvenance)),
  },
  ports: () => import('./wiring').then((m) => m.discoveryPortsFromEnv()),
  fallback,
});
