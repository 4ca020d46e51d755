/** Lambda entry of the payments domain: challenge, unlock, recovery and the proof ledger. */
import { createDomainHandler } from '#shared/domain-handler';
import { getPay, postPay, postRecover } from './pay';
import { paymentsPortsFromEnv } from './ports';
import { getProof } from './proof';
import { getReady } from './readiness';

export const handler = createDomainHandler('payments', {
  // Readiness sees ConfigReading (with problems); the other routes see the parsed config.
  routes: { getPay, postPay, postRecover, getProof, getReady: (req, ports) => getReady(req, { ...ports, config: ports.configReading }) },
  ports: () => paymentsPortsFromEnv(),
});
