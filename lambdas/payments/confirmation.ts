/**
 * One attempt of the confirmation loop, as the state machine's task (confirm-handler.ts) and the
 * local loop (adapters/local-confirmations.ts) run it: the re-verification and claim
 * (core/confirmation-task.ts), then, for a transfer the relayer sent, the end of the x402
 * settlement that sent it (settlement-end.ts): a sale the loop delivers, or a relayed transfer it
 * finds reverted, leaves nothing in flight.
 */
import { confirmationAttempt, type TaskStatus } from './core/confirmation-task';
import { endSettlement, escrowCall } from '../facilitator';
import type { ConfirmationJob, PaymentsPorts } from './ports';

export async function confirmationTask(job: ConfirmationJob, ports: PaymentsPorts): Promise<{ status: TaskStatus; message: string }> {
  // An escrowed sale's capture the request could not see mined (x402 auth-capture): resumed through
  // the same steps (its stored transaction sent again, or signed anew if its nonce went elsewhere),
  // until it is mined; never a second capture, which the stage and the escrow both refuse.
  if (job.kind === 'escrow') return escrowAttempt(job, ports, 'capture');
  if (job.kind === 'escrow_expiry') return expiryAttempt(job, ports);
  const result = await confirmationAttempt(job, ports);
  // Only an attempt that decided (claimed, or refused for good: a revert) ends the settlement.
  if (result.status === 'pending' || job.kind === 'finality' || !job.relayed || job.settlement === undefined) return result;
  const end = await endSettlement(job.settlement, job.txHash, ports);
  // Claimed, but the settlement still in flight: tried again (the claim replays to the same buyer).
  if (end === 'receipt_missing' && result.status === 'unlocked')
    return { status: 'pending', message: `${result.message}; the relayer's receipt could not be read to end its settlement` };
  return result;
}

/**
 * An escrowed payment no request delivered (x402 auth-capture: its authorize not mined while the
 * request waited, and its client never came back), ended at `job.at` (escrowExpiryAt of its
 * capture deadline), when every request refuses to deliver it and none that began to is still
 * running: a sale claimed for it is captured (its buyer has the pack), and a payment that bought
 * nothing is voided, so the escrow gives the payer everything back without the payer's own
 * reclaim. One captured, voided or refunded already, or no longer in the escrow, is left as it is.
 */
async function expiryAttempt(job: ConfirmationJob, ports: PaymentsPorts): Promise<{ status: TaskStatus; message: string }> {
  if (!ports.x402 || job.settlement === undefined || job.at === undefined)
    return { status: 'failed', message: 'no escrowed payment to end' };
  if (ports.now().getTime() < Date.parse(job.at)) return { status: 'pending', message: `still deliverable until ${job.at}` };
  const sold = await ports.ledger.get(job.network, job.txHash.toLowerCase());
  return escrowAttempt(job, ports, sold ? 'capture' : 'void');
}

/** What the loop says of a call's end, per call: its past tense once mined. */
const DONE: Record<'capture' | 'void', (tx: string) => string> = {
  capture: (tx) => `captured in ${tx}`,
  void: (tx) => `voided in ${tx}: the escrow returned the payment to its payer`,
};

/**
 * One attempt of the operator's call on an escrowed payment, as the loop's status: mined (a
 * capture named on the sale's row), not mined yet (tried again), or ended otherwise. A reverted
 * call is not tried again: each attempt would cost the operator's gas (the watch reports an
 * uncaptured sale).
 */
async function escrowAttempt(
  job: ConfirmationJob,
  ports: PaymentsPorts,
  action: 'capture' | 'void',
): Promise<{ status: TaskStatus; message: string }> {
  if (!ports.x402 || job.settlement === undefined) return { status: 'failed', message: `no escrow settlement to ${action}` };
  const out = await escrowCall(job.settlement, action, ports.x402, {
    waitMs: CAPTURE_WAIT_MS,
    now: ports.now,
    ethUsdFeed: ports.config.ethUsdFeed,
  });
  switch (out.kind) {
    case 'done':
      if (action === 'capture' && out.tx) await ports.ledger.recordCapture(job.network, job.txHash.toLowerCase(), out.tx);
      return { status: 'unlocked', message: DONE[action](out.tx ?? 'an earlier transaction') };
    case 'pending':
      return { status: 'pending', message: `the ${action} ${out.tx} is not mined yet` };
    case 'refused':
      return { status: 'failed', message: `the payment is ${out.stage}; nothing to ${action}` };
    case 'reverted':
      return { status: 'failed', message: `the ${action} ${out.tx} reverted` };
    case 'would_revert':
      // For a void: its payer reclaimed it already, or the escrow holds nothing of it.
      return { status: 'failed', message: `the escrow refuses the ${action}: ${out.message}` };
    case 'not_escrowed':
      return { status: 'failed', message: 'no escrowed payment under this settlement' };
  }
}

/** How long one attempt of the loop waits for the capture's receipt. */
const CAPTURE_WAIT_MS = 4_000;
