/** A secret as Secrets Manager keeps it, for the rotation tests: versions with values and staging labels. */
import type { SecretVersions } from '../../lambdas/platform/secret-rotation';

export function fakeSecretVersions(first: string, rotationEnabled = true) {
  const values = new Map<string, string>([['v1', first]]);
  const stages = new Map<string, string[]>([['v1', ['AWSCURRENT']]]);
  const secret: SecretVersions = {
    async describe() {
      return { rotationEnabled, versions: Object.fromEntries(stages) };
    },
    async value(of) {
      if ('versionId' in of) return values.get(of.versionId);
      const id = [...stages].find(([, s]) => s.includes(of.stage))?.[0];
      return id === undefined ? undefined : values.get(id);
    },
    async putPending(versionId, value) {
      values.set(versionId, value);
    },
    async makeCurrent(versionId, fromVersionId) {
      for (const [id, s] of stages)
        stages.set(
          id,
          s.filter((x) => x !== 'AWSPREVIOUS' && x !== 'AWSPENDING'),
        );
      stages.set(fromVersionId, ['AWSPREVIOUS']);
      stages.set(versionId, ['AWSCURRENT']);
    },
  };
  /** What Secrets Manager does when a rotation starts: a new version id labelled AWSPENDING. */
  const start = (token: string) => stages.set(token, ['AWSPENDING']);
  return { secret, start, stages };
}
