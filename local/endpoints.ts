/**
 * Where `npm start` runs, for the tools (`npm run buy`, `verify-receipt`, `reconcile`, `export`,
 * `revenue`, `unmatched`, `refund`): the one definition of the endpoints file, its name, its shape,
 * where it is, and how a tool reads it.
 *
 * `npm start` writes it once it serves (local/start.ts): `<data dir>/endpoints.json`, or with
 * `EPHEMERAL=1` a file of this checkout's own in the temporary directory (nothing under `.data/`);
 * `ENDPOINTS_FILE` puts it elsewhere. It is removed when that start stops, and a file whose start is
 * gone (killed, so it could not remove it) is never read: it names its process, which must be alive.
 *
 * A tool takes an address from it only where nothing more explicit says otherwise: its own flag
 * (`--base-url`, `--rpc-url`, `--issuer`), then the environment (`DYNAMODB_ENDPOINT`, `RPC_URLS`,
 * `PORT`, `ANVIL_PORT`, `DYNAMODB_PORT`), then the running start's file, then the default ports.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../lambdas/contract/settings';

/** The variable that names the endpoints file, for `npm start` and every tool. */
export const ENDPOINTS_FILE_ENV = 'ENDPOINTS_FILE';
/** Its name in a data dir. */
export const ENDPOINTS_FILE_NAME = 'endpoints.json';

/** `npm start`'s ports when PORT, ANVIL_PORT and DYNAMODB_PORT say nothing (DynamoDB Local's own default). */
export const DEFAULT_PORTS = { api: 8787, anvil: 8545, dynamodb: 8000 } as const;

/** The checkout's data dir when DATA_DIR says nothing. */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../.data', import.meta.url));

/** What the endpoints file holds. */
export interface LocalEndpoints {
  /** The process of the `npm start` that wrote it: the file is read only while it runs. */
  pid: number;
  startedAt: string;
  /** The API's base URL, as the service advertises it (PUBLIC_BASE_URL, else where the edge listens): a receipt's `iss`. */
  baseUrl: string;
  /** The chain's JSON-RPC URLs (anvil's, or RPC_URLS). */
  rpcUrls: string[];
  /** DynamoDB Local's endpoint (or DYNAMODB_ENDPOINT). */
  dynamodbEndpoint: string;
  /** Its data dir; null for an in-memory run (EPHEMERAL=1). */
  dataDir: string | null;
  /** The deployment settings its functions run with (treasury, tokens, …; never a secret), by variable name. */
  settings: Record<string, string>;
}

const set = (v: string | undefined): string | undefined => (v?.trim() ? v.trim() : undefined);

/** An in-memory run's file: in the temporary directory, one per checkout (two checkouts' starts do not meet). */
export function ephemeralEndpointsFile(): string {
  const checkout = createHash('sha256')
    .update(fileURLToPath(new URL('..', import.meta.url)))
    .digest('hex')
    .slice(0, 12);
  return join(tmpdir(), `skill-market-${checkout}`, ENDPOINTS_FILE_NAME);
}

/** Where a start with this environment and data dir (undefined: in memory) writes its file. */
export function endpointsFileFor(env: NodeJS.ProcessEnv, dataDir: string | undefined): string {
  return set(env[ENDPOINTS_FILE_ENV]) ?? (dataDir ? join(dataDir, ENDPOINTS_FILE_NAME) : ephemeralEndpointsFile());
}

/** Where a tool looks: ENDPOINTS_FILE alone, else the data dir's file (DATA_DIR, else .data/) and the in-memory run's. */
export function endpointsCandidates(env: NodeJS.ProcessEnv): string[] {
  const named = set(env[ENDPOINTS_FILE_ENV]);
  if (named) return [named];
  return [join(set(env['DATA_DIR']) ?? DEFAULT_DATA_DIR, ENDPOINTS_FILE_NAME), ephemeralEndpointsFile()];
}

/** The settings a start records: every deployment setting it runs with, but the two the file has fields for. */
export function recordedSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  const own = new Set<string>([SETTINGS.rpcUrls.env, SETTINGS.publicBaseUrl.env]);
  const out: Record<string, string> = {};
  for (const s of Object.values(SETTINGS)) {
    const value = env[s.env];
    if (!own.has(s.env) && value !== undefined) out[s.env] = value;
  }
  return out;
}

/** Writes the file whole (a reader never sees half of it), readable by its owner only: RPC_URLS may carry a key. */
export function writeEndpoints(file: string, endpoints: LocalEndpoints): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${endpoints.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(endpoints, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

function parse(file: string): LocalEndpoints | undefined {
  try {
    const e = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalEndpoints>;
    if (typeof e.pid !== 'number' || typeof e.baseUrl !== 'string' || !Array.isArray(e.rpcUrls) || typeof e.dynamodbEndpoint !== 'string')
      return undefined;
    return { dataDir: null, settings: {}, startedAt: '', ...e } as LocalEndpoints;
  } catch {
    return undefined;
  }
}

/** Removes the file if it is still this start's (another start may have written it since). */
export function removeEndpoints(file: string, pid: number): void {
  if (parse(file)?.pid === pid) rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running start's file among `files`: the newest of those whose start still runs; undefined when none does. */
export function readEndpointsFrom(files: readonly string[]): { file: string; endpoints: LocalEndpoints } | undefined {
  return files
    .map((file) => ({ file, endpoints: parse(file) }))
    .filter((f): f is { file: string; endpoints: LocalEndpoints } => f.endpoints !== undefined && alive(f.endpoints.pid))
    .sort((a, b) => (a.endpoints.startedAt < b.endpoints.startedAt ? 1 : -1))[0];
}

/** The running `npm start`'s endpoints, as a tool finds them. */
export const readEndpoints = (env: NodeJS.ProcessEnv): { file: string; endpoints: LocalEndpoints } | undefined =>
  readEndpointsFrom(endpointsCandidates(env));

/** What a tool uses: the environment's ports first, then the running start's file, then the default ports. */
export interface ToolEndpoints {
  baseUrl: string;
  rpcUrls: string[];
  dynamodbEndpoint: string;
  /** Where `npm run export` writes and `npm run revenue` looks: `exports/` in the running start's data dir (else DATA_DIR, else .data/). */
  exportsDir: string;
  /** The running start's settings, when its chain is the one used (empty otherwise). */
  settings: Record<string, string>;
  /** The file they came from; undefined when no start runs. */
  file: string | undefined;
}

export function toolEndpoints(env: NodeJS.ProcessEnv): ToolEndpoints {
  const found = readEndpoints(env);
  const running = found?.endpoints;
  const port = (name: string): string | undefined => set(env[name]);
  const local = (p: string | number): string => `http://127.0.0.1:${p}`;
  const anvilPort = port('ANVIL_PORT');
  return {
    baseUrl: port('PORT') ? local(port('PORT')!) : (running?.baseUrl ?? local(DEFAULT_PORTS.api)),
    rpcUrls: anvilPort ? [local(anvilPort)] : (running?.rpcUrls ?? [local(DEFAULT_PORTS.anvil)]),
    dynamodbEndpoint: port('DYNAMODB_PORT') ? local(port('DYNAMODB_PORT')!) : (running?.dynamodbEndpoint ?? local(DEFAULT_PORTS.dynamodb)),
    exportsDir: join(running?.dataDir ?? set(env['DATA_DIR']) ?? DEFAULT_DATA_DIR, 'exports'),
    settings: running && !anvilPort ? running.settings : {},
    file: found?.file,
  };
}
