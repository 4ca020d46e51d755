import { readConfigFromEnv, type ConfigReading } from '#shared/config';
import type { Catalog } from '#shared/catalog';
import { loadCatalogFiles } from '#shared/adapters/catalog-files';
import { dynamoClient } from '#shared/adapters/dynamo-client';
import { dynamoLedger } from '../payments/dynamo-ledger';
import type { Ledger } from '../payments/ledger';

/** What the discovery domain needs: configuration, the catalog and a read-only view of the ledger. */
export interface DiscoveryPorts {
  config: ConfigReading;
  catalog: Catalog;
  ledger: Pick<Ledger, 'count' | 'recent' | 'get' | 'summary'>;
  now: () => Date;
}

export function discoveryPortsFromEnv(): DiscoveryPorts {
  return { config: readConfigFromEnv(), catalog: loadCatalogFiles(), ledger: dynamoLedger(dynamoClient()), now: () => new Date() };
}
