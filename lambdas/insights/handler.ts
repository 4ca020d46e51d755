/** Lambda entry of the insights domain: bundles, trust, security, eval, signals and revenue. */
import { createDomainHandler } from '../platform/domain-handler';
import { getBundles } from './bundles';
import { getRevenue } from './revenue';
import { getEval, getSecurity } from './scans';
import { getSignals } from './signals';
import { getTrust } from './trust';

export const handler = createDomainHandler('insights', {
  routes: { getBundles, getTrust, getSecurity, getEval, getSignals, getRevenue },
  ports: () => import('./wiring').then((m) => m.insightsPortsFromEnv()),
});
