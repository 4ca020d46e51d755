/** Lambda entry of the discovery domain: health, the ESP protocol surfaces, and the catch-all for unknown paths. */
import { createDomainHandler } from '../platform/domain-handler';
import { getEspDiscovery, getX402Discovery } from './discovery-docs';
import { getEsp } from './esp';
import { fallback } from './fallback';
import { getHealth } from './health';
import { getJudges } from './judges';
import { getOpenApi } from './openapi';
import { discoveryPortsFromEnv } from './wiring';
import { getShop } from './shop';

export const handler = createDomainHandler('discovery', {
  routes: { getHealth, getEsp, getShop, getJudges, getOpenApi, getEspDiscovery, getX402Discovery },
  ports: discoveryPortsFromEnv,
  fallback,
});
