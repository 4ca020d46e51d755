/** Where the license signing key comes from: Secrets Manager in AWS, a file created once locally. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** The key stored in Secrets Manager (the stack generates it and retains it). */
export function secretsManagerLicenseSecret(arn: string): () => Promise<Uint8Array> {
  return async () => {
    const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
    if (!out.SecretString) throw new Error('license secret is empty');
    return Buffer.from(out.SecretString, 'utf8');
  };
}

/** A key kept in `file` (created on first use, mode 0600) or, without a file, one for this process only. */
export function fileLicenseSecret(file: string | undefined, warn: (message: string) => void): () => Promise<Uint8Array> {
  return async () => {
    if (!file) {
      warn('no license secret configured: license tokens are valid for this process only');
      return randomBytes(48);
    }
    try {
      return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    } catch {
      const secret = randomBytes(48);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
      return secret;
    }
  };
}
