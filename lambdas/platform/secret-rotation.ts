/**
 * Secrets Manager's four-step rotation protocol, once for every secret the stack rotates (the
 * license signing key, payments/core/key-rotation.ts; the origin secret CloudFront sends the API,
 * origin-secret-rotation.ts). Each step is idempotent, because Secrets Manager may call it again:
 * `createSecret` stores a new value as AWSPENDING under the rotation's token; `setSecret` hands it
 * to whatever else must hold it; `testSecret` checks the pending value works there;
 * `finishSecret` makes it AWSCURRENT, which leaves the old value as AWSPREVIOUS. A refused step
 * throws, so Secrets Manager records the rotation as failed and the current value stays.
 */

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

export const ROTATION_STEPS: readonly RotationStep[] = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'];

/** What Secrets Manager passes the rotation function, once per step. */
export interface RotationEvent {
  Step: RotationStep;
  SecretId: string;
  ClientRequestToken: string;
}

/** Whether an event is a rotation step (Secrets Manager never sends anything else; a probe might). */
export function isRotationEvent(event: unknown): event is RotationEvent {
  const e = event as Partial<Record<keyof RotationEvent, unknown>> | null;
  return (
    typeof e?.Step === 'string' &&
    (ROTATION_STEPS as readonly string[]).includes(e.Step) &&
    typeof e.SecretId === 'string' &&
    typeof e.ClientRequestToken === 'string'
  );
}

/** The answer to an event that is not a rotation step: nothing was touched. */
export const NOT_A_ROTATION_STEP = `not a Secrets Manager rotation step: expected Step (one of ${ROTATION_STEPS.join(', ')}), SecretId and ClientRequestToken`;

/**
 * A Secrets Manager secret's versions, as its rotation steps need them (AWS's four-step rotation
 * protocol: createSecret, setSecret, testSecret, finishSecret).
 */
export interface SecretVersions {
  /** Whether rotation is on, and each version id with its staging labels (AWSCURRENT, AWSPENDING, AWSPREVIOUS). */
  describe(): Promise<{ rotationEnabled: boolean; versions: Record<string, readonly string[]> }>;
  /** The value of a version by id, or of the version with a staging label; undefined if there is none. */
  value(of: { versionId: string } | { stage: string }): Promise<string | undefined>;
  /** Stores `value` as version `versionId`, labelled AWSPENDING (idempotent for the same id). */
  putPending(versionId: string, value: string): Promise<void>;
  /** Moves AWSCURRENT to `versionId` from `fromVersionId`; Secrets Manager labels the old one AWSPREVIOUS. */
  makeCurrent(versionId: string, fromVersionId: string): Promise<void>;
}

/** What a rotation does with the new value besides storing it: make one, hand it out, check it. */
export interface RotationTarget {
  /** A new value (random). */
  newValue(): string;
  /** Gives the pending value to whatever must hold it; 'nothing-to-do' when it already does or nothing must. */
  set(pending: string): Promise<'done' | 'nothing-to-do'>;
  /** Throws {@link RotationRefused} unless the pending value is ready to become current. */
  test(pending: string): Promise<void> | void;
}

export class RotationRefused extends Error {}

export async function rotateSecretStep(
  step: RotationStep,
  token: string,
  secret: SecretVersions,
  target: RotationTarget,
): Promise<'done' | 'nothing-to-do'> {
  const { rotationEnabled, versions } = await secret.describe();
  if (!rotationEnabled) throw new RotationRefused('rotation is not enabled on this secret');
  const stages = versions[token];
  if (!stages) throw new RotationRefused(`version ${token} is not a version of this secret`);
  if (stages.includes('AWSCURRENT')) return 'nothing-to-do';
  if (!stages.includes('AWSPENDING')) throw new RotationRefused(`version ${token} is not pending rotation`);

  const pending = async (): Promise<string> => {
    const value = await secret.value({ versionId: token });
    if (value === undefined) throw new RotationRefused(`version ${token} has no value yet (createSecret did not run)`);
    return value;
  };
  switch (step) {
    case 'createSecret':
      if ((await secret.value({ versionId: token })) !== undefined) return 'nothing-to-do';
      await secret.putPending(token, target.newValue());
      return 'done';
    case 'setSecret':
      return target.set(await pending());
    case 'testSecret':
      await target.test(await pending());
      return 'done';
    case 'finishSecret': {
      const current = Object.entries(versions).find(([, s]) => s.includes('AWSCURRENT'))?.[0];
      if (!current) throw new RotationRefused('the secret has no current version');
      await secret.makeCurrent(token, current);
      return 'done';
    }
  }
}
