/** Lambda entry of the payments domain: challenge, unlock, recovery, the proof ledger and readiness. */
import { createDomainHandler } from '../platform/domain-handler';
import { getPay, postPay, postRecover } from './pay';
import { getProof } from './proof';
import { getReady } from './readiness';
import { paymentsPortsFromEnv } from './wiring';

export const handler = createDomainHandler('payments', {
  routes: { getPay, postPay, postRecover, getProof, getReady },
  ports: () => paymentsPortsFromEnv(),
});
