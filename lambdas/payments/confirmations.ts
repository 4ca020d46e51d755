/** Re-verification of a transfer that arrived before it had enough confirmations. */
import { createHash } from 'node:crypto';

export interface ConfirmationJob {
  network: string;
  txHash: string;
  skill: string;
}

export interface ConfirmationScheduler {
  /** Starts re-verification once per (network, tx, skill); a second call while it runs changes nothing. */
  schedule(job: ConfirmationJob): Promise<'started' | 'already_running'>;
}

/** Deterministic execution name (Step Functions allows 80 characters): one execution per job. */
export function executionName(job: ConfirmationJob): string {
  return `confirm-${createHash('sha256').update(`${job.network}#${job.txHash.toLowerCase()}#${job.skill}`).digest('hex').slice(0, 64)}`;
}
