/** Lambda entry of the catalog domain: catalog search, pack metadata, intent search and bounties. */
import { createDomainHandler } from '../platform/domain-handler';
import { getPackMetadata } from './get-pack-metadata';
import { getIntent, postIntent } from './intents';
import { listCatalog } from './list-catalog';

export const handler = createDomainHandler('catalog', {
  routes: { listCatalog, getPackMetadata, getIntent, postIntent },
  ports: () => import('./wiring').then((m) => m.catalogPortsFromEnv()),
});
