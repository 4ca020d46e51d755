import { createHash } from 'node:crypto';
import type { ConfirmationJob } from '../ports';

/** Deterministic execution name (Step Functions allows 80 characters): one loop per job and kind. */
export function executionName(job: ConfirmationJob): string {
  const digest = createHash('sha256').update(`${job.network}#${job.txHash.toLowerCase()}#${job.skill}`).digest('hex').slice(0, 64);
  // An escrowed payment's expiry runs beside the confirmation of its authorize (the same transaction).
  const prefix = job.kind === 'finality' ? 'finality' : job.kind === 'escrow_expiry' ? 'expiry' : 'confirm';
  return `${prefix}-${digest}`;
}
