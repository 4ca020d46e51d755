/**
 * What is deployed must start. Synthesizes the stack once, then for every Lambda asset:
 * imports its `index.mjs` in a fresh `node` process whose environment is only what the
 * stack gives that function (plus what the Lambda runtime itself sets), with the AWS SDK
 * resolvable as the nodejs22.x runtime provides it and nothing else, and calls the handler
 * with one event of one of its routes. The answer must be that route's normal status.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBES, stageFunctions, type StagedFunction } from '../support/lambda-bundles';

const runner = `
const [file, eventJson] = process.argv.slice(1);
const mod = await import(file);
const context = { awsRequestId: 'smoke', functionName: 'smoke', getRemainingTimeInMillis: () => 10000, callbackWaitsForEmptyEventLoop: true };
const result = await mod.handler(JSON.parse(eventJson), context);
process.stdout.write('\\n@@RESULT@@' + JSON.stringify(result));
process.exit(0);
`;

let functions: StagedFunction[];
let dispose: (() => void) | undefined;

beforeAll(() => {
  ({ functions, dispose } = stageFunctions());
}, 240_000);

afterAll(() => dispose?.());

function runBundle(fn: StagedFunction, event: unknown): Promise<{ result: unknown; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', runner, join(fn.taskDir, 'index.mjs'), JSON.stringify(event)],
      { cwd: fn.taskDir, env: fn.env, timeout: 30_000 },
      (err, stdout, stderr) => {
        const marker = stdout.lastIndexOf('@@RESULT@@');
        if (marker < 0) return reject(new Error(`the bundle did not answer (exit ${err?.code ?? 0}):\n${stderr.slice(-1500)}`));
        resolve({ result: JSON.parse(stdout.slice(marker + '@@RESULT@@'.length)) as unknown, stderr });
      },
    );
  });
}

describe('every synthesized Lambda bundle', () => {
  it('has a probe for each function, so a new function cannot ship untested', () => {
    expect(functions.length).toBeGreaterThanOrEqual(5);
    for (const fn of functions) expect(Object.keys(PROBES), `${fn.id}: ${fn.description}`).toContain(fn.description);
  });

  it('imports in a fresh node with only its own environment and answers one of its routes', async () => {
    const failures = await Promise.all(
      functions.map(async (fn) => {
        const probe = PROBES[fn.description]!;
        try {
          expect(fn.handler).toBe('index.handler');
          const wrong = probe.check((await runBundle(fn, probe.event)).result);
          return wrong === undefined ? undefined : `${fn.id} (${fn.description}): ${wrong}`;
        } catch (e) {
          return `${fn.id} (${fn.description}): ${(e as Error).message}`;
        }
      }),
    );
    expect(failures.filter((f) => f !== undefined)).toEqual([]);
  }, 180_000);
});
