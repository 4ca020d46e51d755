/** Lambda entry of the confirmation state machine's task: one re-verification attempt. */
import type { Context } from 'aws-lambda';
import { logger } from '#shared/logger';
import { confirmationAttempt, type TaskStatus } from './confirmation-task';
import type { ConfirmationJob } from './confirmations';
import { paymentsPortsFromEnv, type PaymentsPorts } from './ports';

let ports: Promise<PaymentsPorts> | undefined;

export async function handler(job: ConfirmationJob, context: Context): Promise<{ status: TaskStatus; message: string }> {
  logger.addContext(context);
  ports ??= paymentsPortsFromEnv().catch((e: unknown) => {
    ports = undefined;
    throw e;
  });
  const result = await confirmationAttempt(job, await ports);
  logger.info('confirmation attempt', { ...job, ...result });
  return result;
}
