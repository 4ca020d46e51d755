/** What the discovery domain needs: configuration, the catalog, a read-only view of the ledger and its figures. Interfaces only. */
import type { Catalog } from '../catalog';
import type { MarketConfig } from '../contract/settings';
import type { Figures, Ledger } from '../ledger';

export interface DiscoveryPorts {
  config: MarketConfig;
  catalog: Catalog;
  ledger: Pick<Ledger, 'recent' | 'get'>;
  figures: Pick<Figures, 'totals'>;
  now: () => Date;
}
