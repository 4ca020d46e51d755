import { randomBytes } from 'node:crypto';
import type { Catalog } from '#shared/catalog';
import { loadCatalogFiles } from '#shared/adapters/catalog-files';
import { dynamoClient } from '#shared/adapters/dynamo-client';
import { dynamoIntentStore } from './dynamo-intent-store';
import type { IntentStore } from './intent-store';

export interface CatalogPorts {
  catalog: Catalog;
  intents: IntentStore;
  now: () => Date;
  /** A new intent id: `int_` and 20 random hex digits. */
  newIntentId: () => string;
}

export function catalogPortsFromEnv(): CatalogPorts {
  return {
    catalog: loadCatalogFiles(),
    intents: dynamoIntentStore(dynamoClient()),
    now: () => new Date(),
    newIntentId: () => `int_${randomBytes(10).toString('hex')}`,
  };
}
