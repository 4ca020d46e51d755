/**
 * Lambda entry of the payments domain: the challenge, the proof ledger and readiness. Unlocks
 * (POST /api/pay, /api/recover) are answered by the access domain, which settles through here.
 */
import { createDomainHandler, loadedOnFirstRequest } from '../platform/domain-handler';
import { getPayRoute } from './pay-route';
import { getProof } from './proof';

export const handler = createDomainHandler('payments', {
  routes: {
    // The challenge, or (with PAYMENT-SIGNATURE) x402 v2's settlement of a signed authorization.
    getPay: getPayRoute,
    getProof,
    // Readiness validates the live challenge with its zod schema: zod loads with the first probe, not with every cold start.
    getReady: loadedOnFirstRequest(() => import('./readiness').then((m) => m.getReady)),
  },
  ports: () => import('./wiring').then((m) => m.paymentsPortsFromEnv()),
});
