/**
 * Lambda entry Secrets Manager runs to rotate the origin secret CloudFront sends the API (every
 * ORIGIN_SECRET_ROTATION_DAYS; docs/OPERATIONS.md): one step per invocation, the platform's
 * origin-secret-rotation.ts. The secret belongs to the edge, which no domain owns; its rotation is
 * a function of discovery, the domain that answers whatever the edge sends that no route claims.
 * A refused step throws, so Secrets Manager records the rotation as failed and the current value
 * stays (the functions accept it, and the pending one, throughout).
 */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import { isRotationEvent, NOT_A_ROTATION_STEP, rotateSecretStep, type RotationEvent } from '../platform/secret-rotation';

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
  // The SDK clients load from their own chunk, as the routes' adapters do.
  const { originRotationPortsFromEnv } = await import('./wiring');
  const { secret, target } = await originRotationPortsFromEnv(event.SecretId);
  const result = await rotateSecretStep(event.Step, event.ClientRequestToken, secret, target);
  // Never the value: only the step and what it did.
  logger.info('origin secret rotation', { step: event.Step, version: event.ClientRequestToken, result });
  return { step: event.Step, result };
}
