/**
 * The facilitator's view of the outside: x402's verification, the relayer's key pool and its
 * leases, the settlements table, the ETH / USD feed. Interfaces only; `wiring.ts` builds them from
 * the environment and `adapters/` implements them.
 */
import type { ReceiptView } from '../contract/chain';
import type { PaymentRequirementsV2, SignedPayment } from '../contract/x402';
import type { FeedRound, GasUsdFields } from './core/gas-usd';

export type { Authorization, SignedPayment } from '../contract/x402';

/** The server's own requirement a signed payment is checked against (x402 v2 `PaymentRequirements`). */
export type Requirement = PaymentRequirementsV2;

/** Checks a signed authorization before anything is claimed or sent: x402's own `exact` verification. */
export interface AuthorizationVerifier {
  /**
   * Signature (EOA, ERC-1271, ERC-6492), recipient, exact value, validity window, token domain,
   * and the balance by simulating the transfer. `reason` is x402's invalid reason.
   */
  verify(
    payment: SignedPayment,
    requirement: Requirement,
  ): Promise<{ ok: true } | { ok: false; reason: string; message?: string | undefined }>;
}

/** The relayer's receipt of its own transaction: what the ledger claim is judged from (no second read), and its gas. */
export interface RelayedReceipt extends ReceiptView {
  gasUsed: bigint;
  /** Wei per gas actually paid. */
  effectiveGasPrice: bigint;
}

/** A Chainlink-compatible price feed (AggregatorV3Interface) on chain 8453. */
export interface PriceFeed {
  /** `latestRoundData()` and `decimals()` of `feed` as they were at `blockNumber`: one RPC call. */
  roundAt(feed: string, blockNumber: bigint): Promise<FeedRound>;
}

/** One contract call the relayer signs and sends: where to, and its calldata. */
export interface RelayerCall {
  to: string;
  data: string;
}

/** What the relayer's `submit` did. */
export type Submission =
  /** Stored, then broadcast (or known to the node already). */
  | { kind: 'sent'; txHash: string; raw: string }
  /** `record` declined: another request holds the claim now. Nothing was broadcast. */
  | { kind: 'declined' }
  /** The node says the call would revert (the authorization cannot run now): nothing was signed or stored. */
  | { kind: 'would_revert'; message: string };

/** A payer's funds just before a broadcast, in one round trip. */
export interface FundsAhead {
  /** The payer's token balance at the head (mined), atomic units: what holds are measured against. */
  balance: bigint;
  /** The same at the pending block: lower when a transfer of the payer's (or one of the relayer's) waits in the node's pool. */
  pendingBalance: bigint;
  /** Whether the token has used (or cancelled) this authorization nonce, at the pending block. */
  authorizationUsed: boolean;
}

/** A signed relayer transaction: its hash, its bytes and the pool key that signed it (`from`). */
export interface SignedTransaction {
  txHash: string;
  raw: string;
  /** The relayer key that signed it (the settlement records it as `relayer`). */
  from: string;
}

/**
 * A relayer call whose gas and fees are being read from the node ahead of its submission
 * (`Relayer.prepare`). Only the relayer that made it reads what it holds.
 */
export interface PreparedCall {
  /** The payment it was prepared for (its authorization's payer and nonce): `submit` uses it for that payment only. */
  readonly from: string;
  readonly nonce: string;
}

/**
 * The service's relayer, which submits `transferWithAuthorization` and pays its gas: a pool of
 * keys (core/relayer-pool.ts), each signing for one holder at a time under a lease.
 */
export interface Relayer {
  /** Whether `address` is one of the pool's keys (funded or not): a transfer it sent is the relayer's own. */
  isRelayer(address: string): Promise<boolean>;
  /**
   * Starts reading the call's gas and fees for `payment` (the node's estimate, which also says
   * whether it would revert now), before it may be sent: reads only, nothing is signed and no key
   * is taken. `submit` given it uses what it read instead of reading again while it holds a key.
   */
  prepare(token: string, payment: SignedPayment): PreparedCall;
  /**
   * Signs `transferWithAuthorization` for the payment, hands the transaction to `record` (which
   * stores it) and broadcasts it only if `record` answers true: a transaction is never on the
   * wire before its hash is stored. If the node refuses it because another transaction of the
   * relayer took its nonce (two function instances signing at once), it is signed again with
   * the next nonce and recorded as replacing the refused one (`replaces`), which never reached
   * a mempool. A call the node says would revert is neither signed nor stored.
   */
  submit(
    token: string,
    payment: SignedPayment,
    record: (tx: SignedTransaction, replaces?: string) => Promise<boolean>,
    prepared?: PreparedCall,
  ): Promise<Submission>;
  /**
   * Signs and sends one call that settles no authorization (the escrow's capture, void or refund,
   * from the operator), under the same rules as `submit`: stored by `record` before it is
   * broadcast, signed again as a replacement when its nonce was taken, never signed when it would revert.
   */
  send(call: RelayerCall, record: (tx: SignedTransaction, replaces?: string) => Promise<boolean>): Promise<Submission>;
  /**
   * Sends a stored signed transaction again: `sent` (or the node already has it), or
   * `nonce_taken` when its nonce is used, by another transaction or by this one already mined
   * (its receipt tells which).
   */
  rebroadcast(raw: string): Promise<'sent' | 'nonce_taken'>;
  /** The receipt, waiting at most `timeoutMs`; undefined if none came. */
  receipt(txHash: string, timeoutMs: number): Promise<RelayedReceipt | undefined>;
  /** Whether the token has used (or cancelled) this authorization nonce: the chain's own record. */
  authorizationUsed(token: string, authorizer: string, nonce: string): Promise<boolean>;
  /** The payer's balance (mined and pending) and the authorization's state at the pending block: one round trip, just before a broadcast. */
  fundsAhead(token: string, payer: string, nonce: string): Promise<FundsAhead>;
  /**
   * The transaction that used this authorization (the token's `AuthorizationUsed(authorizer,
   * nonce)` event), whoever sent it, searched over the last blocks up to `toBlock` (default the
   * head); undefined if it is not found there (used long ago, or cancelled).
   */
  authorizationTransfer(token: string, authorizer: string, nonce: string, toBlock?: bigint): Promise<string | undefined>;
  /** Each pool key's native balance, in wei (or why it could not be read). */
  balances(): Promise<RelayerKeyBalance[]>;
}

/** One pool key's ETH, as the watch and readiness read it. */
export type RelayerKeyBalance = { address: string; balanceWei: bigint } | { address: string; error: string };

/**
 * The leases of the relayer's pool keys (one item per key, conditional writes): a key signs for
 * one holder at a time, so its nonce is counted by that holder alone. Times are epoch ms.
 */
export interface RelayerLeases {
  /**
   * Takes `address`'s lease for `holder` until `until` when it is free or expired at `now`, or
   * renews it when `holder` already holds it unexpired; false when another holder has it (or,
   * for a renewal, when ours ran out). One conditional write.
   */
  take(address: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Gives the lease up if `holder` still has it (nothing otherwise). */
  release(address: string, holder: string): Promise<void>;
}

/** What the pool reads of a key when it takes its lease: its next nonce (pending) and ETH, in one round trip. */
export interface RelayerKeyChain {
  state(address: string): Promise<{ nonce: number; balanceWei: bigint }>;
  /** Its next nonce alone (pending), after a gap. */
  nonce(address: string): Promise<number>;
  /** Its ETH alone, at a renewal. */
  balance(address: string): Promise<bigint>;
}

/**
 * What one settlement holds of its payer's token balance while its transaction may still move
 * it (docs/PAYMENTS.md, "What the relayer risks"): the relayer never has more in flight for a
 * payer than the payer holds.
 */
export interface FundsHold {
  /** The settlement's key (SettlementRecord.pk). */
  pk: string;
  token: string;
  payer: string;
  /** Atomic units. */
  amount: bigint;
}

/**
 * What one read of the settlements found for an authorization (`pk`): the owner check reads it
 * before the settlement path of the same request, which then need not read it again.
 */
export interface SettlementRead {
  pk: string;
  record: SettlementRecord | undefined;
}

/** One x402 settlement the service makes (SETTLEMENTS_TABLE). */
export interface SettlementRecord extends EscrowGasUsd {
  /** `<caip2>#<token>#<from>#<nonce>`, lower case. */
  pk: string;
  /** What it pays for, as the resource server names it (stored as `skill`, the finance export's column). */
  resource: string;
  payer: string;
  token: string;
  amount: string;
  /** `claimed` before anything is signed; `signed` once the transaction (and its hash) is stored; then `settled` or `failed`. */
  state: 'claimed' | 'signed' | 'settled' | 'failed';
  /** Who claimed it: sha256 of the caller's source address (never published). */
  source?: string | undefined;
  /** A random value naming the request that holds the claim; a stale claim is taken over by changing it. */
  lease: string;
  claimedAt: string;
  txHash?: string | undefined;
  /** The signed transaction, kept so that a retry re-sends the very same one. */
  raw?: string | undefined;
  /** The relayer pool key that signed it (lower case): whose ETH paid its gas. */
  relayer?: string | undefined;
  gasUsed?: string | undefined;
  effectiveGasPrice?: string | undefined;
  /** Wei the relayer paid for it (gasUsed × effectiveGasPrice), whether it settled or reverted. */
  gasCostWei?: string | undefined;
  /** The ETH / USD round at the receipt's block and the gas in micro-dollars; absent when the read failed (core/gas-usd.ts). */
  ethUsdFeed?: string | undefined;
  ethUsdRound?: string | undefined;
  ethUsdAnswer?: string | undefined;
  ethUsdDecimals?: number | undefined;
  ethUsdUpdatedAt?: string | undefined;
  gasCostUsdMicro?: string | undefined;
  failure?: string | undefined;
  finishedAt?: string | undefined;
  /** The authorization's `validBefore` (Unix seconds): after it, nothing can settle it any more. */
  validBefore?: string | undefined;
  /**
   * The transaction that moved the money when it is not the relayer's own: someone copied the
   * authorization (or the relayer's pending call) and had it mined first. The transfer is still
   * the signer's, so this settlement claims it for its buyer.
   */
  transferTx?: string | undefined;
  /**
   * Unix seconds after which DynamoDB may delete the record (TTL): only on a record of an
   * authorization answered without settlement (`authorization_consumed`), which matters no longer
   * than the authorization could move money. A settlement that sent anything is kept for the books.
   */
  expiresAt?: number | undefined;
  /** Ended unsent because this earlier settlement of the same payer and resource was in flight (I6): its key. */
  pendingFor?: string | undefined;
  /** `auth-capture`: the authorization pays into the escrow (the transaction above is its `authorize`); absent for `exact`. */
  scheme?: 'auth-capture' | undefined;
  /** The escrow's PaymentInfo (JSON), what its capture, void and refund name. */
  paymentInfo?: string | undefined;
  /** The escrow's hash of it: the payment's id on chain (the authorization's nonce is its payer-agnostic twin). */
  paymentHash?: string | undefined;
  /** Where an authorized payment is (core/escrow.ts); absent = `authorized` once `settled`. */
  escrowStage?: EscrowStage | undefined;
  /** Each escrow step's transaction (signed bytes kept for a rebroadcast) and gas, by step. */
  captureTx?: string | undefined;
  captureRaw?: string | undefined;
  captureGasUsed?: string | undefined;
  captureGasCostWei?: string | undefined;
  voidTx?: string | undefined;
  voidRaw?: string | undefined;
  voidGasUsed?: string | undefined;
  voidGasCostWei?: string | undefined;
  refundTx?: string | undefined;
  refundRaw?: string | undefined;
  refundGasUsed?: string | undefined;
  refundGasCostWei?: string | undefined;
  /**
   * When each escrow step's receipt was read (ISO), as `finishedAt` is the authorize's: the day
   * the books put its gas on. Its gas in US dollars is beside it (EscrowGasUsd).
   */
  captureFinishedAt?: string | undefined;
  voidFinishedAt?: string | undefined;
  refundFinishedAt?: string | undefined;
  /** Why the last escrow step's transaction reverted, if one did. */
  escrowFailure?: string | undefined;
}

/**
 * Each escrow step's gas in US dollars, priced as the authorize's is (the ETH / USD round at its
 * receipt's block, core/gas-usd.ts) and stored under the step's name, strings all:
 * `captureEthUsdFeed`, `captureEthUsdRound`, `captureEthUsdAnswer`, `captureEthUsdDecimals`,
 * `captureEthUsdUpdatedAt`, `captureGasCostUsdMicro`, and the same for `void` and `refund`.
 * Absent when the read failed: the step's gas is then unpriced in the books, never guessed.
 */
export type EscrowGasUsd = { [K in `${EscrowAction}${Capitalize<keyof GasUsdFields>}`]?: string | undefined };

/** An escrowed payment's stage after its authorization is mined (core/escrow.ts draws the machine). */
export type EscrowStage = 'authorized' | 'capturing' | 'captured' | 'voiding' | 'voided' | 'refunding' | 'refunded';
/** The operator's three calls on an authorized payment. */
export type EscrowAction = 'capture' | 'void' | 'refund';

export interface Settlements {
  /** Claims the authorization with one conditional write; the existing record when it is claimed already. */
  claim(record: SettlementRecord): Promise<{ claimed: true } | { claimed: false; existing: SettlementRecord }>;
  /**
   * Records an authorization the service answered without settling it (an owner's signed payment)
   * as ended, in one conditional write that any claim of the same authorization also contends for:
   * whichever comes first decides, so it is either consumed or settled, never both. The existing
   * record when one was there first.
   */
  consume(record: SettlementRecord): Promise<{ consumed: true } | { consumed: false; existing: SettlementRecord }>;
  /**
   * Records the first payment sent under a payer's payment identifier, in one conditional write;
   * the record already there when it is not the first.
   */
  rememberPaymentId(record: PaymentIdRecord): Promise<{ first: true } | { first: false; existing: PaymentIdRecord }>;
  /** Takes over a stale claim: succeeds only if the record still holds `lease` in state `claimed`. */
  takeOver(pk: string, lease: string, next: { lease: string; claimedAt: string; source?: string | undefined }): Promise<boolean>;
  /** Stores the signed transaction, only while `lease` holds the claim. */
  signed(pk: string, lease: string, tx: SignedTransaction): Promise<boolean>;
  /** Replaces a signed transaction the node refused (its nonce was taken), only while `replaces` is still the stored one. */
  replaced(pk: string, replaces: string, tx: SignedTransaction): Promise<boolean>;
  /**
   * Records the outcome once: `settled` with the gas it cost (and the transfer that moved the
   * money, when it was not the relayer's own), or `failed` with why (and the gas, when a
   * transaction of the relayer's reverted). True for the call that wrote it, false when it was already written.
   */
  finish(pk: string, outcome: SettlementOutcome): Promise<boolean>;
  get(pk: string): Promise<SettlementRecord | undefined>;
  /**
   * Holds the payer's token for the settlement, in one conditional write on the payer's item: only
   * while nothing else of the payer's token is in flight (I1: one relayed settlement at a time per
   * payer and token) and the payer is not cooling down at `nowSeconds`. Holding the same settlement
   * twice is one hold. `releasedAt` (epoch ms): when a hold of the payer's was last released, so a
   * read of its funds made before then is known to be stale. `lastSettled`: the payer's settlement
   * of this token that last ended settled, as its release noted it.
   */
  hold(hold: FundsHold, nowSeconds: number): Promise<HoldOutcome>;
  /**
   * Releases a hold (once), noting when; with `coolUntil`, the payer's settlements are refused until
   * then (Unix seconds); with `settled`, the hold's settlement ended settled, for that resource at
   * that time (epoch ms), noted on the payer's item for the token (its last only).
   */
  release(hold: FundsHold, opts?: { coolUntil?: number; settled?: { resource: string; at: number } }): Promise<void>;
  /** The holds of a payer's token, to find the ones whose settlement has ended. */
  holds(token: string, payer: string): Promise<FundsHold[]>;
  /** Adds the gas of a reverted relayer transaction to the hour's total (`hour` = `yyyy-mm-ddThh`). */
  addRevertedGas(hour: string, wei: bigint): Promise<void>;
  /**
   * One step of an escrowed payment, one conditional write: from stage `from` (absent means a
   * `settled` record with no stage yet) to `to`, setting `fields`; with `tx`, only while the
   * step's stored transaction is still that one (a replacement, or the receipt of that very
   * transaction). False when the record is no longer there.
   */
  escrowStep(
    pk: string,
    move: { from: EscrowStage; to: EscrowStage; tx?: { field: string; value: string } | undefined },
    fields: Record<string, string>,
  ): Promise<boolean>;
}

/** base/commerce-payments' escrow, as the operator calls it (`auth-capture`). */
export interface EscrowContract {
  /** The escrow's `getHash` of a PaymentInfo (JSON): the payment's id on chain, computed here. */
  hash(paymentInfo: string): string;
  /**
   * The calldata of `capture` (the whole amount, no fee), `void` or `refund` (`amount`) for a
   * payment. A refund names the deployment's refund collector, which takes the amount from the
   * operator's own balance (under the allowance below) into the escrow, which sends it to the payer.
   */
  call(action: EscrowAction, paymentInfo: string, amount: bigint): RelayerCall;
  /** The escrow's `paymentState` of a payment, read at the head. */
  state(paymentInfo: string): Promise<{ collected: boolean; capturable: bigint; refundable: bigint }>;
  /** What a refund of the payment can take: the operator's balance of its token, and the refund collector's allowance over it. */
  refundFunds(paymentInfo: string): Promise<{ balance: bigint; allowance: bigint }>;
  /**
   * The calldata of the operator's approval of the refund collector over the payment's token, with
   * no limit: a collector takes tokens only when the escrow calls it, and the escrow's `refund`
   * only for the payment's operator, so nobody but the operator's own refunds can spend it.
   */
  approveRefunds(paymentInfo: string): RelayerCall;
}

/** What `auth-capture` adds to x402 settlement: its verification, the operator's relayer and the escrow. */
export interface EscrowSettlement {
  /** The operator's address: the challenge's `captureAuthorizer`, the only sender the escrow accepts. */
  operator: string;
  /**
   * Whether auth-capture is offered now: only while the operator's account delegates to
   * EscrowOperatorGuard (docs/SECURITY.md, I2). Answers at once from what was last read.
   */
  offered(): boolean;
  /** The escrow and its ERC-3009 collector. */
  escrow: string;
  tokenCollector: string;
  verifier: AuthorizationVerifier;
  /** A pool of one key, the operator: `submit` sends the escrow's `authorize`, `send` its capture, void and refund. */
  relayer: Relayer;
  contract: EscrowContract;
}

/** What the operator's calls on an escrowed payment need (escrow.ts): the escrow and the settlement records. */
export type EscrowOperator = Pick<X402Settlement, 'escrow' | 'settlements' | 'priceFeed'>;

/** The x402 settlements still in flight (claimed or signed, no outcome yet), for the payments watch. */
export interface InFlightSettlements {
  /** Those claimed at or after `from` and before `to` (ISO times), oldest first. */
  claimedBetween(from: string, to: string): Promise<Array<{ pk: string; claimedAt: string }>>;
}

/**
 * What asking for a hold gave: held (when the payer's last hold was released, and the settlements
 * the payer has in flight in its other tokens), or why not.
 */
export type HoldOutcome =
  | { kind: 'held'; releasedAt: number | undefined; otherTokens: string[]; lastSettled?: LastSettled | undefined }
  | { kind: 'busy' }
  | { kind: 'cooling'; until: number };

/** A payer's settlement that ended settled, as its hold's release noted it: its key, its resource, when (epoch ms). */
export interface LastSettled {
  pk: string;
  resource: string;
  at: number;
}

/** How a settlement ended. */
export type SettlementOutcome =
  | ({
      state: 'settled';
      gasUsed: string;
      effectiveGasPrice: string;
      gasCostWei: string;
      finishedAt: string;
      transferTx?: string | undefined;
    } & Partial<GasUsdFields>)
  | ({
      state: 'failed';
      failure: string;
      finishedAt: string;
      /** TTL (Unix seconds), for an authorization ended unsent: it matters no longer than it can move money. */
      expiresAt?: number | undefined;
      /** For one ended because its payer was already paying for the same resource: that settlement's key. */
      pendingFor?: string | undefined;
      gasUsed?: string | undefined;
      effectiveGasPrice?: string | undefined;
      gasCostWei?: string | undefined;
    } & Partial<GasUsdFields>);

/** What x402 v2 settlement needs beyond the payments ports; absent where no relayer is configured. */
export interface X402Settlement {
  verifier: AuthorizationVerifier;
  relayer: Relayer;
  settlements: Settlements;
  /** Prices the relayer's gas at settlement (the `ethUsdFeed` setting's feed). */
  priceFeed: PriceFeed;
  /** x402's payment-identifier extension: the challenge's declaration, and a payment's id. */
  paymentIds: PaymentIdentifiers;
  /** x402's `auth-capture` (escrow), where an operator key is configured. */
  escrow?: EscrowSettlement | undefined;
}

/** x402's payment-identifier extension: an idempotency key a client may send with a signed payment. */
export interface PaymentIdentifiers {
  /** What the challenge's `extensions` declare (`{'payment-identifier': {info: {required: false}, schema}}`). */
  declaration: Record<string, unknown>;
  /** The payment's id; undefined when it sends none, `'invalid'` when it sends one the extension's rules refuse. */
  idOf(payment: SignedPayment): string | 'invalid' | undefined;
}

/** The first payment a client sent under a payment identifier (x402's payment-identifier extension). */
export interface PaymentIdRecord {
  /** The payer (lower case): ids are the payer's own, so nobody else's id can be probed or taken. */
  payer: string;
  id: string;
  /** What the payment was for (the resource and the server's requirement), as a digest. */
  fingerprint: string;
  /** The settlement key of the first payment sent under it. */
  settlement: string;
  /** TTL, Unix seconds. */
  expiresAt: number;
}
