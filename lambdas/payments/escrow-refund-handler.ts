/**
 * The entry of `npm run refund -- <sale tx>` (local/refund.ts): the operator's refund of an escrowed
 * sale through the escrow, recorded in the books (escrow-refund.ts). Not a deployed function: the
 * operator runs it with their own credentials and the escrow operator's key (docs/OPERATIONS.md),
 * so no function of the stack sends a refund or changes a sale's row after its claim.
 */
import type { SaleRefundOutcome } from './escrow-refund';

export async function handler(event: { saleTx: string; amount?: string | undefined }): Promise<SaleRefundOutcome> {
  // The adapters load from their own chunk, as the scheduled tasks' ports do.
  const { escrowRefundPortsFromEnv } = await import('./wiring');
  const { refundEscrowedSale } = await import('./escrow-refund');
  return refundEscrowedSale(await escrowRefundPortsFromEnv(), event.saleTx, event.amount === undefined ? undefined : BigInt(event.amount));
}
