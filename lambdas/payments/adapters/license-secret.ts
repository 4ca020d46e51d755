/**
 * Where the license signing keys come from: Secrets Manager in AWS (the current version, and the
 * previous one a rotation left, which still verifies), a file created once locally. The rotation
 * steps (core/key-rotation.ts) reach the secret's versions through platform/adapters/secret-versions.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { secretValue } from '../../platform/adapters/secret-versions';
import type { LicenseKeys } from '../ports';

/** The keys stored in Secrets Manager (the stack generates the first and retains the secret). */
export function secretsManagerLicenseSecret(arn: string): () => Promise<LicenseKeys> {
  return async () => {
    const [current, previous] = await Promise.all([secretValue(arn, { stage: 'AWSCURRENT' }), secretValue(arn, { stage: 'AWSPREVIOUS' })]);
    if (!current) throw new Error('license secret is empty');
    return { current: Buffer.from(current, 'utf8'), ...(previous ? { previous: Buffer.from(previous, 'utf8') } : {}) };
  };
}

/** A key kept in `file` (created on first use, mode 0600) or, without a file, one for this process only. */
export function fileLicenseSecret(file: string | undefined, warn: (message: string) => void): () => Promise<LicenseKeys> {
  return async () => {
    if (!file) {
      warn('no license secret configured: license tokens are valid for this process only');
      return { current: randomBytes(48) };
    }
    try {
      return { current: Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url') };
    } catch {
      const secret = randomBytes(48);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
      return { current: secret };
    }
  };
}

/** A new signing key for a rotation: 48 random bytes, base64url (64 characters, used as UTF-8 like the first). */
export const newLicenseKey = (): string => randomBytes(48).toString('base64url');
