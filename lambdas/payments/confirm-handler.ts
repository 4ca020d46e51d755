/** Lambda entry of the confirmation state machine's task: one re-verification attempt. */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { confirmationAttempt, type TaskStatus } from './core/confirmation-task';
import type { ConfirmationJob } from './ports';
import { paymentsPortsFromEnv } from './wiring';

let ports: ReturnType<typeof paymentsPortsFromEnv> | undefined;

export async function handler(job: ConfirmationJob, context: Context): Promise<{ status: TaskStatus; message: string }> {
  logger.addContext(context);
  ports ??= paymentsPortsFromEnv();
  const result = await confirmationAttempt(job, ports);
  logger.info('confirmation attempt', { ...job, ...result });
  return result;
}
