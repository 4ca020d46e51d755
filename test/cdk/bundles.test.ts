/**
 * What is deployed must start. Synthesizes the stack once, then for every Lambda asset:
 * imports its `index.mjs` in a fresh `node` process whose environment is only what the
 * stack gives that function (plus what the Lambda runtime itself sets), with the AWS SDK
 * resolvable as the nodejs22.x runtime provides it and nothing else, and calls the handler
 * with one event of one of its routes. The answer must be that route's normal status. API
 * functions read the origin secret from a loopback Secrets Manager stand-in; a direct call
 * (no origin secret) must be refused without reading it. The functions that settle read the
 * escrow operator's public key from a loopback KMS stand-in, and nothing signs.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPTED_ORIGIN_SECRET_STAGES } from '../../lambdas/contract/edge-identity';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { SETTINGS } from '../../lambdas/contract/settings';
import { startKmsStandIn, type KmsStandIn } from '../support/kms-stand-in';
import { startChainCodeStandIn, type ChainCodeStandIn } from '../support/chain-code-stand-in';
import {
  apiEvent,
  checksOrigin,
  PROBES,
  SMOKE_ORIGIN_SECRET,
  stageFunctions,
  usesKms,
  type StagedFunction,
} from '../support/lambda-bundles';
import { startSecretsManagerStandIn, type SecretsManagerStandIn } from '../support/secrets-manager-stand-in';

// The context Lambda passes: the time left counts down from the function's configured timeout.
const runner = `
const [file, eventJson, timeoutMs] = process.argv.slice(1);
const mod = await import(file);
const deadline = Date.now() + Number(timeoutMs);
const context = { awsRequestId: 'smoke', functionName: 'smoke', getRemainingTimeInMillis: () => deadline - Date.now(), callbackWaitsForEmptyEventLoop: true };
const result = await mod.handler(JSON.parse(eventJson), context);
process.stdout.write('\\n@@RESULT@@' + JSON.stringify(result));
process.exit(0);
`;

let functions: StagedFunction[];
let dispose: (() => void) | undefined;
let secretsManager: SecretsManagerStandIn | undefined;
let kms: KmsStandIn | undefined;
let chainCode: ChainCodeStandIn | undefined;

beforeAll(async () => {
  // Right after a rotation: the previous value is still accepted, and the current one is what the probes send.
  // The RPC secret as a new stack has it: its field blank (the configured providers alone), read once and kept.
  secretsManager = await startSecretsManagerStandIn(
    { AWSCURRENT: SMOKE_ORIGIN_SECRET, AWSPREVIOUS: 'the-secret-before-it' },
    { [`smoke-${INFRA_ENV.rpcSecretArn.toLowerCase()}`]: JSON.stringify({ [SETTINGS.rpcUrls.env]: '' }) },
  );
  // The functions that settle read the escrow operator's address (its public key) at cold start.
  kms = await startKmsStandIn();
  // ... and, before offering auth-capture, whether its account delegates to its guard: here it does.
  chainCode = await startChainCodeStandIn(kms.address);
  ({ functions, dispose } = stageFunctions(secretsManager.base, kms.base, chainCode.base));
}, 240_000);

afterAll(async () => {
  dispose?.();
  await secretsManager?.close();
  await kms?.close();
  await chainCode?.close();
});

function runBundle(fn: StagedFunction, event: unknown): Promise<{ result: unknown; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', runner, join(fn.taskDir, 'index.mjs'), JSON.stringify(event), String(fn.timeoutSeconds * 1000)],
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
    // A cold API function reads the origin secret's accepted versions once: one GetSecretValue per staging label.
    for (const fn of functions.filter(checksOrigin))
      expect(secretsManager!.calls(`/${fn.id}`), fn.id).toBe(
        ACCEPTED_ORIGIN_SECRET_STAGES.length + (PROBES[fn.description]!.rpcSecretReads ?? 0),
      );
    // KMS is asked for public keys only, by functions given a key, and never for a signature; the
    // escrow operator's address is read by a settling function's probe (its 402, readiness).
    expect(kms!.calls('Sign')).toBe(0);
    expect(kms!.calls('GetPublicKey')).toBeGreaterThan(0);
    for (const fn of functions.filter((f) => !usesKms(f))) expect(kms!.calls('GetPublicKey', `/${fn.id}`), fn.id).toBe(0);
    const access = functions.find((f) => f.description === 'skill-market access routes')!;
    expect(access.env[INFRA_ENV.escrowOperatorKmsKeyId]).toBeDefined();
    expect(kms!.calls('GetPublicKey', `/${access.id}`)).toBe(1);
    // Its 402 offered auth-capture after one read of the operator's code: delegated, kept.
    expect(chainCode!.codeReads(`/${access.id}`)).toBe(1);
  }, 180_000);

  it('refuses a direct call to the API (no origin secret) with 403 ORIGIN_REQUIRED, reading no secret for it', async () => {
    const api = functions.filter(checksOrigin);
    expect(api.length).toBeGreaterThanOrEqual(7);
    const before = new Map(api.map((fn) => [fn.id, secretsManager!.calls(`/${fn.id}`)]));
    const answers = await Promise.all(
      api.map(async (fn) => ({ fn, result: (await runBundle(fn, apiEvent('GET', '/api/health', '', undefined, false))).result })),
    );
    for (const { fn, result } of answers) {
      const res = result as { statusCode: number; body: string };
      expect(res.statusCode, fn.id).toBe(403);
      expect(JSON.parse(res.body), fn.id).toMatchObject({ ok: false, error_code: 'ORIGIN_REQUIRED', retry: false });
      expect(secretsManager!.calls(`/${fn.id}`), fn.id).toBe(before.get(fn.id));
    }
  }, 180_000);
});
