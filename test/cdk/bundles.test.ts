/**
 * What is deployed must start. Synthesizes the stack once, then for every Lambda asset:
 * imports its `index.mjs` in a fresh `node` process whose environment is only what the
 * stack gives that function (plus what the Lambda runtime itself sets), with the AWS SDK
 * resolvable as the nodejs22.x runtime provides it and nothing else, and calls the handler
 * with one event of one of its routes. The answer must be that route's normal status.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketplaceStack } from '../../lib/marketplace-stack';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const CANARY = 'agent-x402-first-buy';

interface LambdaResource {
  Type: string;
  Properties: {
    Handler: string;
    Code: { S3Key: unknown };
    Description?: string;
    Environment?: { Variables?: Record<string, unknown> };
  };
}

/** One request per function, chosen so that it needs no AWS call; keyed by the function's description. */
const PROBES: Record<string, { event: unknown; expect: (result: unknown) => void }> = {
  'skill-market discovery routes': { event: apiEvent('GET', '/api/health'), expect: status(200) },
  'skill-market catalog routes': { event: apiEvent('GET', '/api/packs', `skill=${CANARY}`), expect: status(200) },
  'skill-market payments routes': { event: apiEvent('GET', '/api/pay', `skill=${CANARY}`), expect: status(402) },
  'skill-market agents routes': { event: apiEvent('GET', '/api/mcp'), expect: status(200) },
  // The plans come from the price source in the bundle; no table or chain is asked.
  'skill-market access routes': { event: apiEvent('GET', '/api/subscribe'), expect: status(200) },
  // Validation comes before Stripe and the tables: a request for a pack not sold by card is refused without any I/O.
  'skill-market checkout routes': {
    event: apiEvent('POST', '/api/acp/checkout_sessions', '', JSON.stringify({ line_items: [{ id: CANARY, quantity: 1 }] })),
    expect: status(400),
  },
  // Bundles come from the build's catalog data and the price source; no table is read.
  'skill-market insights routes': { event: apiEvent('GET', '/api/bundles'), expect: status(200) },
  // The state machine's task: an invalid job is refused without any I/O.
  'skill-market payments confirm-handler': {
    event: { network: 'base', txHash: 'not-a-hash', skill: CANARY },
    expect: (r) => expect(r).toMatchObject({ status: 'failed' }),
  },
  // The scheduled tally task: an unknown task is refused before any table is read.
  'skill-market payments tally-handler': {
    event: { task: 'smoke' },
    expect: (r) => expect(r).toMatchObject({ error: expect.stringContaining('expected "fold" or "reconcile"') }),
  },
};

function apiEvent(method: string, path: string, rawQueryString = '', body?: string): unknown {
  return {
    ...(body !== undefined ? { body } : {}),
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString,
    headers: { host: 'smoke.invalid', 'x-forwarded-proto': 'https' },
    requestContext: {
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'bundle-smoke' },
      requestId: 'smoke-request',
      routeKey: `${method} ${path}`,
      stage: '$default',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

function status(code: number) {
  return (r: unknown): void => {
    const res = r as { statusCode?: number; body?: string };
    expect(res.statusCode, res.body?.slice(0, 500)).toBe(code);
  };
}

/** A CloudFormation value as the deployed function would see it; tokens become stand-ins of the right shape. */
function resolveEnv(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (/ARN$/.test(name)) return 'arn:aws:service:us-east-1:123456789012:resource/smoke';
  if (/TABLE$/.test(name)) return `smoke-${name.toLowerCase()}`;
  if (/ADDRESS$/.test(name)) return TREASURY;
  return 'smoke-value';
}

const runner = `
const [file, eventJson] = process.argv.slice(1);
const mod = await import(file);
const context = { awsRequestId: 'smoke', functionName: 'smoke', getRemainingTimeInMillis: () => 10000, callbackWaitsForEmptyEventLoop: true };
const result = await mod.handler(JSON.parse(eventJson), context);
process.stdout.write('\\n@@RESULT@@' + JSON.stringify(result));
process.exit(0);
`;

let outdir: string;
let runtimeDir: string;
let functions: [string, LambdaResource][];

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'skill-market-synth-'));
  const app = new App({ outdir, context: { treasury: TREASURY, publicBaseUrl: 'https://market.example' } });
  const stack = new MarketplaceStack(app, 'Smoke');
  app.synth();
  const template = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8')) as {
    Resources: Record<string, LambdaResource>;
  };
  functions = Object.entries(template.Resources).filter(
    ([, r]) =>
      r.Type === 'AWS::Lambda::Function' &&
      typeof r.Properties.Description === 'string' &&
      r.Properties.Description.startsWith('skill-market '),
  );
  // What the nodejs22.x runtime offers besides the bundle: the AWS SDK v3, and nothing else.
  runtimeDir = mkdtempSync(join(tmpdir(), 'skill-market-runtime-'));
  mkdirSync(join(runtimeDir, 'node_modules'));
  symlinkSync(join(root, 'node_modules', '@aws-sdk'), join(runtimeDir, 'node_modules', '@aws-sdk'));
}, 240_000);

afterAll(() => {
  for (const dir of [outdir, runtimeDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Copies a bundle under the runtime directory, as /var/task, so that bare imports resolve only to the runtime's SDK. */
function stage(id: string, assetDir: string): string {
  const taskDir = join(runtimeDir, id);
  cpSync(assetDir, taskDir, { recursive: true });
  return taskDir;
}

function runBundle(taskDir: string, env: Record<string, string>, event: unknown): Promise<{ result: unknown; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', runner, join(taskDir, 'index.mjs'), JSON.stringify(event)],
      { cwd: taskDir, env, timeout: 30_000 },
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
    for (const [id, fn] of functions)
      expect(Object.keys(PROBES), `${id}: ${fn.Properties.Description}`).toContain(fn.Properties.Description);
  });

  it('imports in a fresh node with only its own environment and answers one of its routes', async () => {
    const failures = await Promise.all(
      functions.map(async ([id, fn]) => {
        const probe = PROBES[fn.Properties.Description!]!;
        const key = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
        const taskDir = stage(id, join(outdir, `asset.${key}`));
        const env: Record<string, string> = {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          // Set by the Lambda runtime itself.
          AWS_REGION: 'us-east-1',
          AWS_LAMBDA_FUNCTION_NAME: id,
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
          // Lambda runs Node 22; this machine's Node 20 only adds the SDK's notice about that.
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        };
        for (const [name, value] of Object.entries(fn.Properties.Environment?.Variables ?? {})) {
          env[name] = resolveEnv(name, value).replace(/^\/var\/task(?=\/|$)/, taskDir);
        }
        env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
        try {
          expect(fn.Properties.Handler).toBe('index.handler');
          probe.expect((await runBundle(taskDir, env, probe.event)).result);
          return undefined;
        } catch (e) {
          return `${id} (${fn.Properties.Description}): ${(e as Error).message}`;
        }
      }),
    );
    expect(failures.filter((f) => f !== undefined)).toEqual([]);
  }, 180_000);
});
