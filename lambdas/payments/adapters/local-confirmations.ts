import {
  CONFIRMATION_RETRY_DELAYS_SECONDS,
  ESCROW_EXPIRY_RETRY_DELAYS_SECONDS,
  FINALITY_RETRY_DELAYS_SECONDS,
} from '../../contract/confirmation-policy';
import { logger } from '../../platform/logger';
import type { TaskStatus } from '../core/confirmation-task';
import { executionName } from '../core/execution-name';
import type { ConfirmationJob, ConfirmationScheduler } from '../ports';

const sleep = (seconds: number): Promise<void> => new Promise((r) => setTimeout(r, seconds * 1000).unref());

/**
 * The local stand-in for the Step Functions state machine, on timers in this process, with the
 * same steps: a `confirm` job tries after 2, 4, 8 and 16 s and, once it claims, goes on to the
 * finality check; a `finality` job waits the reorg window, then re-verifies (retrying while the
 * providers cannot decide); an `escrow_expiry` job waits until its `at`, then ends the escrowed
 * payment (retrying while its void or capture is not mined). aws-local-stepfunctions, which could
 * run the synthesized definition, needs Node 22; machines here run Node 20.
 */
export function localConfirmations(
  /** One attempt, as the state machine's task runs it (payments' confirmation.ts). */
  attempt: (job: ConfirmationJob) => Promise<{ status: TaskStatus; message: string }>,
  reorgWindowSeconds: () => number,
  delays: readonly number[] = CONFIRMATION_RETRY_DELAYS_SECONDS,
): ConfirmationScheduler {
  const running = new Set<string>();

  const finality = async (job: ConfirmationJob): Promise<string> => {
    const check = { ...job, kind: 'finality' as const };
    await sleep(reorgWindowSeconds());
    for (const retry of [...FINALITY_RETRY_DELAYS_SECONDS, undefined]) {
      const { status, message } = await attempt(check);
      if (status !== 'pending') return `${status}: ${message}`;
      if (retry === undefined) break;
      await sleep(retry);
    }
    return 'finality undecided';
  };

  const confirm = async (job: ConfirmationJob): Promise<string> => {
    for (const delay of delays) {
      await sleep(delay);
      const { status, message } = await attempt(job);
      if (status === 'unlocked') return finality(job);
      if (status !== 'pending') return `${status}: ${message}`;
    }
    return 'not confirmed in time';
  };

  const expiry = async (job: ConfirmationJob): Promise<string> => {
    await sleep(Math.max(0, (Date.parse(job.at ?? '') - Date.now()) / 1000) || 0);
    for (const delay of ESCROW_EXPIRY_RETRY_DELAYS_SECONDS) {
      await sleep(delay);
      const { status, message } = await attempt(job);
      if (status !== 'pending') return `${status}: ${message}`;
    }
    return 'escrowed payment not ended';
  };

  return {
    async schedule(job) {
      const name = executionName(job);
      if (running.has(name)) return 'already_running';
      running.add(name);
      void (job.kind === 'finality' ? finality(job) : job.kind === 'escrow_expiry' ? expiry(job) : confirm(job))
        .then((result) => logger.info('confirmation loop finished', { name, result }))
        .catch((e: unknown) => logger.error('confirmation loop failed', e as Error))
        .finally(() => running.delete(name));
      return 'started';
    },
  };
}
