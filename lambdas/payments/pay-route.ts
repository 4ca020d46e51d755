/**
 * The GET /api/pay route: the 402 challenge, which every buyer asks for first and which loads
 * nothing else; a request that carries a proof (`PAYMENT-SIGNATURE`, `SIGN-IN-WITH-X`) is
 * answered by pay-with-proof.ts, loaded on the first such request, so a cold start that only
 * challenges does not parse the settlement path (docs/PERFORMANCE.md).
 */
import { loadedOnFirstRequest, type RouteHandler } from '../platform/domain-handler';
import { getPay } from './pay';
import type { PaymentsPorts } from './ports';

const withProof = loadedOnFirstRequest<PaymentsPorts>(() => import('./pay-with-proof').then((m) => m.getPayWithProof));

export const getPayRoute: RouteHandler<PaymentsPorts> = (req, ports) =>
  req.headers['payment-signature'] !== undefined || req.headers['sign-in-with-x'] !== undefined
    ? withProof(req, ports)
    : getPay(req, ports);
