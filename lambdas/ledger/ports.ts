/**
 * The ledger domain's view of the outside: the proof ledger (one row per claimed transfer), card
 * sales, and the figures folded from both. Interfaces only; `wiring.ts` builds them from the
 * environment and `adapters/` implements them.
 */
import type { JsonWebKey } from 'node:crypto';
import type { Catalog } from '../catalog';
import type { MarketConfig } from '../contract/settings';
import type { CardChange, CardDispute, CardReversal, CardSaleStatus, ChargeFee } from './core/card-standing';
import type { Counters, CounterTarget, FoldMark, MetricCounts, TallyDeltas } from './core/counters';
import type { RefundReceipt } from './core/usdc-refunds';

/** What a ledger row paid for: a skill's pack, a subscription period, or a prepaid meter's balance. */
export type LedgerKind = 'unlock' | 'subscription' | 'meter_top_up';

export interface LedgerRow {
  /** Absent on rows written before kinds existed: those are unlocks. */
  kind?: LedgerKind;
  network: string;
  /** Lower-case transaction hash. */
  txHash: string;
  skill: string;
  /** Atomic units actually transferred (may exceed the price). */
  amount: string;
  /** Atomic price of the skill (or plan, or the meter's minimum top-up) when it was claimed. */
  price: string;
  asset: 'USDC' | 'USDbC';
  assetContract: string;
  payer: string;
  blockNumber: string;
  blockHash: string;
  logIndex: number;
  confirmations: number;
  recordedAt: string;
  status: 'confirmed' | 'reorged';
  /**
   * Who made the first claim: sha256 of the caller's source address. Never published; it lets
   * the same caller retry a lost response within the retry window without a license.
   */
  claimSource?: string;
  /** Set once the finality check found the transfer still on chain after the reorg window. */
  final?: boolean;
  /**
   * Unlocks: the seal of the pack as sold (the server's catalog at claim time), what the sale's
   * receipt states. Absent on rows claimed before it was recorded, and on other kinds.
   */
  packSeal?: string;
  /**
   * Unlocks an operator refunded in USDC (lambdas/ledger/refunds.ts): atomic units returned in
   * all (the sum of `refunds`' amounts), and each refund by its transaction hash. A sale refunded
   * in full stops giving access but stays `confirmed`: it was a confirmed sale, and is counted so.
   */
  refundedAmount?: string;
  refunds?: Record<string, StoredRefund>;
  /**
   * x402 `auth-capture` (issue 53): the transaction above is the escrow's `authorize` (the buyer's
   * money into the escrow), `escrow` the escrow contract it was authorized in (EIP-55),
   * `paymentHash` the escrow's id of the payment, `settlement` the facilitator's record of it, and
   * `captureTx` the capture that paid the treasury, once sent. The receipt states them.
   */
  scheme?: 'auth-capture';
  escrow?: string;
  paymentHash?: string;
  settlement?: string;
  captureTx?: string;
}

/** One refund transfer recorded against a sale, as its row's `refunds` map holds it. */
export interface StoredRefund {
  /** Atomic units returned (the transaction's Transfers of the sale's asset from the treasury to the payer). */
  amount: string;
  /** Lower-case refund transaction hash (also its key in the map). */
  tx: string;
  /** The refund's block number, decimal. */
  block: string;
  /** The refund block's time (ISO). */
  time: string;
  /** When the operator recorded it (ISO). */
  recordedAt: string;
}

/**
 * The service's signing key (ES256): it signs the books' statements of a sale (receipts) and the
 * A2A agent card, and is published at /.well-known/jwks.json. Hides where the private half lives
 * (KMS in AWS, a file locally).
 */
export interface ServiceSigner {
  /** ES256 signature of the bytes: 64 bytes, r then s (what JWS carries). */
  sign(input: Uint8Array): Promise<Uint8Array>;
  /** The public key as a JWK (kty EC, crv P-256). */
  publicJwk(): Promise<JsonWebKey>;
}

/** One page of confirmed unlocks, newest first; `next` continues after its last row. */
export interface LedgerPage {
  rows: LedgerRow[];
  next: string | undefined;
}

export type ClaimResult = { claimed: true } | { claimed: false; existing: LedgerRow };

/** A confirmed payment of a wallet as an index holds it: which transfer, and when it was claimed. */
export interface PaymentRef {
  network: string;
  txHash: string;
  recordedAt: string;
}

export interface Ledger {
  /**
   * Claims the transfer for one skill with a single conditional write: succeeds only if the
   * transfer was never claimed, or was dropped by a reorg and is re-claimed for the same skill.
   */
  claim(row: LedgerRow): Promise<ClaimResult>;
  get(network: string, txHash: string): Promise<LedgerRow | undefined>;
  /** Marks a claim whose transfer a reorg dropped; it leaves the public listings and what its payer owns. */
  markReorged(network: string, txHash: string): Promise<void>;
  /** Marks a confirmed claim as past the reorg window and still on chain. */
  markFinal(network: string, txHash: string): Promise<void>;
  /** Names the capture of an escrowed sale on its row (once: a second call changes nothing). */
  recordCapture(network: string, txHash: string, captureTx: string): Promise<void>;
  /**
   * One page of confirmed unlocks, newest first: `limit` rows after the cursor `after` (a
   * `next` of an earlier page). An `after` this ledger did not make is answered as undefined.
   */
  recent(limit: number, skill?: string, after?: string): Promise<LedgerPage | undefined>;
  /**
   * A wallet's first or latest confirmed payment for one product (a skill, a plan, `meter`): what
   * it owns, one Query of one partition whatever the wallet's history (the `owned` index).
   */
  owned(payer: string, product: string, which: 'first' | 'last'): Promise<PaymentRef | undefined>;
  /**
   * One page of a wallet's confirmed payments of every kind, newest first: what it bought. One
   * Query of the `byPayer` index (its rows' keys) and one BatchGetItem of those rows. An `after`
   * that is not a cursor of this list is answered as undefined; one made for another wallet only
   * moves where this wallet's own rows start (the Query never leaves the wallet's partition).
   */
  ofPayer(payer: string, limit: number, after?: string): Promise<LedgerPage | undefined>;
  /** A wallet's first or latest confirmed payment of any kind: one indexed read. */
  payerEdge(payer: string, which: 'first' | 'last'): Promise<{ recordedAt: string } | undefined>;
  /** Every row, confirmed or not, page by page: what the reconcile job recounts. */
  scan(): AsyncIterable<LedgerRow>;
}

/**
 * A card sale: a checkout session Stripe reported paid. Card sales are not on-chain facts, so they
 * are kept apart from the proof ledger (on-chain unlocks only) and form their own revenue channel.
 */
export interface CardSale {
  /** Our checkout session's id; also the `txHash` claim of the sale's licenses. */
  id: string;
  /** Which protocol opened the session. */
  protocol: 'acp' | 'ucp';
  skill: string;
  /** What Stripe collected, in cents (the price at creation; no discounts are offered). */
  amountCents: number;
  /** The catalog's card price when the session was opened. */
  priceCents: number;
  currency: 'usd';
  /** Stripe's ids, for finance and support: the Checkout Session and its PaymentIntent. */
  stripeSessionId: string;
  paymentIntent: string | undefined;
  livemode: boolean;
  recordedAt: string;
  /** `paid` while the sale stands; `refunded` in full or `disputed` (open or lost) stop its license (core/card-standing.ts). */
  status: CardSaleStatus;
  /** The seal of the pack as sold (the server's catalog when the sale was recorded); absent on older sales. */
  packSeal?: string;
  /** The buyer's country (ISO 3166-1 alpha-2) from the card's billing address, when Stripe reported one: for tax. */
  buyerCountry?: string;
  /** What Stripe reported after the sale: cents refunded in all, the dispute, and each reversal of money. */
  refundedCents?: number;
  dispute?: CardDispute;
  reversals?: Record<string, CardReversal>;
  /** How many reported changes were applied (a fee recorded late counts as one): the condition of the next one's write. */
  changes?: number;
  /** Stripe's charge (ch_…) that paid the sale, when Stripe had made it at recording. */
  chargeId?: string;
  /**
   * Stripe's processing fee and what reached the balance (`ChargeFee`): set with the sale when the
   * charge's balance transaction existed then, else once by `recordFee` when Stripe reports it
   * (`charge.updated`). Absent until then: the sale stands without it.
   */
  balanceTransaction?: string;
  feeCents?: number;
  netCents?: number;
  feeCurrency?: string;
  exchangeRate?: string;
}

export interface CardSales {
  /** One conditional PutItem: the first record wins, a second answers the existing sale. */
  record(sale: CardSale): Promise<{ recorded: boolean; sale: CardSale }>;
  get(id: string): Promise<CardSale | undefined>;
  /** The sale paid by this Stripe PaymentIntent (pi_…): one Query of the `byPaymentIntent` index, then the sale. */
  byPaymentIntent(paymentIntent: string): Promise<CardSale | undefined>;
  /**
   * Applies one fact Stripe reported about the sale's payment (a refund, a dispute opened or
   * closed; `applyCardChange`), with one conditional write on the sale. `applied: false` when the
   * sale already reflects it; undefined when there is no such sale.
   */
  change(id: string, change: CardChange): Promise<{ applied: boolean; sale: CardSale } | undefined>;
  /**
   * Records Stripe's fee on the sale's charge once, with one conditional write (only while the sale
   * has no fee). `applied: false` when it already had one; undefined when there is no such sale.
   */
  recordFee(id: string, chargeId: string, fee: ChargeFee): Promise<{ applied: boolean } | undefined>;
  /** Every sale, page by page: what the reconcile job recounts. */
  scan(): AsyncIterable<CardSale>;
}

/** A transfer of USDC or USDbC to the treasury, as its Transfer log says. */
export interface TreasuryTransfer {
  asset: 'USDC' | 'USDbC';
  txHash: string;
  logIndex: number;
  /** Lower-case sender. */
  from: string;
  /** Atomic units (6 decimals), as a decimal string. */
  amount: string;
  blockNumber: bigint;
  /** The block's time. */
  time: string;
}

/** The chain's record of money sent to the treasury (eth_getLogs), for the unmatched-receipts report. */
export interface TreasuryTransfers {
  /** The chain's head block. */
  head(): Promise<bigint>;
  /** Every transfer of the configured tokens to the treasury in blocks `from`..`to` (inclusive), in chain order. */
  between(from: bigint, to: bigint): Promise<TreasuryTransfer[]>;
}

/** The chain's word on a refund transaction: its receipt, Transfer logs of the accepted tokens, block time and depth. */
export interface RefundChain {
  /** Undefined when the chain has no receipt for it. */
  receipt(txHash: string): Promise<RefundReceipt | undefined>;
}

/** A refund as the refunds table holds it: one item per refund transaction, naming the sale it was recorded against. */
export interface RefundRecord extends StoredRefund {
  network: string;
  /** Lower-case hash of the sale (the ledger row) it refunds. */
  saleTx: string;
  skill: string;
  payer: string;
  asset: 'USDC' | 'USDbC';
}

export interface Refunds {
  get(network: string, refundTx: string): Promise<RefundRecord | undefined>;
  /**
   * Records a refund with one DynamoDB transaction: the refund's item (only if its transaction
   * was never recorded) and the sale's row (only if its refunded total is still `expected`, so a
   * replay or a race changes nothing). `full` also takes the sale out of what its payer owns.
   */
  record(
    record: RefundRecord,
    sale: { expectedRefunded: string | undefined; refundedAmount: string; full: boolean },
  ): Promise<'recorded' | 'refund_exists' | 'sale_changed'>;
}

/** The figures as readers see them: a few small items per question, whatever the ledger's size. */
export interface Figures {
  /** All-time counters of every product (one Query). */
  totals(): Promise<Counters>;
  /** One wallet's counters. */
  wallet(address: string): Promise<Counters>;
  /** Each day's counters from `from` to `to` (inclusive, `yyyy-mm-dd`), days with no sale left out. */
  days(from: string, to: string): Promise<Map<string, Counters>>;
}

/** The counters table as the fold and the reconcile job write and read it. */
export interface CounterStore {
  /**
   * Adds `counts` to one item and moves its shard mark to `mark.last`: one conditional UpdateItem.
   * With `expected` null, only if the shard has applied nothing at or after `mark.first` there;
   * otherwise only if the shard's mark is still `expected`. `stale` answers the mark the item has
   * (a batch delivered again): the caller then applies only the records after it.
   */
  apply(target: CounterTarget, counts: MetricCounts, mark: FoldMark, expected: string | null): Promise<'applied' | { stale: string }>;
  /** Every counter item, as counters by target: what the reconcile job compares with the recount. */
  all(): Promise<TallyDeltas>;
  /** Removes shard marks older than `before` (a shard that old is drained: nothing it holds can come again). */
  prune(before: Date): Promise<number>;
}

/** What GET /api/proof reads: a page of the ledger, the confirmed count, the catalog for `skill`, the explorer. */
export interface ProofPorts {
  ledger: Pick<Ledger, 'recent'>;
  figures: Pick<Figures, 'totals'>;
  catalog: Catalog;
  config: Pick<MarketConfig, 'explorerUrl' | 'network'>;
}
