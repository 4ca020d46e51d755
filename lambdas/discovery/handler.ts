/** Lambda entry of the discovery domain: health, readiness and the catch-all for unknown paths. */
import { createDomainHandler } from '#shared/domain-handler';
import { fallback } from './fallback';
import { getHealth } from './health';
import { discoveryPortsFromEnv } from './ports';
import { getReady } from './readiness';

export const handler = createDomainHandler('discovery', {
  routes: { getHealth, getReady },
  ports: discoveryPortsFromEnv,
  baseUrl: (ports) => ports.config.config.publicBaseUrl,
  fallback,
});
