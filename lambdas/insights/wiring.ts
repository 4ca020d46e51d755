/** Builds the insights ports from the environment, through the catalog's and payments' public faces. */
import { catalogFromEnv } from '../catalog';
import { figuresFromEnv } from '../ledger';
import { fileReports } from './adapters/report-files';
import type { InsightsPorts } from './ports';

export async function insightsPortsFromEnv(): Promise<InsightsPorts> {
  const [catalog, figures] = await Promise.all([catalogFromEnv(), figuresFromEnv()]);
  return {
    catalog,
    figures,
    reports: fileReports(),
    now: () => new Date(),
  };
}
