import { NETWORK, TX_HASH } from '../../contract/chain';
import type { ConfirmationJob } from '../ports';
import { settle, type SettlePorts } from './settle';

export type TaskStatus = 'unlocked' | 'pending' | 'failed';

/**
 * One re-verification attempt of the confirmation loop (a Step Functions task in AWS, an
 * in-process timer locally): settles the job without scheduling another loop.
 */
export async function confirmationAttempt(job: ConfirmationJob, ports: SettlePorts): Promise<{ status: TaskStatus; message: string }> {
  const skill = ports.catalog.get(job.skill);
  if (!skill || job.network !== NETWORK || !TX_HASH.test(job.txHash)) return { status: 'failed', message: 'invalid job' };
  const outcome = await settle({ txHash: job.txHash as `0x${string}`, skill }, ports, { schedule: false });
  switch (outcome.kind) {
    case 'unlocked':
      return { status: 'unlocked', message: `recorded for ${outcome.row.skill}` };
    case 'pending':
    case 'unavailable':
      return { status: 'pending', message: outcome.message };
    default:
      return { status: 'failed', message: outcome.message };
  }
}
