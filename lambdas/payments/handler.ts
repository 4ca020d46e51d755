/**
 * Lambda entry of the payments domain: the challenge, the proof ledger and readiness. Unlocks
 * (POST /api/pay, /api/recover) are answered by the access domain, which settles through here.
 */
import { createDomainHandler } from '../platform/domain-handler';
import { getPay } from './pay';
import { getProof } from './proof';
import { getReady } from './readiness';

export const handler = createDomainHandler('payments', {
  routes: { getPay, getProof, getReady },
  ports: () => import('./wiring').then((m) => m.paymentsPortsFromEnv()),
});
