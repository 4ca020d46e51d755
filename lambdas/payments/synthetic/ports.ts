/**
 * The synthetic purchase's view of the outside: it is an outside buyer, so it sees only what any
 * buyer sees (the service's public HTTP answers) and the chain (the operator's funding wallet).
 * Interfaces only; `wiring.ts` builds them and `adapters/` implements them.
 */

/** The canary as the service publishes it (the /api/shop canary shelf, a skill card). */
export interface PublishedCanary {
  skill: string;
  /** Atomic USDC, from the card's `amount`. */
  amount: bigint;
  /** The skill's pay URL (its x402 resource). */
  pay: string;
}

/** One row of the public proof ledger (`GET /api/proof`), the fields the check reads. */
export interface ProofRowView {
  txHash: string;
  skill: string;
  amount: string;
  payer: string;
}

/** What the service publishes to every buyer, read over HTTP through the public base URL. */
export interface Storefront {
  canary(): Promise<PublishedCanary>;
  /** The seal `/api/packs?skill=` publishes before any purchase. */
  publishedSeal(skill: string): Promise<string>;
  /** The newest proof ledger rows of a skill (one page). */
  proofRows(skill: string): Promise<ProofRowView[]>;
}

/** The operator's funding wallet: sends a USDC transfer and pays its gas. */
export interface Funder {
  /** Sends `amount` atomic USDC to `to` and waits for the receipt; the transfer's hash. Throws if it reverted. */
  fund(to: `0x${string}`, amount: bigint): Promise<`0x${string}`>;
}

/** What a purchase answered: the pack and its payment, as the unlock body and PAYMENT-RESPONSE carry them. */
export interface Delivery {
  status: number;
  /** `payment.txHash` of the unlock body (or PAYMENT-RESPONSE's transaction). */
  txHash: string | undefined;
  /** `sealed_pack.files`: path → text. */
  files: unknown;
  /** The unlock body's `seal`. */
  seal: unknown;
  /** The body, cut short, for the failure's message. */
  summary: string;
}

/** A wallet made for one run: its address, and a purchase with x402's stock client that signs as it. */
export interface BuyerWallet {
  address: `0x${string}`;
  buy(payUrl: string): Promise<Delivery>;
}

export interface SyntheticPurchasePorts {
  storefront: Storefront;
  funder: Funder;
  /** A new wallet with a random key, kept in memory only. */
  freshBuyer(): BuyerWallet;
  /** How long to wait for the purchase's row to show on the proof ledger (an index read may lag the write a moment). */
  ledgerPatience: { attempts: number; delayMs: number };
  sleep(ms: number): Promise<void>;
  now(): number;
}
