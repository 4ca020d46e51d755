/**
 * The payments domain's view of the outside: the ledger, the chain, the sealed packs, license
 * signing, the confirmation loop and readiness probes. Interfaces only; `wiring.ts` builds
 * them from the environment and `adapters/` implements them.
 */
import type { Catalog } from '../catalog';
import type { CatalogEntry, PackMeta, SealedPack } from '../contract/catalog-data';
import type { PackVersionRecord } from '../contract/pack-versions';
import type { ConfigReading, MarketConfig } from '../contract/settings';
import type { PaymentRequiredV2 } from './core/challenge';
import type { RelayerKeyBalance, Requirement, SignedPayment, Waiting, X402Settlement } from '../facilitator';
import type { SignInWithXFields } from '../contract/sign-in-with-x';
import type { RpcUrls } from '../platform/rpc-urls';

/** The proof ledger, card sales and figures are the ledger domain's; payments claims and reads through them. */
export type {
  CardSale,
  CardSales,
  ClaimResult,
  Figures,
  Ledger,
  LedgerKind,
  LedgerPage,
  LedgerRow,
  PaymentRef,
  ServiceSigner,
} from '../ledger';
import type { CardSales, Figures, Ledger, LedgerKind, ServiceSigner } from '../ledger';
import type { ReceiptView } from './core/verify-transfer';

/** x402 settlement is the facilitator's; payments, the resource server, settles through its face. */
export type {
  Authorization,
  FundsAhead,
  FundsHold,
  PreparedCall,
  RelayedReceipt,
  Relayer,
  RelayerKeyBalance,
  Requirement,
  SettlementRead,
  SettlementRecord,
  SignedPayment,
  X402Settlement,
} from '../facilitator';

export type ChainRead =
  /** `blockTimestamp` (seconds) only when asked for: it costs a second request. */
  | { kind: 'found'; receipt: ReceiptView; head: bigint; provider: string; blockTimestamp?: bigint }
  /**
   * Every provider that answered said it has no receipt for this hash (yet). `head` is the
   * lowest head among them: a provider behind the claimed block proves nothing about it.
   */
  | { kind: 'not_found'; answered: number; head: bigint | undefined }
  /** No provider answered usefully: a fault on our side, not the buyer's. */
  | { kind: 'unavailable'; errors: string[] };

/** The chain as the payments domain needs it. */
export interface ChainReader {
  /** Looks a transaction up on the providers in order, within a bounded time. */
  readTransfer(txHash: `0x${string}`, opts?: { blockTime?: boolean }): Promise<ChainRead>;
}

/** A transfer that arrived before it had enough confirmations, to be re-verified. */
export interface ConfirmationJob {
  network: string;
  txHash: string;
  /** The product's id: a skill, or a plan for `product: 'subscription'`, or `meter`. */
  skill: string;
  /** What the transfer buys; a skill's unlock when absent. */
  product?: LedgerKind;
  /**
   * `confirm` (default): wait for confirmations, then claim. `finality`: re-verify a claim after the
   * reorg window. `escrow`: finish the capture of an escrowed sale (x402 auth-capture) named by
   * `settlement`. `escrow_expiry`: at `at`, end an escrowed payment that no request delivered: its
   * sale captured if one was claimed, else the payment voided (the escrow returns it to the payer).
   */
  kind?: 'confirm' | 'finality' | 'escrow' | 'escrow_expiry';
  /** For `escrow_expiry`: when (ISO time), escrowExpiryAt of the payment's capture deadline. */
  at?: string;
  /** The caller that asked (hashed source address), so the claim the loop makes stays retrievable by them. */
  source?: string;
  /** The payer the caller proved with a signature, if any. */
  payer?: string;
  /** Set for a transfer the service's relayer submitted (x402 v2): only this loop or its request may claim it. */
  relayed?: boolean;
  /** With `relayed`: the x402 settlement (its key) that sent the transfer, which the loop ends once it has decided (claimed, or reverted). */
  settlement?: string;
}

export interface ConfirmationScheduler {
  /** Starts re-verification once per (network, tx, skill); a second call while it runs changes nothing. */
  schedule(job: ConfirmationJob): Promise<'started' | 'already_running'>;
}

/** The sealed pack texts this bundle carries (only the bundles that unlock carry them). */
export interface PackStore {
  get(skillId: string): SealedPack | undefined;
}

/**
 * Every published version of every pack by its digest (issue 52): the content-addressed store,
 * write-once (the versions bucket in AWS, dist/versions locally). A record is returned only if its
 * pack hashes to the digest asked for.
 */
export interface PackVersionStore {
  get(digest: string): Promise<PackVersionRecord | undefined>;
}

/** What a license token binds. */
export interface LicenseClaims {
  network: string;
  txHash: string;
  skill: string;
  payer: string;
  seal: string;
}

/** Portable license tokens that only this service signs and verifies. */
/** The license signing keys: the one that signs, and the one before it, which still verifies after a rotation. */
export interface LicenseKeys {
  current: Uint8Array;
  previous?: Uint8Array;
}

/** A Secrets Manager secret's versions, as its rotation steps need them (the protocol is the platform's). */
export type { SecretVersions } from '../platform/secret-rotation';

export interface Licenses {
  issue(claims: LicenseClaims): Promise<string>;
  /** The claims of a token this service signed, or undefined for a bad, tampered or foreign one. */
  verify(token: string): Promise<LicenseClaims | undefined>;
  /**
   * A wallet's short sign-in session (GET /api/purchases after SIGN-IN-WITH-X): signed with the
   * same key for another audience, so neither a license nor a session passes as the other.
   */
  issueSession(address: string, expiresAt: Date): Promise<string>;
  /** The wallet of a session this service signed that has not expired, or undefined. */
  verifySession(token: string): Promise<{ address: string; expiresAt: Date } | undefined>;
}

/**
 * A Sign-In-With-X proof (x402's `sign-in-with-x` extension, CAIP-122 with an EIP-4361 message
 * for eip155 chains): what the client sends, base64 JSON, in the SIGN-IN-WITH-X header.
 */
export type SignInWithX = SignInWithXFields & { signature: string };

/** Signature checks (EIP-191 over the EIP-4361 message); no RPC. */
export interface WalletSignatures {
  /** Whether `signature` over the message of `fields` recovers to `fields.address`. */
  verify(fields: SignInWithX): Promise<boolean>;
  /**
   * Whether a signed payment's EIP-3009 authorization is signed by its `from` for the token of
   * `requirement` (its EIP-712 domain): an EOA's signature recovered locally, a contract wallet's
   * (EIP-1271, ERC-6492) asked of the chain. Only the signature: not the balance, not the window.
   */
  authorizationSigned(payment: SignedPayment, requirement: Requirement): Promise<boolean>;
}

/** Single-use nonces of wallet signatures. */
export interface NonceStore {
  /** Records the nonce as used; false if it was used before (a replayed signature). */
  use(address: string, nonce: string, expiresAt: Date): Promise<boolean>;
}

/** One table as readiness sees it. */
export interface TableStatus {
  logicalName: string;
  name: string;
  ok: boolean;
  detail: string;
}

/** One RPC provider's answer to "which chain are you?". */
export interface ProviderChainId {
  url: string;
  chainId: number | undefined;
  error: string | undefined;
}

/** What GET /api/ready checks. */
export interface ReadinessPorts {
  configReading: ConfigReading;
  catalog: Catalog;
  packs: PackStore;
  probeTables: () => Promise<TableStatus[]>;
  /** The JSON-RPC providers in the order they are tried (the RPC secret's first, in AWS). */
  rpcUrls: RpcUrls;
  probeChainIds: (urls: readonly string[]) => Promise<ProviderChainId[]>;
  /** The challenge GET /api/pay serves for the canary right now: its status and body. */
  liveChallenge: (baseUrl: string) => Promise<{ status: number; body: string }>;
  /** Each key of the x402 relayer's pool and its ETH balance (wei), or why it cannot be read; undefined when there is no relayer. */
  probeRelayer: () => Promise<RelayerKeyBalance[] | undefined>;
}

/**
 * A signed payment as a surface received it, decoded once and not yet checked: x402 v2's
 * `PaymentPayload` or v1's payment, `undefined` when the header was no base64 JSON. `field` names
 * where it came from, in the surface's words, for refusals.
 */
export interface PresentedPayment {
  version: 1 | 2;
  value: unknown;
  field: string;
}

/** x402 v2's `PaymentRequired` as the `PAYMENT-REQUIRED` header carries it (base64 of its JSON). */
export type PaymentRequiredHeader = (required: PaymentRequiredV2) => string;

/**
 * x402's Bazaar discovery extension of a skill's 402 (`{bazaar: {info, schema}}`): how to call
 * GET /api/pay?skill= and what the paid answer is, from the contract's `payDiscovery`.
 */
export type DiscoveryExtension = (entry: CatalogEntry, meta: PackMeta | undefined, resourceUrl: string) => Record<string, unknown>;

/** Everything the payments routes use. `config` is the parsed configuration; `configReading` also lists its problems. */
export interface PaymentsPorts extends ReadinessPorts {
  config: MarketConfig;
  /** Every published version's bytes by digest: what a re-download of an earlier version reads (issue 52). */
  versions: PackVersionStore;
  chain: ChainReader;
  ledger: Ledger;
  cardSales: CardSales;
  figures: Figures;
  licenses: Licenses;
  confirmations: ConfirmationScheduler;
  signatures: WalletSignatures;
  nonces: NonceStore;
  /** x402 v2 settlement by the service's relayer; undefined when this deployment has none. */
  x402?: X402Settlement | undefined;
  /** How a settlement waits for another request: real time when absent (a test's own clock makes the waits instant). */
  waiting?: Waiting | undefined;
  /** Encodes every `PAYMENT-REQUIRED` the routes send (x402's own encoder). */
  paymentRequiredHeader: PaymentRequiredHeader;
  /** The Bazaar discovery extension every skill's 402 declares (x402's own builder). */
  discoveryExtension: DiscoveryExtension;
  /** The service key (the ledger's): signs every sale's receipt, and the agent card. */
  serviceSigner: ServiceSigner;
  now: () => Date;
}
