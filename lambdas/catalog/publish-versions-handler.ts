/**
 * Lambda entry CloudFormation runs at a deploy whose versions changed (a custom resource whose
 * service token is this function; lib/constructs/versions-bucket.ts): it copies the versions its
 * bundle carries into the write-once versions bucket (publish-versions.ts) and answers
 * CloudFormation. A delete of the resource (the stack's removal, a replaced resource) deletes
 * nothing: the bucket and every version in it outlive the stack.
 */
import type { Context } from 'aws-lambda';
import { logger } from '../platform/logger';
import {
  answerCustomResource,
  isCustomResourceEvent,
  NOT_A_CUSTOM_RESOURCE_REQUEST,
  type CustomResourceEvent,
  type CustomResourceOutcome,
} from '../platform/custom-resource';
import { publishVersions } from './publish-versions';

/** The resource's physical id: one publisher per stack, never replaced. */
const PHYSICAL_ID = 'pack-versions-publisher';

export async function handler(
  event: CustomResourceEvent,
  context?: Context,
): Promise<{ status: 'SUCCESS' | 'FAILED'; created?: number; present?: number } | { error: string }> {
  if (context) logger.addContext(context);
  if (!isCustomResourceEvent(event)) {
    logger.error('not a custom resource request', { requestType: String((event as { RequestType?: unknown } | null)?.RequestType) });
    return { error: NOT_A_CUSTOM_RESOURCE_REQUEST };
  }
  const physicalResourceId = event.PhysicalResourceId ?? PHYSICAL_ID;
  let outcome: CustomResourceOutcome;
  let counts: { created: number; present: number } | undefined;
  try {
    if (event.RequestType === 'Delete') {
      logger.info('versions publisher removed: the bucket and its versions are kept');
      outcome = { ok: true, physicalResourceId };
    } else {
      // The S3 client loads from its own chunk, as the routes' adapters do.
      const { versionsPublisherPortsFromEnv } = await import('./wiring');
      const result = await publishVersions(versionsPublisherPortsFromEnv());
      counts = { created: result.created.length, present: result.present };
      logger.info('versions published', { ...counts, keys: result.created });
      outcome = { ok: true, physicalResourceId, data: counts };
    }
  } catch (e) {
    logger.error('versions publish failed', { error: (e as Error).message });
    outcome = { ok: false, physicalResourceId, reason: `Publishing the pack versions failed: ${(e as Error).message}` };
  }
  await answerCustomResource(event, outcome);
  return { status: outcome.ok ? 'SUCCESS' : 'FAILED', ...counts };
}
