/**
 * Lambda entry of the payments domain: the proof ledger and readiness. /api/pay (the challenge
 * and every unlock) and /api/recover are answered by the access domain, which builds the
 * challenge and settles through this domain's face (index.ts).
 */
import { createDomainHandler, loadedOnFirstRequest } from '../platform/domain-handler';
import { getProof } from './proof';

export const handler = createDomainHandler('payments', {
  routes: {
    getProof,
    // Readiness validates the live challenge with its zod schema: zod loads with the first probe, not with every cold start.
    getReady: loadedOnFirstRequest(() => import('./readiness').then((m) => m.getReady)),
  },
  ports: () => import('./wiring').then((m) => m.paymentsPortsFromEnv()),
});
