/**
 * One step of Secrets Manager's rotation of the license signing key (AWS's four-step protocol,
 * each step idempotent because Secrets Manager may call it again): `createSecret` stores a new
 * random key as AWSPENDING under the rotation's token; `setSecret` has nothing to do (no other
 * system holds the key); `testSecret` checks the pending key is usable; `finishSecret` makes it
 * AWSCURRENT, which leaves the old key as AWSPREVIOUS, and tokens it signed keep verifying.
 */
import type { SecretVersions } from '../ports';

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

/** A key shorter than this is refused (HS256 wants at least 256 bits). */
export const MIN_KEY_BYTES = 32;

export class RotationRefused extends Error {}

export async function rotateStep(
  step: RotationStep,
  token: string,
  secret: SecretVersions,
  newKey: () => string,
): Promise<'done' | 'nothing-to-do'> {
  const { rotationEnabled, versions } = await secret.describe();
  if (!rotationEnabled) throw new RotationRefused('rotation is not enabled on this secret');
  const stages = versions[token];
  if (!stages) throw new RotationRefused(`version ${token} is not a version of this secret`);
  if (stages.includes('AWSCURRENT')) return 'nothing-to-do';
  if (!stages.includes('AWSPENDING')) throw new RotationRefused(`version ${token} is not pending rotation`);

  switch (step) {
    case 'createSecret':
      if ((await secret.value({ versionId: token })) !== undefined) return 'nothing-to-do';
      await secret.putPending(token, newKey());
      return 'done';
    case 'setSecret':
      return 'nothing-to-do';
    case 'testSecret': {
      const pending = await secret.value({ versionId: token });
      if (pending === undefined || Buffer.byteLength(pending, 'utf8') < MIN_KEY_BYTES)
        throw new RotationRefused(`the pending key is missing or shorter than ${MIN_KEY_BYTES} bytes`);
      return 'done';
    }
    case 'finishSecret': {
      const current = Object.entries(versions).find(([, s]) => s.includes('AWSCURRENT'))?.[0];
      if (!current) throw new RotationRefused('the secret has no current version');
      await secret.makeCurrent(token, current);
      return 'done';
    }
  }
}
