/**
 * Lambda entry of the payments domain: readiness. /api/pay (the challenge and every unlock) and
 * /api/recover are answered by the access domain, which builds the challenge and settles through
 * this domain's face (index.ts); the proof ledger is the ledger domain's.
 */
import { createDomainHandler, loadedOnFirstRequest } from '../platform/domain-handler';

export const handler = createDomainHandler('payments', {
  routes: {
    // Readiness validates the live challenge with its zod schema: zod loads with the first probe, not with every cold start.
    getReady: loadedOnFirstRequest(() => import('./readiness').then((m) => m.getReady)),
  },
  ports: () => import('./wiring').then((m) => m.paymentsPortsFromEnv()),
});
