/**
 * Verify before writing (issue 52): `npm run buy` checks the files it was delivered against the signed
 * provenance of their version and, when one byte differs, writes nothing (no file, no license, no
 * receipt), exits 1 and names the file in one sentence; the README's `verify-before-writing` snippet
 * (a stock x402 client's purchase, then `verifyPack`, then the writes) throws and writes nothing too.
 *
 * A test proxy stands between the buyer and the local stack: it passes every request on, and on the
 * way back alters one byte of SKILL.md in an unlock's `sealed_pack.files` (while `tamper` is on).
 * The provenance and the key are the service's own (GET /api/packs/provenance, /.well-known/jwks.json),
 * passed through untouched; with `provenanceServed` off the proxy answers the provenance route 404, as
 * a service that publishes none would. The buyer goes through the proxy with `--no-sign`: a
 * SIGN-IN-WITH-X message names the service's own base URL, which the proxy's is not.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, erc20Abi, http } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';
import { testAccount } from '../../local/anvil';
import { buy } from '../../local/buy';
import { chainTools } from '../support/chain';
import { runReadmeSnippet } from '../support/readme-snippets';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKILL = 'csv-cleaner';
const TAMPERED_AT = 20;

/** The built packs (the current version of each) and the version store's list, as the build wrote them. */
const packs = (): Record<string, Record<string, string>> => JSON.parse(readFileSync(join(root, 'dist/sealed/packs.json'), 'utf8'));
const versions = (): Record<string, { version: number; digest: string }[]> =>
  JSON.parse(readFileSync(join(root, 'dist/catalog/versions.json'), 'utf8'));

const body = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** The one-byte change the proxy makes: the character at TAMPERED_AT of SKILL.md. */
const tamper = (text: string): string => text.slice(0, TAMPERED_AT) + (text[TAMPERED_AT] === 'x' ? 'y' : 'x') + text.slice(TAMPERED_AT + 1);

let proxy: Server;
let proxyUrl: string;
let tampering = true;
/** Off: the proxy answers GET /api/packs/provenance 404, as a service that publishes none. */
let provenanceServed = true;
const asked: string[] = [];

beforeAll(async () => {
  const target = inject('baseUrl').replace(/\/$/, '');
  proxy = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://proxy');
      asked.push(`${req.method} ${url.pathname}`);
      const send = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === '/api/packs/provenance' && !provenanceServed) return send(404, { ok: false, error: 'not_found' });
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>;
      const payload = req.method === 'GET' || req.method === 'HEAD' ? null : new Uint8Array(await body(req));
      const answer = await fetch(`${target}${url.pathname}${url.search}`, { method: req.method ?? 'GET', headers, body: payload });
      let text = await answer.text();
      if (url.pathname === '/api/pay' && answer.status === 200) {
        const unlock = JSON.parse(text) as { sealed_pack?: { files?: Record<string, string> } };
        const files = unlock.sealed_pack?.files;
        if (tampering && files?.['SKILL.md'] !== undefined) files['SKILL.md'] = tamper(files['SKILL.md']);
        text = JSON.stringify(unlock);
      }
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
      });
      res.writeHead(answer.status, out);
      res.end(text);
    })().catch((e: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

/** `npm run buy -- <args>` as a person runs it: its exit code and what it printed. */
const buyCli = (...args: string[]): Promise<{ code: number; out: string; err: string }> =>
  new Promise((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', 'local/buy.ts', ...args], { cwd: root }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
    ),
  );

async function fundedBuyer(index: number) {
  const account = testAccount(index);
  const chain = chainTools(inject('rpcUrl'));
  await chain.setTokenBalance(inject('usdc') as `0x${string}`, account.address, 10n ** 8n);
  await chain.setEthBalance(account.address, 10n ** 18n);
  return account;
}

/**
 * Runs the README's `verify-before-writing` snippet as written against the proxy, with `account`
 * paying, in a directory of its own (the snippet writes under ./packs/; the helper it imports is
 * saved beside it, as the README says); answers that directory and what the run threw, if anything.
 */
async function runVerifySnippet(account: unknown): Promise<{ cwd: string; error: Error | undefined }> {
  const cwd = mkdtempSync(join(tmpdir(), 'snippet-'));
  const was = process.cwd();
  process.chdir(cwd);
  try {
    await runReadmeSnippet('verify-before-writing', { baseUrl: proxyUrl, scope: { account } });
    return { cwd, error: undefined };
  } catch (e) {
    return { cwd, error: e as Error };
  } finally {
    process.chdir(was);
  }
}

describe('the README snippet verifies before writing', () => {
  it('throws on the changed byte, naming the file, and writes nothing; unchanged, it writes the pack', async () => {
    tampering = true;
    const refused = await runVerifySnippet(await fundedBuyer(142));
    expect(refused.error?.message).toMatch(/^SKILL\.md does not match the signed statement of proof-ledger-publisher@\d+ \(sha256 /);
    expect(readdirSync(refused.cwd)).toEqual([]);

    tampering = false;
    const written = await runVerifySnippet(await fundedBuyer(143));
    expect(written.error).toBeUndefined();
    const pack = packs()['proof-ledger-publisher']!;
    expect(readdirSync(join(written.cwd, 'packs', 'proof-ledger-publisher'), { recursive: true }).length).toBeGreaterThanOrEqual(
      Object.keys(pack).length,
    );
    for (const [path, text] of Object.entries(pack))
      expect(readFileSync(join(written.cwd, 'packs', 'proof-ledger-publisher', path), 'utf8')).toBe(text);
  });
});

describe('npm run buy verifies before writing', () => {
  it('a pack with one byte changed: pays, then writes nothing (no file, no license, no receipt), exit 1 naming the file', async () => {
    tampering = true;
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    const account = await fundedBuyer(140);
    const usdc = inject('usdc') as `0x${string}`;
    const pub = createPublicClient({ transport: http(inject('rpcUrl')) });
    const before = await pub.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });

    const run = await buyCli(
      SKILL,
      '--base-url',
      proxyUrl,
      '--rpc-url',
      inject('rpcUrl'),
      '--key',
      account.privateKey,
      '--out',
      out,
      '--no-sign',
    );

    expect(run.code, run.out + run.err).toBe(1);
    const version = versions()[SKILL]!.find((v) => v.digest === packSeal(packFiles(packs()[SKILL]!)))!.version;
    expect(run.err).toMatch(
      new RegExp(
        `^buy failed: Refused ${SKILL}: SKILL\\.md does not match the signed statement of ${SKILL}@${version} \\(sha256 [0-9a-f]{64}, signed [0-9a-f]{64}\\); nothing was written, what you paid for stays yours, and npm run buy -- ${SKILL} again gets the pack as its owner without paying\\.\\n$`,
      ),
    );
    expect(readdirSync(out)).toEqual([]);
    // It paid (the unlock came back, one byte changed on the way) and asked for the provenance before writing.
    expect(await pub.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] })).toBeLessThan(
      before,
    );
    expect(run.out).toMatch(/^\[6\/8\] unlock: \d+ files/m);
    expect(run.out).not.toMatch(/^\[7\/8\]/m);
    expect(asked).toEqual(expect.arrayContaining(['POST /api/pay', 'GET /api/packs/provenance', 'GET /.well-known/jwks.json']));
  });

  it('a service that publishes no provenance: nothing is written either, and the sentence says so', async () => {
    tampering = false;
    provenanceServed = false;
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    try {
      const opts = { skill: SKILL, baseUrl: proxyUrl, rpcUrl: inject('rpcUrl'), asset: 'USDC' as const, outDir: out, sign: false };
      await expect(buy({ ...opts, account: await fundedBuyer(144) }, () => undefined)).rejects.toThrow(
        new RegExp(
          `^Refused ${SKILL}: ${proxyUrl.replace(/\./g, '\\.')} publishes no signed provenance for it \\(GET /api/packs/provenance answered 404\\); nothing was written`,
        ),
      );
      expect(readdirSync(out)).toEqual([]);
    } finally {
      provenanceServed = true;
    }
  });

  it('the same proxy without the change: the files are verified against the same provenance, then written', async () => {
    tampering = false;
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    const lines: string[] = [];
    const result = await buy(
      {
        skill: SKILL,
        baseUrl: proxyUrl,
        rpcUrl: inject('rpcUrl'),
        account: await fundedBuyer(141),
        asset: 'USDC',
        outDir: out,
        sign: false,
      },
      (l) => lines.push(l),
    );
    expect(lines.find((l) => l.startsWith('[7/8]'))).toMatch(
      new RegExp(`after verifying them against the signed provenance of ${SKILL}@\\d+`),
    );
    expect(readdirSync(out).sort()).toEqual([SKILL, `${SKILL}.receipt.json`, `${SKILL}.receipt.jws`]);
    expect(readFileSync(join(out, SKILL, 'SKILL.md'), 'utf8')).toBe(packs()[SKILL]!['SKILL.md']);
    expect(result.files.sort()).toEqual(Object.keys(packs()[SKILL]!).sort());
  });
});
