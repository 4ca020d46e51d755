/** Lambda entry of the confirmation state machine's task: one re-verification attempt. */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { cacheUntilFailure } from '../platform/memo';
import type { TaskStatus } from './core/confirmation-task';
import { confirmationTask } from './confirmation';
import type { ConfirmationJob } from './ports';

// The adapters (AWS SDK, viem) load from their own chunk on the first job, as the routes' ports do.
const ports = cacheUntilFailure(() => import('./wiring').then((m) => m.paymentsPortsFromEnv()));

export async function handler(job: ConfirmationJob, context: Context): Promise<{ status: TaskStatus; message: string }> {
  logger.addContext(context);
  const result = await confirmationTask(job, await ports());
  logger.info('confirmation attempt', { ...job, ...result });
  return result;
}
