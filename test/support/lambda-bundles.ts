/**
 * The synthesized Lambda bundles as the nodejs22.x runtime meets them, shared by the bundle
 * smoke test (test/cdk/bundles.test.ts) and the cold-start benchmark (bench/cold.ts): the stack
 * is synthesized once, each function's asset is staged as /var/task under a directory whose
 * node_modules holds only the AWS SDK (what the runtime provides), its environment is only what
 * the stack gives it plus what the runtime sets, and each function has one probe: an event of
 * one of its routes that needs no AWS call but the origin secret's (answered by a loopback
 * Secrets Manager stand-in, test/support/secrets-manager-stand-in.ts) and the escrow operator's
 * public key (a KMS stand-in, test/support/kms-stand-in.ts), with the answer it must give.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { MarketplaceStack } from '../../lib/marketplace-stack';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../lambdas/contract/edge-identity';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { SETTINGS } from '../../lambdas/contract/settings';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const CANARY = 'agent-x402-first-buy';
/** The origin secret the probes carry, as CloudFront adds it; the stand-in holds it as AWSCURRENT. */
export const SMOKE_ORIGIN_SECRET = 'smoke-origin-secret-0123456789abcdefghijklmnopqrstuv';
/** The viewer CloudFront reports for the probes; API Gateway's peer is CloudFront's edge host. */
const SMOKE_VIEWER = '203.0.113.7';

/** One synthesized function, staged as its /var/task. */
export interface StagedFunction {
  /** The template's logical id. */
  id: string;
  /** `skill-market <domain> <routes | task>`, the key of its probe. */
  description: string;
  handler: string;
  /** The staged /var/task. */
  taskDir: string;
  /** The environment the function runs with. */
  env: Record<string, string>;
  /** Its configured timeout (Lambda's default of 3 s when the template sets none): the time an invocation has. */
  timeoutSeconds: number;
}

interface LambdaResource {
  Type: string;
  Properties: {
    Handler: string;
    Code: { S3Key: unknown };
    Description?: string;
    Environment?: { Variables?: Record<string, unknown> };
    Timeout?: number;
  };
}

/** A probe's check: undefined when the answer is the expected one, else what is wrong. */
export type ProbeCheck = (result: unknown) => string | undefined;

function status(code: number): ProbeCheck {
  return (r) => {
    const res = r as { statusCode?: number; body?: string } | undefined;
    return res?.statusCode === code ? undefined : `expected status ${code}, got ${res?.statusCode}: ${res?.body?.slice(0, 500)}`;
  };
}

function fields(expected: Record<string, (v: unknown) => boolean>): ProbeCheck {
  return (r) => {
    const bad = Object.entries(expected).filter(([k, ok]) => !ok((r as Record<string, unknown> | undefined)?.[k]));
    return bad.length === 0 ? undefined : `unexpected ${bad.map(([k]) => k).join(', ')} in ${JSON.stringify(r)?.slice(0, 500)}`;
  };
}

/** Every check passes: the first complaint, if any. */
function all(...checks: ProbeCheck[]): ProbeCheck {
  return (r) => checks.map((check) => check(r)).find((wrong) => wrong !== undefined);
}

/**
 * The x402 v2 challenge (`PAYMENT-REQUIRED`, base64 JSON) offers x402 `auth-capture` beside
 * `exact`, naming the escrow operator as its `captureAuthorizer`: the bundle read the operator's
 * address from its KMS key at cold start (issue 53).
 */
const offersEscrow: ProbeCheck = (r) => {
  const header = (r as { headers?: Record<string, string> } | undefined)?.headers?.['payment-required'];
  if (!header) return 'no PAYMENT-REQUIRED header';
  const accepts = (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { accepts?: unknown[] }).accepts ?? [];
  const escrow = accepts.find((a) => (a as { scheme?: string }).scheme === 'auth-capture') as
    { extra?: { captureAuthorizer?: string } } | undefined;
  if (!escrow) return `no auth-capture entry among ${JSON.stringify(accepts.map((a) => (a as { scheme?: string }).scheme))}`;
  return /^0x[0-9a-fA-F]{40}$/.test(escrow.extra?.captureAuthorizer ?? '')
    ? undefined
    : `auth-capture names no operator: ${JSON.stringify(escrow.extra)}`;
};

/**
 * An API Gateway HTTP API (payload 2.0) event for one route, as CloudFront forwards it: with the
 * origin secret and the viewer's address (`throughEdge`), or as a direct call to the execute-api
 * endpoint without them.
 */
export function apiEvent(method: string, path: string, rawQueryString = '', body?: string, throughEdge = true): unknown {
  return {
    ...(body !== undefined ? { body } : {}),
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString,
    headers: {
      host: 'smoke.invalid',
      'x-forwarded-proto': 'https',
      ...(throughEdge ? { [ORIGIN_VERIFY_HEADER]: SMOKE_ORIGIN_SECRET, [VIEWER_ADDRESS_HEADER]: SMOKE_VIEWER } : {}),
    },
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

/** One request per function, chosen so that it needs no AWS call; keyed by the function's description. */
export const PROBES: Record<string, { event: unknown; check: ProbeCheck; rpcSecretReads?: number }> = {
  // Readiness is the one route of the payments function: it answers 200 whatever it finds (here no
  // table, no provider: ready false), and it reads the RPC secret's providers once (then kept), beside the origin secret.
  'skill-market payments routes': { event: apiEvent('GET', '/api/ready'), check: status(200), rpcSecretReads: 1 },
  'skill-market discovery routes': { event: apiEvent('GET', '/api/health'), check: status(200) },
  'skill-market catalog routes': { event: apiEvent('GET', '/api/packs', `skill=${CANARY}`), check: status(200) },
  // A page size out of range is refused before the ledger or the figures are read.
  'skill-market ledger routes': { event: apiEvent('GET', '/api/proof', 'limit=0'), check: status(400) },
  // Its settlement ports are built at cold start: the escrow operator's guard is read then (one RPC secret read).
  'skill-market agents routes': { event: apiEvent('GET', '/api/mcp'), check: status(200), rpcSecretReads: 1 },
  // A buyer's first request: the 402 challenge, from the catalog and price source in the bundle; no table is asked.
  // It offers the escrow too, whose operator's address came from KMS (the stand-in) at cold start, and
  // whose delegation to its guard was read from the chain (the chain-code stand-in) once.
  'skill-market access routes': {
    event: apiEvent('GET', '/api/pay', `skill=${CANARY}`),
    check: all(status(402), offersEscrow),
    rpcSecretReads: 1,
  },
  // Validation comes before Stripe and the tables: a request for a pack not sold by card is refused without any I/O.
  'skill-market checkout routes': {
    event: apiEvent('POST', '/api/acp/checkout_sessions', '', JSON.stringify({ line_items: [{ id: CANARY, quantity: 1 }] })),
    check: status(400),
  },
  // Bundles come from the build's catalog data and the price source; no table is read.
  'skill-market insights routes': { event: apiEvent('GET', '/api/bundles'), check: status(200) },
  // The state machine's task: an invalid job is refused without any I/O.
  'skill-market payments confirm-handler': {
    event: { network: 'base', txHash: 'not-a-hash', skill: CANARY },
    check: fields({ status: (v) => v === 'failed' }),
  },
  // The stream fold, as its event source mappings invoke it: a tumbling window's closing call with no
  // records returns at once, with the empty window state Lambda requires, touching no table.
  'skill-market ledger fold-handler': {
    event: {
      Records: [],
      shardId: 'shardId-00000001700000000000-0123abcd',
      eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/smoke-ledger/stream/2026-01-01T00:00:00.000',
      window: { start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:01:00Z' },
      state: {},
      isFinalInvokeForWindow: true,
      isWindowTerminatedEarly: false,
    },
    check: fields({
      state: (v) => typeof v === 'object' && v !== null && Object.keys(v).length === 0,
      batchItemFailures: (v) => Array.isArray(v) && v.length === 0,
    }),
  },
  // The scheduled reconcile: an unknown task is refused before any table is read.
  'skill-market ledger reconcile-handler': {
    event: { task: 'smoke' },
    check: fields({ error: (v) => typeof v === 'string' }),
  },
  // Payments' scheduled watch: an unknown task is refused before the chain is read.
  'skill-market payments watch-handler': {
    event: { task: 'smoke' },
    check: fields({ error: (v) => typeof v === 'string' && v.includes('relayer_balance') }),
  },
  // Payments' synthetic purchase: an unknown task is refused before its secret, the site or the chain is read.
  'skill-market payments synthetic-handler': {
    event: { task: 'smoke' },
    check: fields({ error: (v) => typeof v === 'string' && v.includes('synthetic_purchase') }),
  },
  // The license key's rotation (Secrets Manager runs it): an event that is not a rotation step touches nothing.
  'skill-market payments license-rotation-handler': {
    event: { Step: 'smoke' },
    check: fields({ error: (v) => typeof v === 'string' && v.includes('not a Secrets Manager rotation step') }),
  },
  // The origin secret's rotation, likewise.
  'skill-market discovery origin-secret-rotation-handler': {
    event: { Step: 'smoke' },
    check: fields({ error: (v) => typeof v === 'string' && v.includes('not a Secrets Manager rotation step') }),
  },
  // The versions publisher (CloudFormation runs it at deploy): an event that is not a custom resource request touches neither S3 nor a response URL.
  'skill-market catalog publish-versions-handler': {
    event: { RequestType: 'smoke' },
    check: fields({ error: (v) => typeof v === 'string' && v.includes('not a CloudFormation custom resource request') }),
  },
};

/** Whether a function checks the origin secret (every API function does): it has the secret's ARN. */
export const checksOrigin = (fn: StagedFunction): boolean => fn.env[INFRA_ENV.originSecretArn] !== undefined;

/** A CloudFormation value as the deployed function would see it; tokens become stand-ins of the right shape. */
function resolveEnv(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  // Each ARN its own, so a stand-in can answer each secret as its own.
  if (/ARN$/.test(name)) return `arn:aws:service:us-east-1:123456789012:resource/smoke-${name.toLowerCase()}`;
  if (/TABLE$/.test(name)) return `smoke-${name.toLowerCase()}`;
  if (/ADDRESS$/.test(name)) return TREASURY;
  return 'smoke-value';
}

/** Bytes of a file, or of everything under a directory. */
export function bytesOf(path: string): number {
  const s = statSync(path);
  return s.isDirectory() ? readdirSync(path).reduce((sum, f) => sum + bytesOf(join(path, f)), 0) : s.size;
}

/**
 * Bytes of JavaScript a fresh import of `taskDir/index.mjs` parses: the entry and the chunks
 * it imports statically, transitively (`import()` chunks load on first use and are not counted).
 */
export function bytesLoadedAtImport(taskDir: string): number {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    // esbuild writes static chunk imports as `from"./chunks/…"` or `import"./chunks/…"`; import() calls have a parenthesis.
    for (const m of code.matchAll(/(?:from|import)\s*"(\.{1,2}\/[^"]+\.mjs)"/g)) visit(join(file, '..', m[1]!));
  };
  visit(join(taskDir, 'index.mjs'));
  return [...seen].reduce((sum, f) => sum + statSync(f).size, 0);
}

/** Whether a function is given a KMS key (the escrow operator's, the relayer pool's, the service key), whose public key it may read. */
export const usesKms = (fn: Pick<StagedFunction, 'env'>): boolean =>
  [INFRA_ENV.escrowOperatorKmsKeyId, INFRA_ENV.relayerKmsKeyIds, INFRA_ENV.serviceKeyKmsKeyId].some((name) => fn.env[name] !== undefined);

/**
 * Synthesizes the stack and stages every function of ours; `dispose` removes it all. With
 * `secretsManager` (a stand-in's base URL), the functions that read the origin secret reach it
 * there, each at its own path `/<logical id>`, so their calls can be counted apart; with `kms`
 * (test/support/kms-stand-in.ts), the functions given a KMS key reach KMS there likewise: those
 * that settle read the escrow operator's address at cold start, as in Lambda; with `escrowRpc`
 * (test/support/chain-code-stand-in.ts), the functions that name the operator read its account's
 * code there, at their own path, instead of the network's public RPC.
 */
export function stageFunctions(
  secretsManager?: string,
  kms?: string,
  escrowRpc?: string,
): { functions: StagedFunction[]; dispose: () => void } {
  const outdir = mkdtempSync(join(tmpdir(), 'skill-market-synth-'));
  const runtimeDir = mkdtempSync(join(tmpdir(), 'skill-market-runtime-'));
  const dispose = (): void => {
    for (const dir of [outdir, runtimeDir]) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const app = new App({ outdir, context: { treasury: TREASURY, publicBaseUrl: 'https://market.example' } });
    const stack = new MarketplaceStack(app, 'Smoke');
    app.synth();
    const template = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8')) as {
      Resources: Record<string, LambdaResource>;
    };
    // What the nodejs22.x runtime offers besides the bundle: the AWS SDK v3, and nothing else.
    mkdirSync(join(runtimeDir, 'node_modules'));
    symlinkSync(join(root, 'node_modules', '@aws-sdk'), join(runtimeDir, 'node_modules', '@aws-sdk'));
    const functions = Object.entries(template.Resources)
      .filter(
        ([, r]) =>
          r.Type === 'AWS::Lambda::Function' &&
          typeof r.Properties.Description === 'string' &&
          r.Properties.Description.startsWith('skill-market '),
      )
      .map(([id, r]): StagedFunction => {
        // Copied under the runtime directory, as /var/task, so that bare imports resolve only to the runtime's SDK.
        const taskDir = join(runtimeDir, id);
        cpSync(join(outdir, `asset.${String(r.Properties.Code.S3Key).replace(/\.zip$/, '')}`), taskDir, { recursive: true });
        const env: Record<string, string> = {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          // Set by the Lambda runtime itself.
          AWS_REGION: 'us-east-1',
          AWS_LAMBDA_FUNCTION_NAME: id,
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
          // The function role's credentials, which the runtime puts in the environment (stand-ins here).
          AWS_ACCESS_KEY_ID: 'ASIASMOKESMOKESMOKE0',
          AWS_SECRET_ACCESS_KEY: 'smoke-secret-access-key',
          AWS_SESSION_TOKEN: 'smoke-session-token',
          // Lambda runs Node 22; this machine's Node 20 only adds the SDK's notice about that.
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        };
        for (const [name, value] of Object.entries(r.Properties.Environment?.Variables ?? {})) {
          env[name] = resolveEnv(name, value).replace(/^\/var\/task(?=\/|$)/, taskDir);
        }
        if (secretsManager && env[INFRA_ENV.originSecretArn]) env['AWS_ENDPOINT_URL_SECRETS_MANAGER'] = `${secretsManager}/${id}`;
        if (kms && usesKms({ env })) env['AWS_ENDPOINT_URL_KMS'] = `${kms}/${id}`;
        // A function that names the escrow operator reads the chain for its delegation before it offers auth-capture.
        if (escrowRpc && env[INFRA_ENV.escrowOperatorKmsKeyId]) env[SETTINGS.rpcUrls.env] = `${escrowRpc}/${id}`;
        env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
        return {
          id,
          description: r.Properties.Description!,
          handler: r.Properties.Handler,
          taskDir,
          env,
          timeoutSeconds: r.Properties.Timeout ?? 3,
        };
      });
    return { functions, dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}
