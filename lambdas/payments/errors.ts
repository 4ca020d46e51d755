/**
 * The payments domain's error codes: the spec's payment codes and the buyer checks
 * (docs/SECURITY.md, docs/PAYMENTS.md). Other domains throw them through payments' index.
 */
import { errorCatalog } from '../platform/errors';

export const PAYMENT_ERRORS = errorCatalog({
  /** The spec's challenge on GET /api/pay (its body is the challenge, not a failure body), and access's answer to a wallet with nothing. */
  PAYMENT_REQUIRED: {
    status: 402,
    message: 'Payment required: this wallet has no access to the skill.',
    tip: 'Pay the challenge (PAYMENT-REQUIRED header), subscribe, or draw from a meter; `details.access.next` lists each.',
  },
  /** The spec's 402 for a POST without a proof. */
  PROOF_REQUIRED: {
    status: 402,
    message: 'No proof of payment: send header X-PAYMENT with {"txHash","skill"} (or the same JSON body).',
    tip: 'GET /api/pay?skill=<id> for the challenge, transfer the amount, then POST with X-PAYMENT.',
  },
  /** The spec's 402 for a payment that does not (yet) pay; `retry` says whether waiting can help, `details.reason` why. */
  PAYMENT_VERIFICATION_FAILED: {
    status: 402,
    message: 'The payment could not be verified.',
    tip: 'Wait 2 to 5 seconds and retry; check the transaction on a Base block explorer.',
  },
  /** The spec's 403 for a license that is bad, tampered, foreign, for another skill, or revoked. */
  INVALID_LICENSE: {
    status: 403,
    message: 'The license token is not valid for this service or this skill.',
    tip: 'Use the txHash path: POST /api/pay with X-PAYMENT {"txHash","skill"}.',
  },
  /** x402's payment-identifier reused by the same payer for another payment (another resource or requirement). */
  PAYMENT_IDENTIFIER_REUSED: {
    status: 409,
    message: 'This payment identifier was already used for a different payment.',
    tip: 'Use a new payment identifier for a new payment; send the first payment again unchanged to get its outcome.',
  },
  /** A card sale Stripe reported refunded in full, or under a dispute not won: its pack and license no longer go out. */
  CARD_SALE_REVERSED: {
    status: 403,
    message: 'This card sale was refunded or is disputed, so its pack is no longer delivered.',
    tip: 'Buy the pack again, or write to the operator (GET /contact/) if this is a mistake; a dispute the seller wins restores the license.',
  },
  /** The spec's 503 when the operator switched payments off, or the payment configuration is unsafe. */
  PAYMENTS_DISABLED: {
    status: 503,
    message: 'Payments are switched off by the operator.',
    tip: 'Wait, or contact the operator. Evaluation (outline, sample) stays free.',
    retry: true,
  },
  /** The spec's 403 for a purchase an AP2 mandate refuses: nothing was claimed or transferred. */
  AP2_MANDATE_REJECTED: {
    status: 403,
    message: 'AP2 mandate rejected.',
    tip: 'Fix the mandate (GET /api/mandates?wallet=) or omit X-AP2-MANDATE; nothing was claimed or transferred.',
  },
  /** A claimed transfer asked for again without the buyer's license or wallet signature; names no skill and no payer. */
  BUYER_PROOF_REQUIRED: {
    status: 403,
    message:
      'This transfer has already been claimed. Only its buyer can get the pack again: present the license token from the unlock, or a signature by the paying wallet.',
    tip: 'Send header X-LICENSE: <license.token>, or header SIGN-IN-WITH-X with an EIP-4361 message signed by the wallet that paid (docs/SECURITY.md). A lost response can be retried from the same address for a few minutes.',
  },
  /** A SIGN-IN-WITH-X proof (or an EIP-712 wallet action) that does not hold: a field, the signature, or a reused nonce. */
  INVALID_WALLET_SIGNATURE: {
    status: 403,
    message: 'The wallet signature does not hold.',
    tip: "Sign a fresh EIP-4361 message: this domain, uri = the skill's /api/pay?skill= URL, resources including eip155:<chain>:tx:<txHash>, the service's chain (8453 on Base; a staging stack's challenge names its own), a new nonce, issuedAt now.",
  },
  /** A first claim not signed by the paying wallet where one is required, was offered, or the transfer was made by its signature. */
  PAYER_PROOF_REQUIRED: {
    status: 403,
    message: 'Only the paying wallet can claim this transfer.',
    tip: 'Sign the claim with the wallet that paid: header SIGN-IN-WITH-X (docs/SECURITY.md).',
  },
  /** A re-download's `version` (issue 52) that the skill never published. */
  VERSION_NOT_FOUND: {
    status: 404,
    message: 'The skill has no such version.',
    tip: 'GET /api/packs?skill=<id> lists its versions; leave `version` out for the current one.',
  },
  /** A re-download's `version` published before the purchase: a license covers the version it bought and every later one (docs/ACCESS.md, "Versions"). */
  VERSION_NOT_COVERED: {
    status: 403,
    message: 'Your purchase does not cover this version: it covers the version bought and every later one.',
    tip: 'Ask for a version your receipt names (`pack.version`) or a later one; leave `version` out for the current one.',
  },
});
