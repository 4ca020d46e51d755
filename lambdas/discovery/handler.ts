/** Lambda entry of the discovery domain: health, the ESP protocol surfaces, and the catch-all for unknown paths. */
import { createDomainHandler } from '#shared/domain-handler';
import { fallback } from './fallback';
import { getHealth } from './health';
import { discoveryPortsFromEnv } from './ports';

export const handler = createDomainHandler('discovery', {
  routes: { getHealth },
  ports: discoveryPortsFromEnv,
  baseUrl: (ports) => ports.config.config.publicBaseUrl,
  fallback,
});
