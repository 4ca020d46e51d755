/**
 * Lambda entry of the access domain: /api/pay (GET: the 402 challenge, or x402 v2's settlement of a
 * signed authorization; POST: every unlock), /api/recover, AP2 mandates,
 * agent identity, access decisions, subscriptions and meters.
 */
import { createDomainHandler } from '../platform/domain-handler';
import { getAccess } from './access-route';
import { getAgentIdentity } from './identity';
import { getMandates, postMandates } from './mandates';
import { getMeter, postMeter } from './meter';
import { getPay, postPay, postRecover } from './pay';
import { getPurchases } from './purchases';
import { getSubscribe, postSubscribe } from './subscribe';

export const handler = createDomainHandler('access', {
  routes: {
    getPay,
    postPay,
    postRecover,
    getMandates,
    postMandates,
    getAgentIdentity,
    getAccess,
    getPurchases,
    getSubscribe,
    postSubscribe,
    getMeter,
    postMeter,
  },
  ports: () => import('./wiring').then((m) => m.accessPortsFromEnv()),
});
