/**
 * GET /api/pay with a proof, loaded by pay-route.ts on the first such request. Apart from
 * authorization.ts so that the settlement other domains load (lazy-authorization.ts) does not
 * carry the header parsers, which would then be shared with, and parsed by, every importer of
 * the payments barrel.
 */
import { PAYMENT_ERRORS } from './errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { unlockWithAuthorization } from './authorization';
import { getPay, packForPayer } from './pay';
import type { PaymentsPorts } from './ports';
import { signInWithXOf } from './proof-input';

/**
 * GET /api/pay?skill= with a proof: with `PAYMENT-SIGNATURE` (a stock x402 client's retry of
 * the same URL), the settlement and the pack, with `PAYMENT-RESPONSE`; with `SIGN-IN-WITH-X`
 * alone, the pack again for a wallet that already paid for it (else the challenge).
 */
export async function getPayWithProof(req: ApiRequest, ports: PaymentsPorts): Promise<ApiResponse> {
  const header = req.headers['payment-signature'];
  if (header === undefined) {
    // x402's sign-in-with-x: a wallet that already paid downloads the pack again, paying nothing.
    const signIn = signInWithXOf(req);
    const again = signIn ? await packForPayer(req.query['skill'], signIn, ports, req.baseUrl) : undefined;
    return again ? json(200, again.body, again.headers) : getPay(req, ports);
  }
  if (req.headers['x-ap2-mandate'] !== undefined) {
    // A mandate is the access domain's to apply (POST /api/pay); a rule that cannot be applied here is
    // never ignored: nothing is claimed or sent, and the client is told where the same header is honoured.
    throw PAYMENT_ERRORS.AP2_MANDATE_REJECTED({
      message: 'AP2 mandate rejected: X-AP2-MANDATE is applied on POST /api/pay, not on GET; nothing was claimed or transferred.',
      tip: 'Send the same PAYMENT-SIGNATURE and X-AP2-MANDATE (and SIGN-IN-WITH-X) with POST /api/pay?skill=<id>, or omit X-AP2-MANDATE.',
    });
  }
  const { body, headers } = await unlockWithAuthorization(header, req.query['skill'], ports, req.baseUrl, {
    sourceIp: req.sourceIp,
    signInWithX: signInWithXOf(req),
  });
  return json(200, body, headers);
}
