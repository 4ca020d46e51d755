/**
 * `npm run verify-receipt` (local/verify-receipt.ts) decides with its exit code, so a script can
 * trust exit 0 only if the receipt comes from the service the script names (issue 50, finding 9).
 * Two services run here on loopback ports, each publishing its JWKS: the honest one, and an
 * attacker who signs receipts with a key of its own and names itself as `iss` in forms that only
 * look like the honest base URL. A receipt is pinned by `--issuer` (the JWKS is fetched from the
 * pinned issuer and `iss` must equal it) or by `--jwks` (a saved key set); unpinned, it is refused.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jwks, signReceipt } from '../../lambdas/ledger';
import { ledgerRow } from '../support/records';
import { keyFileServiceSigner } from '../../lambdas/ledger/adapters/key-file-service-signer';
import { writeEndpoints } from '../../local/endpoints';

const NOT_PINNED =
  'The receipt was not pinned: pass --issuer with the base URL of the service you bought from (its JWKS is fetched from there), or --jwks with its saved jwks.json (with neither, the service npm start runs here is the issuer, and none is running).';

/** Any sale: the receipt's claims come from it. */
const row = ledgerRow(1);

/** A loopback server that answers every GET with `body` as JSON and remembers the paths asked for. */
async function jwksServer(body: unknown): Promise<{ base: string; asked: string[]; server: Server }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const verifyIn = (env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'local/verify-receipt.ts', ...args], { cwd: root, env }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
/** Run as the tests run it: ENDPOINTS_FILE names a file no start writes (vitest.config.ts), so no running start pins it. */
const verify = (...args: string[]) => verifyIn(process.env, ...args);

const serviceKey = keyFileServiceSigner(undefined);
const attackerKey = keyFileServiceSigner(undefined);
let service: Awaited<ReturnType<typeof jwksServer>>;
let attacker: Awaited<ReturnType<typeof jwksServer>>;
let dir: string;
let serviceJwksFile: string;
let honest: string;

beforeAll(async () => {
  service = await jwksServer(await jwks(serviceKey));
  attacker = await jwksServer(await jwks(attackerKey));
  dir = mkdtempSync(join(tmpdir(), 'verify-receipt-'));
  serviceJwksFile = join(dir, 'jwks.json');
  writeFileSync(serviceJwksFile, JSON.stringify(await jwks(serviceKey)));
  honest = await signReceipt(row, service.base, serviceKey, () => undefined);
});
// Each test looks at what it alone asked of the two servers.
beforeEach(() => {
  service.asked.length = 0;
  attacker.asked.length = 0;
});
afterAll(() => {
  service.server.close();
  attacker.server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a forged receipt whose iss only looks like the service', () => {
  // The attacker's own host, with the service's base URL in its path or its query: fetching `<iss>/.well-known/jwks.json` reaches the attacker.
  const forms = () => [`${attacker.base}/http/${service.base.slice('http://'.length)}`, `${attacker.base}?${service.base}`];

  it('is refused without --issuer or --jwks: the receipt was not pinned, so nothing is fetched from the issuer it names', async () => {
    const outcomes = [];
    for (const iss of forms()) {
      const out = await verify(await signReceipt(row, iss, attackerKey, () => undefined));
      outcomes.push({ iss, code: out.code, stdout: out.stdout, stderr: out.stderr.trim() });
    }
    expect(outcomes).toEqual(forms().map((iss) => ({ iss, code: 1, stdout: '', stderr: NOT_PINNED })));
    expect(attacker.asked).toEqual([]);
  });

  it('is refused when pinned to the service, by --issuer (its JWKS, never the attacker’s) or by --jwks', async () => {
    for (const iss of forms()) {
      const forged = await signReceipt(row, iss, attackerKey, () => undefined);
      const byIssuer = await verify(forged, '--issuer', service.base);
      expect(byIssuer.code, `${iss}: ${byIssuer.stdout}`).toBe(1);
      expect(byIssuer.stdout).toBe('');
      expect(byIssuer.stderr.trim().split('\n')).toHaveLength(1);
      const byFile = await verify(forged, '--jwks', serviceJwksFile);
      expect(byFile.code, `${iss}: ${byFile.stdout}`).toBe(1);
    }
    expect(attacker.asked).toEqual([]);
    expect(service.asked.every((path) => path === '/.well-known/jwks.json')).toBe(true);
  });
});

describe('an honest receipt', () => {
  it('verifies with --issuer the exact base URL: the claims printed, exit 0', async () => {
    const out = await verify(honest, '--issuer', service.base);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ iss: service.base, sub: row.skill, tx: row.txHash });
  });

  it('is refused with neither --issuer nor --jwks, in one sentence saying it was not pinned', async () => {
    const out = await verify(honest);
    expect(out).toMatchObject({ code: 1, stdout: '' });
    expect(out.stderr.trim()).toBe(NOT_PINNED);
  });

  it('with neither option beside a running npm start, is checked against the service that start serves (its endpoints file), never the receipt’s issuer', async () => {
    const file = join(dir, 'endpoints.json');
    // This test's process stands for the running start: the file is read while its process runs.
    writeEndpoints(file, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      baseUrl: service.base,
      rpcUrls: [],
      dynamodbEndpoint: 'http://127.0.0.1:9',
      dataDir: null,
      settings: {},
    });
    const beside = { ...process.env, ENDPOINTS_FILE: file };
    const out = await verifyIn(beside, honest);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ iss: service.base, tx: row.txHash });
    for (const iss of [`${attacker.base}/http/${service.base.slice('http://'.length)}`, attacker.base]) {
      const forged = await verifyIn(beside, await signReceipt(row, iss, attackerKey, () => undefined));
      expect(forged).toMatchObject({ code: 1, stdout: '' });
    }
    expect(attacker.asked).toEqual([]);
  });

  it('verifies with --jwks alone (the file pins the key), and with --issuer too only if iss equals it', async () => {
    const byFile = await verify(honest, '--jwks', serviceJwksFile);
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(JSON.parse(byFile.stdout).iss).toBe(service.base);
    const both = await verify(honest, '--jwks', serviceJwksFile, '--issuer', service.base);
    expect(both.code, both.stderr).toBe(0);
    const other = await verify(honest, '--jwks', serviceJwksFile, '--issuer', 'https://market.example');
    expect(other).toMatchObject({ code: 1, stdout: '' });
    expect(other.stderr.trim()).toBe(
      `The receipt’s issuer ${service.base} is not the pinned issuer https://market.example: it does not come from the service you named.`,
    );
  });

  it('signed by the service key for another issuer is refused when pinned to this one: iss is compared after the signature verifies', async () => {
    const elsewhere = await signReceipt(row, 'https://market.example', serviceKey, () => undefined);
    const out = await verify(elsewhere, '--issuer', service.base);
    expect(out).toMatchObject({ code: 1, stdout: '' });
    expect(out.stderr.trim()).toBe(
      `The receipt’s issuer https://market.example is not the pinned issuer ${service.base}: it does not come from the service you named.`,
    );
    // Exactly: a base URL with a trailing slash is another string than the issuer the service signs.
    const slash = await verify(honest, '--jwks', serviceJwksFile, '--issuer', `${service.base}/`);
    expect(slash.code).toBe(1);
  });
});
