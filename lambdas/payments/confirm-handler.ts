/** Lambda entry of the confirmation state machine's task: one re-verification attempt. */
import type { Context } from 'aws-lambda';
import { logger } from '#shared/logger';
import { confirmationAttempt, type TaskStatus } from './confirmation-task';
import type { ConfirmationJob } from './confirmations';
import { cacheUntilFailure } from '#shared/memo';
import { paymentsPortsFromEnv } from './ports';

const ports = cacheUntilFailure(() => paymentsPortsFromEnv());

export async function handler(job: ConfirmationJob, context: Context): Promise<{ status: TaskStatus; message: string }> {
  logger.addContext(context);
  const result = await confirmationAttempt(job, await ports());
  logger.info('confirmation attempt', { ...job, ...result });
  return result;
}
