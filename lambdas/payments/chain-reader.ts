import type { ReceiptView } from './verify-transfer';

export type ChainRead =
  | { kind: 'found'; receipt: ReceiptView; head: bigint; provider: string }
  /** Every provider that answered said it has no receipt for this hash (yet). */
  | { kind: 'not_found'; answered: number }
  /** No provider answered usefully: a fault on our side, not the buyer's. */
  | { kind: 'unavailable'; errors: string[] };

/** The chain as the payments domain needs it. */
export interface ChainReader {
  /** Looks a transaction up on the providers in order, within a bounded time. */
  readTransfer(txHash: `0x${string}`): Promise<ChainRead>;
}
