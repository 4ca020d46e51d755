import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BundleDefinition, Listings } from '../../contract/catalog-data';
import { catalogDataDir } from '../../platform/data-dirs';
import type { EvalReport } from '../../contract/eval-report';
import type { SecurityReport } from '../../contract/security-report';
import type { BuildReports } from '../ports';

/** The catalog build's reports in the bundle's catalog data, each parsed on first use and kept. */
export function fileReports(dir: string = catalogDataDir()): BuildReports {
  const cache = new Map<string, unknown>();
  const read = <T>(name: string): T => {
    if (!cache.has(name)) cache.set(name, JSON.parse(readFileSync(join(dir, name), 'utf8')));
    return cache.get(name) as T;
  };
  return {
    bundles: () => read<BundleDefinition[]>('bundles.json'),
    listings: () => read<Listings>('listings.json'),
    security: () => read<SecurityReport>('security.json'),
    evals: () => read<EvalReport>('eval.json'),
  };
}
