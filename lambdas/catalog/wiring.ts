/** Builds the catalog domain's ports from the environment: the only file of the domain that names adapters. */
import { randomBytes } from 'node:crypto';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { loadCatalogFiles } from './adapters/catalog-files';
import { dynamoIntentStore } from './adapters/dynamo-intent-store';
import type { Catalog, CatalogPorts } from './ports';

/** The built catalog this bundle carries, loaded once per process; other functions reach it through the catalog's face. */
export function catalogFromEnv(): Catalog {
  return loadCatalogFiles();
}

export function catalogPortsFromEnv(): CatalogPorts {
  const now = () => new Date();
  return {
    catalog: catalogFromEnv(),
    intents: dynamoIntentStore(dynamoClient(), now),
    now,
    newIntentId: () => `int_${randomBytes(10).toString('hex')}`,
  };
}
