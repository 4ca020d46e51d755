/** Builds the insights ports from the environment, through the catalog's and payments' public faces. */
import { catalogFromEnv } from '../catalog/wiring';
import { figuresFromEnv } from '../payments/wiring';
import { fileReports } from './adapters/report-files';
import type { InsightsPorts } from './ports';

export function insightsPortsFromEnv(): InsightsPorts {
  return {
    catalog: catalogFromEnv(),
    figures: figuresFromEnv(),
    reports: fileReports(),
    now: () => new Date(),
  };
}
