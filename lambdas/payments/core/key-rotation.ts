/**
 * One step of Secrets Manager's rotation of the license signing key (the four-step protocol is
 * platform/secret-rotation.ts): `createSecret` stores a new random key as AWSPENDING; `setSecret`
 * has nothing to do (no other system holds the key); `testSecret` checks the pending key is long
 * enough for HS256; `finishSecret` makes it AWSCURRENT, which leaves the old key as AWSPREVIOUS,
 * and tokens it signed keep verifying.
 */
import { RotationRefused, rotateSecretStep, type RotationStep } from '../../platform/secret-rotation';
import type { SecretVersions } from '../ports';

export { RotationRefused, type RotationStep } from '../../platform/secret-rotation';

/** A key shorter than this is refused (HS256 wants at least 256 bits). */
export const MIN_KEY_BYTES = 32;

export function rotateStep(
  step: RotationStep,
  token: string,
  secret: SecretVersions,
  newKey: () => string,
): Promise<'done' | 'nothing-to-do'> {
  return rotateSecretStep(step, token, secret, {
    newValue: newKey,
    set: async () => 'nothing-to-do',
    test: (pending) => {
      if (Buffer.byteLength(pending, 'utf8') < MIN_KEY_BYTES)
        throw new RotationRefused(`the pending key is shorter than ${MIN_KEY_BYTES} bytes`);
    },
  });
}
