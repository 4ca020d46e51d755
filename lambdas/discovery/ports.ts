/** What the discovery domain needs: configuration, the catalog and a read-only view of the ledger. Interfaces only. */
import type { Catalog } from '../catalog';
import type { MarketConfig } from '../contract/settings';
import type { Ledger } from '../payments';

export interface DiscoveryPorts {
  config: MarketConfig;
  catalog: Catalog;
  ledger: Pick<Ledger, 'count' | 'recent' | 'get' | 'summary'>;
  now: () => Date;
}
