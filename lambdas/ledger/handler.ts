/**
 * Lambda entry of the ledger domain: GET /api/proof, the public proof ledger (a page of confirmed
 * unlocks and the confirmed count from the figures). The fold and the reconcile job are functions
 * of their own (fold-handler.ts, reconcile-handler.ts).
 */
import { createDomainHandler } from '../platform/domain-handler';
import { getProof } from './proof';

export const handler = createDomainHandler('ledger', {
  routes: { getProof },
  ports: () => import('./wiring').then((m) => m.proofPortsFromEnv()),
});
