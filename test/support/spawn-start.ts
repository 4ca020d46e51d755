/**
 * Runs `npm start`'s command (node local/run.mjs: local/start.ts bundled, then run) as a child process, as a user would, and
 * waits for its banner. Used to test start-up, shutdown, persistence and configuration.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECRET_SETTINGS, SETTINGS } from '../../lambdas/contract/settings';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface StartedProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Sends SIGINT (Ctrl-C) and resolves with the exit code. */
  interrupt: () => Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Kills whatever a failed test left running. */
export function killStarted(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/**
 * The test workers inherit the global setup's DYNAMODB_ENDPOINT, RPC_URLS and settings;
 * a user's shell has none of them, so the child starts without them unless a test sets them.
 */
export function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DYNAMODB_ENDPOINT', ...[...Object.values(SETTINGS), ...Object.values(SECRET_SETTINGS)].map((s) => s.env)])
    delete env[name];
  return env;
}

export function runStart(env: Record<string, string>, timeoutMs = 45_000): Promise<StartedProcess> {
  const child = spawn(process.execPath, ['local/run.mjs'], {
    cwd: root,
    // The global setup built dist/ once: a spawned start serves it instead of building it again beside other tests.
    // Its endpoints file is its own (ENDPOINTS_FILE: '' for the default place), never the one a developer's start wrote.
    env: {
      ...userEnv(),
      PORT: '0',
      ANVIL_PORT: '0',
      DYNAMODB_PORT: '0',
      BUILD_SITE: '0',
      ENDPOINTS_FILE: join(tmpdir(), `skill-market-endpoints-${randomUUID()}.json`),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const interrupt = (): Promise<number | null> =>
    new Promise((resolve) => {
      // Gone already (by itself or by a signal): 'exit' will not come again.
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGINT');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const poll = setInterval(() => {
      const m = /Base URL\s+(http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, baseUrl: m[1], output: () => out, interrupt });
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      if (!/Base URL/.test(out)) reject(Object.assign(new Error(`start exited with ${code}:\n${out}`), { code, output: out }));
    });
  });
}

/**
 * The settings for an `npm start` child that uses the run's shared DynamoDB Local and anvil (from the
 * global setup) instead of starting its own, in memory: start-up in a second or two.
 */
export function sharedStackEnv(
  inject: (key: 'dynamoEndpoint' | 'rpcUrl' | 'usdc' | 'usdbc' | 'treasury') => string,
): Record<string, string> {
  return {
    EPHEMERAL: '1',
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    RPC_URLS: inject('rpcUrl'),
    USDC_ADDRESS: inject('usdc'),
    USDBC_ADDRESS: inject('usdbc'),
    TREASURY_ADDRESS: inject('treasury'),
  };
}

/** Runs `fn` against an `npm start` child started with `env`, and interrupts the child afterwards, whatever `fn` did. */
export async function withStarted<T>(env: Record<string, string>, fn: (s: StartedProcess) => Promise<T>): Promise<T> {
  const s = await runStart(env);
  try {
    return await fn(s);
  } finally {
    await s.interrupt();
  }
}
