/**
 * What the insights domain needs: the catalog, the tallies (read only) and the catalog build's
 * reports. Interfaces only; `wiring.ts` builds them.
 */
import type { Catalog } from '../catalog';
import type { BundleDefinition, Listings } from '../contract/catalog-data';
import type { EvalReport } from '../contract/eval-report';
import type { SecurityReport } from '../contract/security-report';
import type { Figures } from '../ledger';

/** What the catalog build wrote beside the catalog (dist/catalog), read once per process. */
export interface BuildReports {
  bundles(): readonly BundleDefinition[];
  listings(): Listings;
  security(): SecurityReport;
  evals(): EvalReport;
}

export interface InsightsPorts {
  catalog: Catalog;
  figures: Pick<Figures, 'totals' | 'days'>;
  reports: BuildReports;
  now: () => Date;
}
