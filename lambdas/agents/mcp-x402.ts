/**
 * x402's MCP transport (coinbase/x402, specs/transports-v2/mcp.md) for `unlock_skill`, the one
 * paid tool:
 *
 * - Called with nothing to pay with, the tool answers a tool error (`isError: true`) whose
 *   `structuredContent` is x402 v2's `PaymentRequired`, and `content[0].text` its JSON. It is the
 *   `PaymentRequired` the HTTP 402 carries in PAYMENT-REQUIRED for the same skill (payments'
 *   `challengeFor`, one source): the same `accepts` and the same `resource`, the skill's HTTP
 *   resource URL, so an authorization signed here proves the same things as one signed over HTTP.
 * - The client retries the same call with the signed `PaymentPayload` in
 *   `params._meta["x402/payment"]`. That is the decoded PAYMENT-SIGNATURE value, and it is
 *   settled as one: the access domain's unlock, so an owner is never charged and an authorization
 *   settles once.
 * - The answer carries x402's `SettleResponse` in `_meta["x402/payment-response"]` when a transfer
 *   settled (none when an owner got the pack for a signature alone); the result is the same body
 *   as POST /api/pay, its signed `receipt` included.
 * - A refused payment (the HTTP surface's 402) is the payment-required result again, with x402's
 *   `error` set to the reason (x402's own, e.g. `invalid_exact_evm_payload_signature`, else ours).
 *
 * Beyond the transport's `content[0]`, a second text content carries the spec's failure body
 * (message, tip, retry), written for an MCP client: what a person or a model reads to act.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { requireSkill } from '../catalog';
import { challengeFor, PAYMENT_ERRORS, settleResponse, type PaymentsPorts, type Settlement } from '../payments';
import { AppError, failureBody, type FailureBody } from '../platform/errors';

/** The `_meta` keys of x402's MCP transport: the client's payment, and the server's settlement response. */
export const X402_META = { payment: 'x402/payment', paymentResponse: 'x402/payment-response' } as const;

/** What an MCP client does to pay, where the HTTP answers name headers. */
export const MCP_PAY_TIP =
  'Sign x402\'s PaymentRequired (an x402 v2 exact, EIP-3009, authorization for an entry of its `accepts`: x402Client.createPaymentPayload makes it) and call unlock_skill with the skill_id and that PaymentPayload in params._meta["x402/payment"] (x402\'s MCP transport): the service submits the transfer, the wallet needs no ETH. Or transfer the amount to payTo yourself and pass tx_hash.';

/**
 * The unlock refusals whose HTTP tip names headers, with the tip an MCP client acts on: the proofs
 * and the payment are the tool's arguments and `_meta` here.
 */
const MCP_TIPS: Readonly<Record<string, string>> = {
  BUYER_PROOF_REQUIRED:
    'Pass license_token (license.token of the unlock), or sign_in_with_x signed by the wallet that paid (docs/SECURITY.md). A lost answer can be asked again from the same address for a few minutes.',
  PAYMENT_REQUIRED:
    "Pay through x402's MCP transport (unlock_skill with the skill_id alone answers the PaymentRequired to sign), subscribe, or draw from a meter; `details.access.next` lists each.",
};

/** A JSON value as MCP's tool result: the text, and the object itself as `structuredContent`. */
export function jsonResult(value: unknown, meta?: Record<string, unknown>): CallToolResult {
  const structured =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured, ...(meta ? { _meta: meta } : {}) };
}

/** A failure as MCP's tool error: the spec's failure body, as text and structured. */
export function failureResult(body: FailureBody): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}

/** x402's payment-required tool error for a skill, `error` saying why, and the failure body beside it. */
function paymentRequiredResult(skill: string, ports: PaymentsPorts, baseUrl: string, error: string, failure: FailureBody): CallToolResult {
  const required = { ...challengeFor(skill, ports, baseUrl).v2, error };
  return {
    isError: true,
    structuredContent: required as unknown as Record<string, unknown>,
    content: [
      { type: 'text', text: JSON.stringify(required) },
      { type: 'text', text: JSON.stringify(failure) },
    ],
  };
}

/** The answer to an unlock_skill call with nothing to pay with: what to pay, and how over MCP. */
export function paymentRequired(skill: string, ports: PaymentsPorts, baseUrl: string): CallToolResult {
  const entry = requireSkill(ports.catalog, skill, 'argument `skill_id`');
  const error = PAYMENT_ERRORS.PAYMENT_REQUIRED({
    message: `${entry.name} costs ${entry.price_label} (${entry.x402.amount} atomic USDC on Base); this call carried no payment.`,
    tip: MCP_PAY_TIP,
  });
  return paymentRequiredResult(entry.id, ports, baseUrl, 'payment_required', failureBody(error));
}

/** A paid call's unlock as MCP's result: the body, and x402's SettleResponse in `_meta` when a transfer settled. */
export const paidResult = (body: unknown, settlement: Settlement | undefined): CallToolResult =>
  jsonResult(body, settlement ? { [X402_META.paymentResponse]: settleResponse(settlement) } : undefined);

/**
 * A failure of a call that carried `_meta["x402/payment"]`: what HTTP answers with 402 (the payment
 * does not pay, or not yet) is x402's payment-required result, with the reason as `error`; the
 * failure body says whether sending the same call again helps. Undefined for any other failure.
 */
export function paymentRefusedResult(e: unknown, skill: string, ports: PaymentsPorts, baseUrl: string): CallToolResult | undefined {
  if (!(e instanceof AppError) || e.status !== 402) return undefined;
  const reason = e.details?.['reason'];
  const body = failureBody(e);
  return paymentRequiredResult(skill, ports, baseUrl, typeof reason === 'string' ? reason : body.error, {
    ...body,
    // The payment was read as the PAYMENT-SIGNATURE value it is; here the client sent it in `_meta`.
    message: body.message.replaceAll('PAYMENT-SIGNATURE', '_meta["x402/payment"]'),
    tip: e.retry ? e.tip : MCP_PAY_TIP,
  });
}

/** An unlock refusal as MCP's tool error, its tip naming the tool's arguments where HTTP's names headers; undefined for any other failure. */
export function refusalResult(e: unknown): CallToolResult | undefined {
  const tip = e instanceof AppError ? MCP_TIPS[e.code] : undefined;
  return tip === undefined ? undefined : failureResult({ ...failureBody(e as AppError), tip });
}
