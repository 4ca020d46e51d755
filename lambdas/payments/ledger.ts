/** The proof ledger as the payments domain needs it. */

export interface LedgerRow {
  network: string;
  /** Lower-case transaction hash. */
  txHash: string;
  skill: string;
  /** Atomic units actually transferred (may exceed the price). */
  amount: string;
  /** Atomic price of the skill when it unlocked. */
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
}

/** Figures computed from every confirmed row; nothing else feeds a reported number. */
export interface LedgerSummary {
  confirmed: number;
  /** Sum of atomic amounts actually paid. */
  volumeAtomic: bigint;
  perSkill: Record<string, number>;
  newest: { txHash: string; recordedAt: string } | undefined;
}

export type ClaimResult = { claimed: true } | { claimed: false; existing: LedgerRow };

export interface Ledger {
  /**
   * Claims the transfer for one skill with a single conditional write: succeeds only if the
   * transfer was never claimed, or was dropped by a reorg and is re-claimed for the same skill.
   */
  claim(row: LedgerRow): Promise<ClaimResult>;
  get(network: string, txHash: string): Promise<LedgerRow | undefined>;
  /** Marks a claim whose transfer a reorg dropped; it leaves the public listings. */
  markReorged(network: string, txHash: string): Promise<void>;
  /** Confirmed unlocks, newest first. */
  recent(limit: number, skill?: string): Promise<LedgerRow[]>;
  /** Number of confirmed unlocks. */
  count(skill?: string): Promise<number>;
  /** Reads every confirmed row (amount, skill, time) and adds them up. */
  summary(): Promise<LedgerSummary>;
}
