/**
 * A signed payment's header, decoded: the one decode a request makes of it (issue 50), by the
 * surface that received it. No schema here, so a function that only names it (every importer of
 * the payments face) does not load zod at a cold start.
 */
import { parseJsonHeaderValue } from '../platform/json';

/**
 * A signed payment is small; an EIP-6492 signature (a factory call) and the 402's extensions,
 * which x402 clients echo (the Bazaar's JSON Schema nests 13 levels deep), are its largest parts.
 */
export const SIGNED_PAYMENT_LIMITS = { maxBytes: 16 * 1024, maxDepth: 16 };

/**
 * A signed payment's header value decoded once, at the surface that received it: base64 of JSON
 * (or plain JSON) within the size and depth bounds, or undefined when it is neither. Nothing is
 * judged here: `checkSignedPayment` shape-checks the value, naming the field the surface read.
 */
export function decodePaymentHeader(raw: string): unknown {
  try {
    return parseJsonHeaderValue(raw, SIGNED_PAYMENT_LIMITS, 'a signed payment');
  } catch {
    return undefined;
  }
}

/** x402 v1's payment is the same authorization; its envelope nests less deeply. */
const V1_LIMITS = { maxBytes: 16 * 1024, maxDepth: 6 };

/**
 * X-PAYMENT's two forms are told apart by their first character: the spec's proof is a JSON
 * object (`{"txHash","skill"}`), x402 v1's payment is base64, whose alphabet has no `{`. The
 * spec flow also takes its proof base64 (a tested behaviour kept), so a base64 value is v1's
 * only when it decodes to an object with `x402Version` or `payload` and no `txHash`; anything
 * else stays the spec's, and is judged (or refused with 400) there as before. The decoded value
 * when it is v1's (decoded here once, and handed on as it is), else undefined.
 */
export function v1PaymentOf(xPayment: string): object | undefined {
  if (xPayment.trimStart().startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = parseJsonHeaderValue(xPayment, V1_LIMITS, 'X-PAYMENT');
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return !('txHash' in value) && ('x402Version' in value || 'payload' in value) ? value : undefined;
}
