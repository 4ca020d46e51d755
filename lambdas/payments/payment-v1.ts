/**
 * x402 v1's `X-PAYMENT`: base64 of `{x402Version: 1, scheme: "exact", network: "base", payload:
 * {signature, authorization}}`, the same EIP-3009 authorization x402 v2 sends in
 * `PAYMENT-SIGNATURE`. It is read here and handed to the v2 settlement path as the v2 payment it
 * is (the server's own requirement as `accepted`), so both versions settle, claim, refuse and
 * replay in one place (authorization.ts, owner-proof.ts).
 *
 * A v1 payload names no asset (v1 servers match it to their requirement by scheme and network):
 * it is taken as paying the challenge's first entry, USDC, which is what stock v1 clients choose.
 * An authorization signed for another token fails x402's signature check, before anything is claimed.
 */
import * as z from 'zod/mini';
import { ADDRESS } from '../contract/chain';
import { NETWORK_NAMES, NETWORKS } from '../contract/networks';
import { safeParse } from '../platform/validation';
import type { PaymentRequirementsV2 } from './core/challenge';
import { paymentRefused } from './refusals';
import type { SignedPayment } from './ports';

const address = z.string().check(z.regex(ADDRESS));
const uint = z.string().check(z.regex(/^(0|[1-9][0-9]{0,77})$/));
const bytes32 = z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/));
const signature = z.string().check(z.regex(/^0x[0-9a-fA-F]*$/), z.maxLength(2 + 4096 * 2));

const V1PaymentSchema = z.object({
  x402Version: z.literal(1),
  scheme: z.string().check(z.minLength(1), z.maxLength(32)),
  network: z.string().check(z.minLength(1), z.maxLength(64)),
  payload: z.object({
    signature,
    authorization: z.object({ from: address, to: address, value: uint, validAfter: uint, validBefore: uint, nonce: bytes32 }),
  }),
});

/**
 * The v1 payment as the v2 `SignedPayment` the settlement takes: `accepted` is the server's own
 * requirement (USDC), never the client's, and `resource` the URL it was sent to. A 402 `invalid_payload` when the header is no v1
 * `exact` EIP-3009 payment, `unsupported_scheme` for another scheme or network.
 */
export function signedPaymentFromV1(
  value: unknown,
  requirement: PaymentRequirementsV2,
  resourceUrl: string,
  headers: Record<string, string>,
): SignedPayment {
  const parsed = safeParse(V1PaymentSchema, value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw paymentRefused(
      'invalid_payload',
      `X-PAYMENT is not an x402 v1 exact (EIP-3009) payment: ${issue.path.join('.') || 'value'}: ${issue.message}.`,
      headers,
    );
  }
  const { scheme, network, payload } = parsed.data;
  // The v1 name of the network the challenge was built for (its v2 requirement carries the CAIP-2 id).
  const expected = NETWORK_NAMES.find((n) => NETWORKS[n].caip2 === requirement.network);
  if (scheme !== 'exact' || network !== expected) {
    throw paymentRefused(
      'unsupported_scheme',
      `X-PAYMENT pays with ${scheme} on ${network}; this resource accepts exact on ${expected} (see accepts[] in the 402 body).`,
      headers,
    );
  }
  // v1 names the resource by the URL the payment is sent to, as v2's unsigned `resource.url` does (owner-proof.ts reads it).
  return { x402Version: 2, resource: { url: resourceUrl }, accepted: { ...requirement, extra: { ...requirement.extra } }, payload };
}
