/**
 * One attempt of the confirmation loop, as the state machine's task (confirm-handler.ts) and the
 * local loop (adapters/local-confirmations.ts) run it: the re-verification and claim
 * (core/confirmation-task.ts), then, for a transfer the relayer sent, the end of the x402
 * settlement that sent it (settlement-end.ts): a sale the loop delivers, or a relayed transfer it
 * finds reverted, leaves nothing in flight.
 */
import { confirmationAttempt, type TaskStatus } from './core/confirmation-task';
import { endSettlement } from '../facilitator';
import type { ConfirmationJob, PaymentsPorts } from './ports';

export async function confirmationTask(job: ConfirmationJob, ports: PaymentsPorts): Promise<{ status: TaskStatus; message: string }> {
  const result = await confirmationAttempt(job, ports);
  // Only an attempt that decided (claimed, or refused for good: a revert) ends the settlement.
  if (result.status === 'pending' || job.kind === 'finality' || !job.relayed || job.settlement === undefined) return result;
  const end = await endSettlement(job.settlement, job.txHash, ports);
  // Claimed, but the settlement still in flight: tried again (the claim replays to the same buyer).
  if (end === 'receipt_missing' && result.status === 'unlocked')
    return { status: 'pending', message: `${result.message}; the relayer's receipt could not be read to end its settlement` };
  return result;
}
