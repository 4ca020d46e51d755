/** Lambda entry of the payments domain: challenge, unlock, recovery and the proof ledger. */
import { createDomainHandler } from '#shared/domain-handler';
import { getPay, postPay, postRecover } from './pay';
import { paymentsPortsFromEnv } from './ports';
import { getProof } from './proof';

export const handler = createDomainHandler('payments', {
  routes: { getPay, postPay, postRecover, getProof },
  ports: () => paymentsPortsFromEnv(),
  baseUrl: (ports) => ports.config.publicBaseUrl,
});
