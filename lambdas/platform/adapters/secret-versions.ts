/**
 * A Secrets Manager secret by version and staging label: a value, the versions a rotation steps
 * through (platform/secret-rotation.ts), and the values of the origin secret a function accepts.
 * One client per process, made on first use.
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { ACCEPTED_ORIGIN_SECRET_STAGES } from '../../contract/edge-identity';
import type { SecretVersions } from '../secret-rotation';
import { traced } from '../tracer';

let client: SecretsManagerClient | undefined;
const sm = (): SecretsManagerClient => (client ??= traced(new SecretsManagerClient({})));

/** A version's value, or undefined when the secret has no such version or label. */
export async function secretValue(arn: string, of: { versionId: string } | { stage: string }): Promise<string | undefined> {
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

/** The secret's versions through the Secrets Manager API, for the rotation steps. */
export function secretsManagerVersions(arn: string): SecretVersions {
  return {
    async describe() {
      const out = await sm().send(new DescribeSecretCommand({ SecretId: arn }));
      return { rotationEnabled: out.RotationEnabled === true, versions: out.VersionIdsToStages ?? {} };
    },
    value: (of) => secretValue(arn, of),
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

/**
 * Every value of the origin secret CloudFront may be sending: the current, pending and previous
 * versions, read in parallel (three GetSecretValue calls; a label with no version is skipped).
 */
export async function secretsManagerOriginSecrets(arn: string): Promise<string[]> {
  const values = await Promise.all(ACCEPTED_ORIGIN_SECRET_STAGES.map((stage) => secretValue(arn, { stage })));
  return values.filter((v): v is string => v !== undefined && v !== '');
}
