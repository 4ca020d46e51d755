/**
 * Reads x402 v2's `PaymentPayload` whose payload is an EIP-3009 authorization and its signature
 * (the `exact` scheme on EVM), as `PAYMENT-SIGNATURE` carries it in base64, MCP's
 * `_meta["x402/payment"]` and A2A's metadata as an object. Decoded once by the surface that
 * received it, shape-checked once (`signedPaymentFor`); whether it pays for anything is decided
 * against the server's own requirement (authorization.ts). One that is not a payment is a 402
 * with the reason, as x402 answers, never a 500.
 */
import * as z from 'zod/mini';
import { ADDRESS } from '../contract/chain';
import { safeParse } from '../platform/validation';
import type { SignedPayment } from './ports';
export { SIGNED_PAYMENT_LIMITS } from './payment-header';
import { paymentRefused } from './refusals';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const address = z.string().check(z.regex(ADDRESS));
const uint = z.string().check(z.regex(/^(0|[1-9][0-9]{0,77})$/));
const bytes32 = z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/));
const hex = (maxBytes: number) => z.string().check(z.regex(/^0x[0-9a-fA-F]*$/), z.maxLength(2 + maxBytes * 2));

const SignedPaymentSchema = z.object({
  x402Version: z.literal(2),
  resource: z.optional(z.object({ url: text(2048), description: z.optional(z.string()), mimeType: z.optional(z.string()) })),
  accepted: z.object({
    scheme: text(32),
    network: text(64),
    asset: text(128),
    amount: text(80),
    payTo: text(128),
    maxTimeoutSeconds: z.number(),
    extra: z.optional(z.record(z.string(), z.unknown())),
  }),
  payload: z.object({
    signature: hex(4096),
    authorization: z.object({ from: address, to: address, value: uint, validAfter: uint, validBefore: uint, nonce: bytes32 }),
    // x402 auth-capture: the PaymentInfo's salt the client chose (the exact scheme has none).
    salt: z.optional(bytes32),
  }),
  extensions: z.optional(z.record(z.string(), z.unknown())),
});

/**
 * A decoded x402 v2 `PaymentPayload`, shape-checked (not verified); a 402 naming what is wrong
 * otherwise, in the words of the field it came in (`PAYMENT-SIGNATURE`, `_meta["x402/payment"]`, …).
 */
export function checkSignedPayment(value: unknown, field: string, headers: Record<string, string>): SignedPayment {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value))
    throw paymentRefused('invalid_payload', `${field} is not a JSON object (base64 of one, in a header).`, headers);
  const parsed = safeParse(SignedPaymentSchema, value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw paymentRefused(
      'invalid_payload',
      `${field} is not an x402 v2 exact (EIP-3009) payment: ${issue.path.join('.') || 'value'}: ${issue.message}.`,
      headers,
    );
  }
  const { resource, accepted, payload, extensions } = parsed.data;
  return {
    x402Version: 2,
    ...(resource ? { resource } : {}),
    accepted: { ...accepted, extra: accepted.extra ?? {} },
    payload,
    ...(extensions ? { extensions } : {}),
  };
}
