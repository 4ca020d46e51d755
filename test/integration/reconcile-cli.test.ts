/**
 * `npm run reconcile` prints for a person: its report and nothing else on stdout. The CloudWatch
 * metric the same handler publishes in Lambda (an EMF line) is not printed by the tool, whatever
 * the caller's environment says about Powertools (issue 51).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

const dynamo = inject('dynamoEndpoint');

describe('npm run reconcile', () => {
  it('prints its report alone: no metrics line before it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DYNAMODB_ENDPOINT: dynamo };
    // As a person's shell has it: none of the settings the test run or npm start add.
    delete env['POWERTOOLS_METRICS_DISABLED'];
    delete env['AWS_LAMBDA_FUNCTION_NAME'];
    const run = await new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'local/reconcile.ts'],
        { cwd: fileURLToPath(new URL('../..', import.meta.url)), env },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
      );
    });
    expect(run.code, run.out + run.err).not.toBe(2);
    expect(run.out).not.toContain('_aws');
    expect(run.out).not.toContain('CloudWatchMetrics');
    expect(JSON.parse(run.out)).toMatchObject({ state: expect.stringMatching(/^(equal|different)$/) });
  });
});
