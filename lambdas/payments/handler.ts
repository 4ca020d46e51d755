/**
 * Lambda entry of the payments domain: the challenge, the proof ledger and readiness. Unlocks
 * (POST /api/pay, /api/recover) are answered by the access domain, which settles through here.
 */
import { createDomainHandler, loadedOnFirstRequest } from '../platform/domain-handler';
import { getPay } from './pay';
import { getProof } from './proof';
import type { PaymentsPorts } from './ports';

/**
 * GET /api/pay with a proof (x402 v2's PAYMENT-SIGNATURE, or SIGN-IN-WITH-X): the settlement
 * path, loaded on the first such request, so a cold start that only challenges (every buyer's
 * first request) does not parse it.
 */
const getPayWithProof = loadedOnFirstRequest<PaymentsPorts>(() => import('./authorization').then((m) => m.getPayWithProof));

export const handler = createDomainHandler('payments', {
  routes: {
    // The challenge, or (with a proof) x402 v2's settlement of a signed authorization, or a paid wallet's pack again.
    getPay: (req, ports) =>
      req.headers['payment-signature'] !== undefined || req.headers['sign-in-with-x'] !== undefined
        ? getPayWithProof(req, ports)
        : getPay(req, ports),
    getProof,
    // Readiness validates the live challenge with its zod schema: zod loads with the first probe, not with every cold start.
    getReady: loadedOnFirstRequest(() => import('./readiness').then((m) => m.getReady)),
  },
  ports: () => import('./wiring').then((m) => m.paymentsPortsFromEnv()),
});
