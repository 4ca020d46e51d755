/**
 * A sale's receipt: the books' statement of one sale (an on-chain payment or a card sale), as a
 * compact JWS (ES256) signed with the service key published at /.well-known/jwks.json. Its claims
 * are a function of the stored sale alone, so the same receipt can be signed again later (the
 * purchases page) and says the same thing. The service signs it (lambdas/ledger/receipts.ts); a
 * buyer checks it offline (`npm run verify-receipt`, or any JOSE library). docs/PAYMENTS.md, "Receipts".
 */

/** The protected header's `typ`: the claims are a JWT claims set, of this kind only. */
export const RECEIPT_TYPE = 'sale-receipt+jwt';
/** The only algorithm a receipt is signed with. */
export const RECEIPT_ALG = 'ES256';

/** What a receipt is for: a ledger row's kind, or a card sale. */
export type ReceiptKind = 'unlock' | 'subscription' | 'meter_top_up' | 'card';

export interface ReceiptClaims {
  /** The service's base URL: who states the sale. */
  iss: string;
  /** What was sold: a skill id, a plan id, or `meter`. */
  sub: string;
  kind: ReceiptKind;
  /**
   * The pack as sold, recorded with the sale (unlocks and card sales). `seal` is the sha256 seal
   * of the pack's canonical form (`/api/packs`), which is the digest of the version sold (issue 52);
   * `version` is that version's number, read from the published versions by the digest (absent
   * for a seal from before versions were). A re-download asks for it (`?version=<n>`) and gets
   * exactly those bytes. Absent for a sale recorded before seals were, or for a subscription or meter.
   */
  pack?: { seal: string; version?: number };
  /** On-chain sales: atomic units actually transferred (an integer string; 6 decimals). */
  amount?: string;
  /** On-chain sales: the token, by symbol and contract, on its network (CAIP-2). */
  asset?: { symbol: string; contract: string; network: string };
  /** On-chain sales: the paying wallet (the Transfer log's `from`). */
  payer?: string;
  /** On-chain sales: the transfer's transaction hash. */
  tx?: string;
  /**
   * An escrowed sale (x402 `auth-capture`, issue 53): the payment went into the escrow `contract`
   * by the escrow's `authorize` (`authorize_tx`, the same transaction as `tx`), under the escrow's
   * id of it (`payment_hash`, its `getHash` of the PaymentInfo), and reached the treasury by the
   * operator's `capture` (`capture_tx`, absent while no capture was sent). `contract` is absent
   * for a sale recorded before the row named its escrow. Absent for every other sale.
   */
  escrow?: { scheme: 'auth-capture'; contract?: string; payment_hash: string; authorize_tx: string; capture_tx?: string };
  /** Card sales: what Stripe collected, and the checkout session the sale belongs to (this service's id). */
  card?: { amount_cents: number; currency: string; session: string; processor: 'stripe' };
  /** When the sale was recorded (ISO 8601, UTC). */
  time: string;
  /**
   * Where the sale stands in the books: `entry` is the ledger's key (`<network>:<txHash>`) or the
   * card sale's (`card:<session>`); for a transfer, the block and the Transfer log it was judged by.
   */
  ledger: { entry: string; block_number?: string; block_hash?: string; log_index?: number };
  /** When this receipt was signed (seconds since the epoch). */
  iat: number;
}
