/**
 * Issue 14: what each Lambda pays at a cold start, as ratios to a floor. The floor is an
 * esbuild bundle of only @aws-lambda-powertools/logger (with its middy middleware) and
 * @middy/core. The stack is synthesized once (test/support/lambda-bundles.ts, as the bundle
 * smoke test does) and each function is run in fresh `node --enable-source-maps` processes (as
 * deployed) with its own environment and the AWS SDK resolvable beside it as the nodejs22.x
 * runtime provides it, in pairs interleaved with the floor; figures are medians of the
 * per-pair ratios, so machine load weighs on both alike. Two measures per process:
 * - import: `await import(index.mjs)`, what Lambda's init phase runs;
 * - first answer: import, then the handler's answer to the function's probe (a route needing
 *   no AWS call), against the floor's import and answer: what was moved out of the import to
 *   a chunk loaded on first use is paid here.
 * Fails (exit 1) if a bundle does not import or answers its probe wrongly.
 * Usage: npm run bench:cold [-- pairs]   (default 5 pairs)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildSite } from '../catalog/build';
import { LAMBDA_ESBUILD_OPTIONS } from '../lib/constructs/lambda-bundle';
import { bytesLoadedAtImport, bytesOf, PROBES, SMOKE_ORIGIN_SECRET, stageFunctions } from '../test/support/lambda-bundles';
import { startSecretsManagerStandIn } from '../test/support/secrets-manager-stand-in';
import { startKmsStandIn } from '../test/support/kms-stand-in';

const pairs = Number(process.argv[2] ?? '5');
const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'skill-market-cold-'));

await buildSite();
// The API functions read the origin secret on their first request: from a loopback stand-in, as the smoke test does.
const secretsManager = await startSecretsManagerStandIn({ AWSCURRENT: SMOKE_ORIGIN_SECRET });
// The settling functions read the escrow operator's public key at cold start: from a KMS stand-in, likewise.
const kms = await startKmsStandIn();
const { functions, dispose } = stageFunctions(secretsManager.base, kms.base);

// The floor: Powertools logger with its middy middleware, and middy, built as the functions are.
const floorDir = join(work, 'floor');
mkdirSync(floorDir);
writeFileSync(
  join(work, 'floor.mjs'),
  [
    "import middy from '@middy/core';",
    "import { Logger } from '@aws-lambda-powertools/logger';",
    "import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';",
    'const logger = new Logger();',
    'export const handler = middy(async () => ({ statusCode: 200 })).use(injectLambdaContext(logger));',
  ].join('\n'),
);
await build({
  ...LAMBDA_ESBUILD_OPTIONS,
  logLevel: 'error',
  entryPoints: { index: join(work, 'floor.mjs') },
  outdir: floorDir,
  nodePaths: [join(root, 'node_modules')],
});

// The context Lambda passes: the time left counts down from the function's configured timeout (as test/cdk/bundles.test.ts gives it).
const runner = `
const [file, eventJson, timeoutMs] = process.argv.slice(1);
const t0 = performance.now();
const deadline = Date.now() + Number(timeoutMs);
const mod = await import(file);
const t1 = performance.now();
const context = { awsRequestId: 'cold', functionName: 'cold', getRemainingTimeInMillis: () => deadline - Date.now(), callbackWaitsForEmptyEventLoop: true };
const result = await mod.handler(JSON.parse(eventJson), context);
const t2 = performance.now();
process.stdout.write('\\n@@RESULT@@' + JSON.stringify({ importMs: t1 - t0, answerMs: t2 - t0, result }));
process.exit(0);
`;

interface Run {
  importMs: number;
  answerMs: number;
  result: unknown;
}

/**
 * One fresh process: imports `dir/index.mjs` and answers `event`; throws if it does not. Not
 * synchronous: the Secrets Manager stand-in answers from this process's event loop.
 */
async function run(dir: string, env: Record<string, string>, event: unknown, timeoutSeconds = 3): Promise<Run> {
  const { stdout: out } = await promisify(execFile)(
    process.execPath,
    [
      '--enable-source-maps',
      '--input-type=module',
      '-e',
      runner,
      join(dir, 'index.mjs'),
      JSON.stringify(event),
      String(timeoutSeconds * 1000),
    ],
    { cwd: dir, env, timeout: 30_000 },
  );
  const marker = out.lastIndexOf('@@RESULT@@');
  if (marker < 0) throw new Error('the bundle did not answer');
  return JSON.parse(out.slice(marker + '@@RESULT@@'.length)) as Run;
}

const floorEnv = { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'SILENT' };
const floorEvent = {};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
const rows: string[] = [];
let failed = false;
await run(floorDir, floorEnv, floorEvent); // warm the file cache once
for (const f of functions) {
  const probe = PROBES[f.description];
  const name = f.description.replace(/^skill-market /, '');
  const size = `${kib(bytesLoadedAtImport(f.taskDir))} of ${(bytesOf(f.taskDir) / 1024 / 1024).toFixed(1)} MiB`;
  try {
    if (!probe) throw new Error('no probe in test/support/lambda-bundles.ts');
    const wrong = probe.check((await run(f.taskDir, f.env, probe.event, f.timeoutSeconds)).result);
    if (wrong) throw new Error(wrong);
    const own: Run[] = [];
    const floor: Run[] = [];
    for (let i = 0; i < pairs; i++) {
      floor.push(await run(floorDir, floorEnv, floorEvent));
      own.push(await run(f.taskDir, f.env, probe.event, f.timeoutSeconds));
    }
    const ratio = (k: 'importMs' | 'answerMs'): string =>
      `${median(own.map((o, i) => o[k] / floor[i]![k])).toFixed(1)}× (${median(own.map((o) => o[k])).toFixed(0)} ms vs ${median(floor.map((o) => o[k])).toFixed(0)})`;
    rows.push(`| ${name} | ${size} | ${ratio('importMs')} | ${ratio('answerMs')} |`);
  } catch (e) {
    failed = true;
    const stderr = (e as { stderr?: string }).stderr;
    rows.push(`| ${name} | ${size} | **fails**: ${stderr?.split('\n').find((l) => /Error/.test(l)) ?? (e as Error).message} | |`);
  }
}
dispose();
await secretsManager.close();
await kms.close();
rmSync(work, { recursive: true, force: true });
console.log(
  `\n| function | JS parsed at import, of the asset | import vs floor | import + first answer vs floor |\n|---|---|---|---|\n${rows.join('\n')}\n\nmedians of ${pairs} interleaved pairs; the floor's first answer is its handler's {statusCode: 200}`,
);
if (failed) process.exit(1);
