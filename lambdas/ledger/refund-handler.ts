/**
 * The entry of `npm run refund` (local/refund.ts): records an operator's USDC refund against a
 * proof-ledger sale (refunds.ts). Not a deployed function: the operator runs it with their own
 * credentials against the deployment's tables and chain settings (docs/OPERATIONS.md), so no
 * function of the stack needs to write refunds or change a sale's row after its claim.
 */
import type { RefundOutcome } from './refunds';

export async function handler(event: { saleTx: string; refundTx: string }): Promise<RefundOutcome> {
  // The adapters load from their own chunk, as the scheduled tasks' ports do.
  const { refundPortsFromEnv } = await import('./wiring');
  const { recordRefund } = await import('./refunds');
  return recordRefund(refundPortsFromEnv(), event.saleTx, event.refundTx);
}
