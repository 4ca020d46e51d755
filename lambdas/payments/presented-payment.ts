/**
 * A signed payment as a surface received it, made the `SignedPayment` the owner check and the
 * settlement read, once per request: x402 v2's `PaymentPayload` (PAYMENT-SIGNATURE decoded by the
 * HTTP route, MCP's `_meta["x402/payment"]`, A2A's metadata payload, all objects by now) or x402
 * v1's `X-PAYMENT` (the server's own requirement as `accepted`). Refusals carry the challenge, as
 * x402 answers them, and name the field the surface read (issue 50: a payment was decoded and
 * re-encoded up to four times per request).
 */
import { challengeFor } from './challenge-answer';
import { checkSignedPayment } from './payment-signature';
import { signedPaymentFromV1 } from './payment-v1';
import type { PaymentsPorts, PresentedPayment, SignedPayment } from './ports';

export function signedPaymentFor(
  presented: PresentedPayment,
  skill: string | undefined,
  ports: PaymentsPorts,
  baseUrl: string,
): SignedPayment {
  const challenge = challengeFor(skill, ports, baseUrl);
  const headers = {
    'payment-required': ports.paymentRequiredHeader({ ...challenge.v2, error: 'invalid_payload' }),
    'x-payment-required': challenge.encoded,
  };
  return presented.version === 1
    ? signedPaymentFromV1(presented.value, challenge.v2.accepts[0]!, challenge.v2.resource.url, headers)
    : checkSignedPayment(presented.value, presented.field, headers);
}
