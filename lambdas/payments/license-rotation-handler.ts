/**
 * Lambda entry Secrets Manager runs to rotate the license signing key (every
 * LICENSE_KEY_ROTATION_DAYS; docs/OPERATIONS.md): one step per invocation, core/key-rotation.ts.
 * A refused step throws, so Secrets Manager records the rotation as failed and the current key stays.
 */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { isRotationEvent, NOT_A_ROTATION_STEP, type RotationEvent } from '../platform/secret-rotation';
import { rotateStep } from './core/key-rotation';

export type { RotationEvent } from '../platform/secret-rotation';

/**
 * Runs one step. An event that is not a rotation step (Secrets Manager never sends one) is answered
 * with an error and touches nothing; a step that fails throws, so the rotation fails on the secret.
 */
export async function handler(event: RotationEvent, context?: Context): Promise<{ step: string; result: string } | { error: string }> {
  if (context) logger.addContext(context);
  if (!isRotationEvent(event)) {
    logger.error('not a rotation step', { step: String((event as { Step?: unknown } | null)?.Step) });
    return { error: NOT_A_ROTATION_STEP };
  }
  const step = event.Step;
  // The SDK client loads from its own chunk, as the routes' adapters do.
  const { rotationPortsFromEnv } = await import('./wiring');
  const { secret, newKey } = rotationPortsFromEnv(event.SecretId);
  const result = await rotateStep(step, event.ClientRequestToken, secret, newKey);
  // Never the key: only the step and what it did.
  logger.info('license key rotation', { step, version: event.ClientRequestToken, result });
  return { step, result };
}
