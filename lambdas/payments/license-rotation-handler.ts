/**
 * Lambda entry Secrets Manager runs to rotate the license signing key (every
 * LICENSE_KEY_ROTATION_DAYS; docs/OPERATIONS.md): one step per invocation, core/key-rotation.ts.
 * A refused step throws, so Secrets Manager records the rotation as failed and the current key stays.
 */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { rotateStep, type RotationStep } from './core/key-rotation';

export interface RotationEvent {
  Step: RotationStep;
  SecretId: string;
  ClientRequestToken: string;
}

const STEPS: readonly string[] = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'];

/**
 * Runs one step. An event that is not a rotation step (Secrets Manager never sends one) is answered
 * with an error and touches nothing; a step that fails throws, so the rotation fails on the secret.
 */
export async function handler(event: RotationEvent, context?: Context): Promise<{ step: string; result: string } | { error: string }> {
  if (context) logger.addContext(context);
  const step = (event as { Step?: unknown } | null)?.Step;
  if (
    typeof step !== 'string' ||
    !STEPS.includes(step) ||
    typeof event.SecretId !== 'string' ||
    typeof event.ClientRequestToken !== 'string'
  ) {
    logger.error('not a rotation step', { step: String(step) });
    return { error: `not a Secrets Manager rotation step: expected Step (one of ${STEPS.join(', ')}), SecretId and ClientRequestToken` };
  }
  // The SDK client loads from its own chunk, as the routes' adapters do.
  const { rotationPortsFromEnv } = await import('./wiring');
  const { secret, newKey } = rotationPortsFromEnv(event.SecretId);
  const result = await rotateStep(step as RotationStep, event.ClientRequestToken, secret, newKey);
  // Never the key: only the step and what it did.
  logger.info('license key rotation', { step, version: event.ClientRequestToken, result });
  return { step, result };
}
