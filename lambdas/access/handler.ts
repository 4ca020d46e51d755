/**
 * Lambda entry of the access domain: unlocks (POST /api/pay, /api/recover), AP2 mandates,
 * agent identity, access decisions, subscriptions and meters.
 */
import { createDomainHandler } from '../platform/domain-handler';
import { getAccess } from './access-route';
import { getAgentIdentity } from './identity';
import { getMandates, postMandates } from './mandates';
import { getMeter, postMeter } from './meter';
import { postPay, postRecover } from './pay';
import { getSubscribe, postSubscribe } from './subscribe';

export const handler = createDomainHandler('access', {
  routes: {
    postPay,
    postRecover,
    getMandates,
    postMandates,
    getAgentIdentity,
    getAccess,
    getSubscribe,
    postSubscribe,
    getMeter,
    postMeter,
  },
  ports: () => import('./wiring').then((m) => m.accessPortsFromEnv()),
});
