import { CONFIRMATION_RETRY_DELAYS_SECONDS } from '../../contract/confirmation-policy';
import { logger } from '../../platform/logger';
import { confirmationAttempt } from '../core/confirmation-task';
import { executionName } from '../core/execution-name';
import type { ConfirmationScheduler } from '../ports';
import type { SettlePorts } from '../core/settle';

/**
 * The local stand-in for the Step Functions state machine: the same task with the same
 * delays (2 s, 4 s, 8 s, 16 s), on timers in this process. aws-local-stepfunctions, which
 * could run the synthesized definition, needs Node 22; machines here run Node 20.
 */
export function localConfirmations(
  ports: () => SettlePorts,
  delays: readonly number[] = CONFIRMATION_RETRY_DELAYS_SECONDS,
): ConfirmationScheduler {
  const running = new Set<string>();
  return {
    async schedule(job) {
      const name = executionName(job);
      if (running.has(name)) return 'already_running';
      running.add(name);
      void (async () => {
        try {
          for (const delay of delays) {
            await new Promise((r) => setTimeout(r, delay * 1000).unref());
            const { status, message } = await confirmationAttempt(job, ports());
            if (status !== 'pending') {
              logger.info('confirmation loop finished', { name, status, message });
              return;
            }
          }
          logger.info('confirmation loop gave up', { name });
        } catch (e) {
          logger.error('confirmation loop failed', e as Error);
        } finally {
          running.delete(name);
        }
      })();
      return 'started';
    },
  };
}
