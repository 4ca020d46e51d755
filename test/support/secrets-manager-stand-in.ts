/**
 * A loopback stand-in for Secrets Manager's GetSecretValue, for tests only (it lives under test/
 * and nowhere else): the synthesized bundles reach it through the SDK's own endpoint setting
 * (`AWS_ENDPOINT_URL_SECRETS_MANAGER`), so what they send is the SDK's real request (JSON 1.1,
 * `X-Amz-Target`), and it answers as Secrets Manager does: the version with the asked staging
 * label, or `ResourceNotFoundException` when no version has it. It counts the calls per request
 * path, so each function can be given its own path (`<base>/<name>`) and counted alone. `others`:
 * the current value of any other secret, by the end of its id (the RPC secret's, say).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Stage = 'AWSCURRENT' | 'AWSPENDING' | 'AWSPREVIOUS';

export interface SecretsManagerStandIn {
  /** `http://127.0.0.1:<port>`; append `/<name>` to count a client's calls apart. */
  base: string;
  /** GetSecretValue calls seen at `path` (`/<name>`), or in all when no path is given. */
  calls(path?: string): number;
  close(): Promise<void>;
}

export async function startSecretsManagerStandIn(
  values: Partial<Record<Stage, string>>,
  others: Record<string, string> = {},
): Promise<SecretsManagerStandIn> {
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown, type?: string) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(type ? { 'x-amzn-errortype': type } : {}) });
        res.end(JSON.stringify(body));
      };
      if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue')
        return answer(
          400,
          { __type: 'InvalidRequestException', message: `not served: ${String(req.headers['x-amz-target'])}` },
          'InvalidRequestException',
        );
      const path = (req.url ?? '/').replace(/\/+$/, '') || '/';
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string; VersionStage?: Stage };
      const stage = input.VersionStage ?? 'AWSCURRENT';
      const other = Object.entries(others).find(([end]) => input.SecretId.endsWith(end))?.[1];
      const value = other !== undefined && stage === 'AWSCURRENT' ? other : values[stage];
      if (value === undefined)
        return answer(
          400,
          {
            __type: 'ResourceNotFoundException',
            message: `Secrets Manager can't find the specified secret value for staging label: ${stage}`,
          },
          'ResourceNotFoundException',
        );
      answer(200, {
        ARN: input.SecretId,
        Name: 'origin-secret',
        VersionId: `version-${stage}`,
        SecretString: value,
        VersionStages: [stage],
        CreatedDate: 1_700_000_000,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: (path) => (path === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(path) ?? 0)),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
