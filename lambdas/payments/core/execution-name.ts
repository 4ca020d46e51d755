import { createHash } from 'node:crypto';
import type { ConfirmationJob } from '../ports';

/** Deterministic execution name (Step Functions allows 80 characters): one confirmation loop per job. */
export function executionName(job: ConfirmationJob): string {
  return `confirm-${createHash('sha256').update(`${job.network}#${job.txHash.toLowerCase()}#${job.skill}`).digest('hex').slice(0, 64)}`;
}
