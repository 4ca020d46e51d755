import { escrowExpiryAt } from '../../contract/auth-capture';
import type { ConfirmationJob } from '../ports';

/**
 * The confirmation job that ends an escrowed payment (x402 auth-capture) if its client never comes
 * back for the pack: at escrowExpiryAt of its capture deadline, in whole seconds (Step Functions'
 * timestamp wait reads them); its attempt is `expiryAttempt` in confirmation.ts.
 */
export function escrowExpiryJob(
  network: string,
  txHash: string,
  skill: string,
  settlement: string,
  captureDeadline: number,
): ConfirmationJob {
  return {
    network,
    txHash,
    skill,
    relayed: true,
    kind: 'escrow_expiry',
    at: new Date(escrowExpiryAt(captureDeadline) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    settlement,
  };
}
