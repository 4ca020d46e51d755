/**
 * Reads x402 v2's `PAYMENT-SIGNATURE` header: base64 of a `PaymentPayload` whose payload is an
 * EIP-3009 authorization and its signature (the `exact` scheme on EVM). Shape only: whether it
 * pays for anything is decided against the server's own requirement (authorization.ts). A
 * header that is not one is a 402 with the reason, as x402 answers, never a 500.
 */
import * as z from 'zod/mini';
import { ADDRESS } from '../contract/chain';
import { parseJsonHeaderValue } from '../platform/json';
import { safeParse } from '../platform/validation';
import type { SignedPayment } from './ports';
import { verificationFailed } from './refusals';

/**
 * A signed payment is small; an EIP-6492 signature (a factory call) and the 402's extensions,
 * which x402 clients echo (the Bazaar's JSON Schema nests 13 levels deep), are its largest parts.
 */
export const SIGNED_PAYMENT_LIMITS = { maxBytes: 16 * 1024, maxDepth: 16 };

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
  }),
  extensions: z.optional(z.record(z.string(), z.unknown())),
});

/** 402 for a signed payment that cannot settle; `reason` is x402's (`invalid_payload`, …) or ours, with any further details. */
export const paymentRefused = (
  reason: string,
  message: string,
  headers: Record<string, string> = {},
  retry = false,
  details: Record<string, unknown> = {},
) => verificationFailed('authorization', message, retry, { reason, ...details }, headers);

/** The header parsed and shape-checked (not verified); a 402 naming what is wrong otherwise. */
export function readSignedPayment(raw: string, headers: Record<string, string>): SignedPayment {
  let value: unknown;
  try {
    value = parseJsonHeaderValue(raw, SIGNED_PAYMENT_LIMITS, 'PAYMENT-SIGNATURE');
  } catch {
    throw paymentRefused('invalid_payload', 'PAYMENT-SIGNATURE is not base64 of a JSON object.', headers);
  }
  const parsed = safeParse(SignedPaymentSchema, value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw paymentRefused(
      'invalid_payload',
      `PAYMENT-SIGNATURE is not an x402 v2 exact (EIP-3009) payment: ${issue.path.join('.') || 'value'}: ${issue.message}.`,
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
