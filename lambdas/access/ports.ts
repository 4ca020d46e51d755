/**
 * The access domain's view of the outside: what belongs to a wallet (mandates, subscriptions,
 * meters), wallet signatures over EIP-712 actions, the ERC-8004 Identity Registry, and the
 * payments domain it settles through. Interfaces only; `wiring.ts` builds them.
 */
import type { Catalog } from '../catalog';
import type { Ledger } from '../ledger';
import type { NonceStore, PaymentsPorts } from '../payments';

/** One AP2 constraint as this service enforces it (see core/mandate.ts for the accepted set). */
export type MandateConstraint =
  | { type: 'payment.amount_range'; currency: 'USDC'; max: string; min?: string | undefined }
  | { type: 'payment.budget'; currency: 'USDC'; max: number }
  | { type: 'payment.agent_recurrence'; frequency: string; max_occurrences?: number | undefined }
  | { type: 'payment.allowed_payees'; allowed: { id: string; name?: string | undefined }[] }
  | { type: 'payment.execution_date'; not_before?: string | undefined; not_after?: string | undefined }
  | { type: 'skill_market.scope'; skills?: string[] | undefined; categories?: string[] | undefined };

/** An AP2 open payment mandate as the wallet signed it (vct `mandate.payment.open.1`). */
export interface MandateDocument {
  vct: 'mandate.payment.open.1';
  /** The wallet that grants it and whose transfers it governs (our extension: AP2 leaves the issuer to the credential). */
  wallet: string;
  /** RFC 7800 confirmation claim: the agent key allowed to use it, as an Ethereum address. */
  cnf: { address: string };
  constraints: MandateConstraint[];
  iat?: number | undefined;
  exp?: number | undefined;
}

/** A stored mandate: the signed document, its state and what has been spent under it. */
export interface MandateRecord {
  id: string;
  mandate: MandateDocument;
  /** The EIP-712 signature of CreateMandate by `mandate.wallet`. */
  signature: string;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt?: string | undefined;
  /** Atomic USDC transferred under it, summed over `transfers`. */
  spent: bigint;
  occurrences: number;
  /** Transfers counted against it (lower-case hashes): each once, whatever is retried. */
  transfers: string[];
  /** When the last transfer was counted (ISO 8601), for the recurrence frequency. */
  lastSpentAt?: string | undefined;
}

export type SpendResult =
  | { kind: 'spent' | 'already_counted'; record: MandateRecord }
  | { kind: 'refused'; reason: 'not_found' | 'revoked' | 'budget' | 'occurrences' | 'frequency'; record: MandateRecord | undefined };

export interface MandateStore {
  /** Stores a new mandate; an identical one already stored is returned as it is. */
  create(record: MandateRecord): Promise<{ created: boolean; record: MandateRecord }>;
  get(id: string): Promise<MandateRecord | undefined>;
  /** A wallet's mandates, newest first. */
  list(wallet: string): Promise<MandateRecord[]>;
  /** Revokes with one conditional write; only the mandate's own wallet may (the caller proved it signed). */
  revoke(id: string, wallet: string, at: Date): Promise<'revoked' | 'already_revoked' | 'not_found'>;
  /**
   * Counts one transfer against a mandate with one conditional update: never past `budget`
   * (atomic) or `maxOccurrences`, never sooner than `minSecondsBetween` after the last one
   * (AP2's recurrence frequency), never twice for the same transfer, never on a revoked one.
   */
  spend(
    id: string,
    transfer: { txHash: string; amount: bigint },
    limits: { budget?: bigint; maxOccurrences?: number; minSecondsBetween?: number; now: Date },
  ): Promise<SpendResult>;
}

/** A wallet's subscription to one plan. */
export interface SubscriptionRecord {
  wallet: string;
  plan: string;
  status: 'active' | 'cancelled';
  startedAt: string;
  /** Access runs until this instant (ISO 8601). */
  periodEnd: string;
  cancelledAt?: string | undefined;
  /** Transfers that paid its periods: each extends it once. */
  transfers: string[];
}

export interface SubscriptionStore {
  get(wallet: string, plan: string): Promise<SubscriptionRecord | undefined>;
  list(wallet: string): Promise<SubscriptionRecord[]>;
  /**
   * Adds one paid period for one transfer, from the later of `now` and the current end; a
   * transfer already applied changes nothing. `reactivate` lets a start undo a cancellation.
   */
  extend(
    wallet: string,
    plan: string,
    transfer: string,
    periodSeconds: number,
    now: Date,
    opts: { reactivate: boolean },
  ): Promise<{ kind: 'extended' | 'already_applied'; record: SubscriptionRecord } | { kind: 'cancelled'; record: SubscriptionRecord }>;
  cancel(
    wallet: string,
    plan: string,
    at: Date,
  ): Promise<{ kind: 'cancelled' | 'already_cancelled'; record: SubscriptionRecord } | { kind: 'not_found' }>;
}

/** A wallet's prepaid meter. Amounts are atomic USDC. */
export interface MeterRecord {
  wallet: string;
  balance: bigint;
  /** Most that draws may spend in one calendar month (UTC); undefined for no cap. */
  cap: bigint | undefined;
  /** `YYYY-MM` of `spentInPeriod`. */
  period: string;
  spentInPeriod: bigint;
  /** Every top-up credited, ever. */
  toppedUp: bigint;
  /** Skills bought from the meter: each is the wallet's from then on. */
  drawn: string[];
  /** Top-up transfers credited: each once. */
  credited: string[];
}

export type DrawResult =
  | { kind: 'drawn' | 'already_drawn'; record: MeterRecord }
  | { kind: 'refused'; reason: 'no_meter' | 'balance' | 'cap'; record: MeterRecord | undefined };

export interface MeterStore {
  get(wallet: string): Promise<MeterRecord | undefined>;
  /** Credits a top-up transfer once, creating the meter on the first. */
  credit(
    wallet: string,
    transfer: string,
    amount: bigint,
    now: Date,
  ): Promise<{ kind: 'credited' | 'already_credited'; record: MeterRecord }>;
  setCap(wallet: string, cap: bigint | undefined, now: Date): Promise<MeterRecord | undefined>;
  /**
   * Charges `price` for `skill` with one conditional update that can never take the balance
   * below zero or the month's spend past the cap; a skill already drawn is not charged again.
   */
  draw(wallet: string, skill: string, price: bigint, now: Date): Promise<DrawResult>;
}

/** EIP-712 signature checks. */
export interface TypedSignatures {
  /**
   * Whether `signature` is `address`'s over the typed data: an EOA's by recovery, a smart
   * account's through the chain (ERC-1271, or ERC-6492 before deployment). Throws when the
   * chain cannot be asked (a fault, not a verdict).
   */
  verify(input: {
    address: `0x${string}`;
    domain: Record<string, unknown>;
    types: Record<string, readonly { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
    signature: `0x${string}`;
  }): Promise<boolean>;
}

/** One agent as the ERC-8004 Identity Registry records it. */
export interface AgentRegistration {
  /** Decimal. */
  agentId: string;
  /** EIP-55. */
  owner: string;
  /** EIP-55; undefined when the registry returns the zero address. */
  agentWallet: string | undefined;
  tokenURI: string;
  /** The registration file's fields when it could be read (data: URIs decoded; https fetched with a 2 s timeout and 64 KiB cap); undefined otherwise. */
  registration: Record<string, unknown> | undefined;
}

export type RegistryLookup =
  | { kind: 'found'; agent: AgentRegistration }
  /** The registry says the token does not exist (ownerOf reverts). */
  | { kind: 'not_found' }
  /** No RPC answered, or the address holds no registry. */
  | { kind: 'unavailable'; error: string };

export interface IdentityRegistry {
  /** Where the registry is (EIP-55), for the answer; undefined when none is configured. */
  readonly address: string | undefined;
  lookup(agentId: bigint): Promise<RegistryLookup>;
}

/** Everything the access routes use. */
export interface AccessPorts {
  /** The payments domain's ports: settlement, the ledger, packs, licenses, the config. */
  payments: PaymentsPorts;
  catalog: Catalog;
  ledger: Ledger;
  nonces: NonceStore;
  mandates: MandateStore;
  subscriptions: SubscriptionStore;
  meters: MeterStore;
  signatures: TypedSignatures;
  identity: IdentityRegistry;
  now: () => Date;
}
