/**
 * Where the license signing keys come from: Secrets Manager in AWS (the current version, and the
 * previous one a rotation left, which still verifies), a file created once locally. Also the
 * secret's versions for the rotation steps (core/key-rotation.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { LicenseKeys, SecretVersions } from '../ports';

let client: SecretsManagerClient | undefined;
const sm = (): SecretsManagerClient => (client ??= new SecretsManagerClient({}));

/** A version's value, or undefined when the secret has no such version or label. */
async function valueOf(arn: string, of: { versionId: string } | { stage: string }): Promise<string | undefined> {
  try {
    const out = await sm().send(
      new GetSecretValueCommand({ SecretId: arn, ...('versionId' in of ? { VersionId: of.versionId } : { VersionStage: of.stage }) }),
    );
    return out.SecretString;
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return undefined;
    throw e;
  }
}

/** The keys stored in Secrets Manager (the stack generates the first and retains the secret). */
export function secretsManagerLicenseSecret(arn: string): () => Promise<LicenseKeys> {
  return async () => {
    const [current, previous] = await Promise.all([valueOf(arn, { stage: 'AWSCURRENT' }), valueOf(arn, { stage: 'AWSPREVIOUS' })]);
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

/** The secret's versions through the Secrets Manager API, for the rotation steps. */
export function secretsManagerVersions(arn: string): SecretVersions {
  return {
    async describe() {
      const out = await sm().send(new DescribeSecretCommand({ SecretId: arn }));
      return { rotationEnabled: out.RotationEnabled === true, versions: out.VersionIdsToStages ?? {} };
    },
    value: (of) => valueOf(arn, of),
    async putPending(versionId, value) {
      await sm().send(
        new PutSecretValueCommand({ SecretId: arn, ClientRequestToken: versionId, SecretString: value, VersionStages: ['AWSPENDING'] }),
      );
    },
    async makeCurrent(versionId, fromVersionId) {
      await sm().send(
        new UpdateSecretVersionStageCommand({
          SecretId: arn,
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: versionId,
          RemoveFromVersionId: fromVersionId,
        }),
      );
    },
  };
}
