/**
 * MCP's Skills extension (SEP-2640) with x402's payment on `skills/get`, through the local stack,
 * with clients nobody here wrote: the MCP SDK's `Client` (`client.request` with the SEP's shapes)
 * and `@x402/core`'s `x402Client` with the exact EVM scheme. Buy and install in one call: the files'
 * SHA-256 must equal the listing, the signed receipt's seal and the version's provenance subjects.
 *
 * The attacker's cases come first in each block: a copied `_meta` payment replayed by another
 * caller, an owner's copied sign-in used by another caller, a payment for one skill presented for
 * another. Another caller is another loopback source address (test/support/source-address.ts).
 *
 * Buyers are fresh accounts funded by writing their token balance; the two skills are ones no
 * other test file buys.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client } from '@x402/core/client';
import { x402HTTPClient } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { unzipSync } from 'fflate';
import { compactVerify, createLocalJWKSet } from 'jose';
import { createPublicClient, erc20Abi, http, type Address, type LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { localChain } from '../../local/local-chain';
import { signInWithXHeader } from '../../local/sign-in-with-x';
import { CATALOG_DIR, VERSIONS_DIST_DIR } from '../../lambdas/contract/data-dirs';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';
import { versionObjectKey, type PackVersionRecord, type VersionIndex } from '../../lambdas/contract/pack-versions';
import { chainTools } from '../support/chain';
import { requestFrom } from '../support/source-address';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) });
const chainTool = chainTools(rpcUrl);

/** Two 0.25 USDC skills no other test file buys. */
const SKILL = 'bibtex-library-normalisation';
const OTHER = 'bluf-decision-memo';
const PRICE = 250000n;

const freshBuyer = (amount = 10n ** 9n): Promise<LocalAccount> => chainTool.freshWallet(USDC, amount);
const balance = (who: Address) => pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function payer(account: LocalAccount) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  return client;
}

/** SEP-2640's shapes, as a client declares them. */
const Entry = z.object({
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.array(z.object({ uri: z.string(), digest: z.string() })),
  _meta: z.optional(z.record(z.string(), z.unknown())),
});
const ListResult = z.object({ skills: z.array(Entry), nextCursor: z.optional(z.string()) });
const GetResult = z.looseObject({
  skill: Entry,
  contents: z.array(z.object({ uri: z.string(), mimeType: z.string(), text: z.string() })),
  _meta: z.record(z.string(), z.unknown()),
});
type Got = z.infer<typeof GetResult>;

/** A fetch from another loopback address: another caller, as the edge sees it. */
const fetchFrom =
  (address: string) =>
  async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const res = await requestFrom(address, String(url), { method: init?.method ?? 'GET', headers, ...(body ? { body } : {}) });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
    return new Response(res.status === 202 || res.status === 204 || res.text === '' ? null : res.text, {
      status: res.status,
      headers: out,
    });
  };

let buyerMcp: Client;
let intruderMcp: Client;
beforeAll(async () => {
  buyerMcp = new Client({ name: 'skills-buyer', version: '1.0.0' });
  await buyerMcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
  intruderMcp = new Client({ name: 'skills-intruder', version: '1.0.0' });
  await intruderMcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { fetch: fetchFrom('127.0.0.2') }));
});
afterAll(async () => {
  await buyerMcp?.close();
  await intruderMcp?.close();
});

const uriOf = (skill: string) => `skill://${skill}/SKILL.md`;
const get = (mcp: Client, skill: string, meta?: Record<string, unknown>) =>
  mcp.request({ method: 'skills/get', params: { uri: uriOf(skill), ...(meta ? { _meta: meta } : {}) } }, GetResult);
/** The x402 payment-required error of an unpaid `skills/get`: its PaymentRequired. */
async function required(skill: string): Promise<any> {
  const e: any = await get(buyerMcp, skill).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e?.code, String(e)).toBe(402);
  return e.data;
}

async function listed(skill: string) {
  let cursor: string | undefined;
  do {
    const page = await buyerMcp.request({ method: 'skills/list', params: cursor ? { cursor } : {} }, ListResult);
    const hit = page.skills.find((s) => s.uri === uriOf(skill));
    if (hit) return hit;
    cursor = page.nextCursor;
  } while (cursor);
  throw new Error(`${skill} is not listed`);
}

/** The files a paid `skills/get` delivered, by path. */
const filesOf = (got: Got, skill: string): Record<string, string> =>
  Object.fromEntries(got.contents.map((c) => [c.uri.slice(`skill://${skill}/`.length), c.text]));

/** What a version's provenance subjects must be: the pack (digest = seal), then one per file with its sha256. */
function expectedSubjects(record: PackVersionRecord) {
  return [{ digest: { sha256: record.digest } }, ...record.files.map((f) => ({ name: f.path, digest: { sha256: f.sha256 } }))];
}
const currentRecord = (skill: string): PackVersionRecord => {
  const index = JSON.parse(readFileSync(join(CATALOG_DIR, 'versions.json'), 'utf8')) as VersionIndex;
  const digest = index[skill]!.at(-1)!.digest;
  return JSON.parse(readFileSync(join(VERSIONS_DIST_DIR, versionObjectKey(digest)), 'utf8')) as PackVersionRecord;
};

describe("MCP's Skills extension, paid with x402", () => {
  let buyer: LocalAccount;
  let payment: any;
  let bought: Got;
  let tx: string;

  it('skills/list gives the 250 skills with a digest for every file', async () => {
    const all: z.infer<typeof Entry>[] = [];
    let cursor: string | undefined;
    do {
      const page = await buyerMcp.request({ method: 'skills/list', params: cursor ? { cursor } : {} }, ListResult);
      all.push(...page.skills);
      cursor = page.nextCursor;
    } while (cursor);
    expect(all).toHaveLength(250);
    for (const s of all) {
      expect(s.resources.length).toBeGreaterThan(0);
      for (const r of s.resources) expect(r.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it("skills/get unpaid is x402's payment-required error: the PaymentRequired GET /api/pay carries, and no file", async () => {
    const asked = await required(SKILL);
    const http402 = await fetch(`${base}/api/pay?skill=${SKILL}`);
    expect(http402.status).toBe(402);
    const header = JSON.parse(Buffer.from(http402.headers.get('payment-required')!, 'base64').toString('utf8'));
    expect(asked).toMatchObject({ x402Version: 2, error: 'payment_required' });
    expect(asked.accepts).toEqual(header.accepts);
    expect(asked.resource).toEqual(header.resource);
    expect(asked.accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:8453', amount: String(PRICE) });
    // A skill:// file read is the same sale.
    await expect(buyerMcp.readResource({ uri: uriOf(SKILL) })).rejects.toMatchObject({ code: 402 });
  });

  it('a payment signed for one skill buys nothing on skills/get of another, and is not settled', async () => {
    const account = await freshBuyer();
    const before = await balance(account.address);
    const forSkill = await payer(account).createPaymentPayload(await required(SKILL));
    const refused: any = await get(buyerMcp, OTHER, { 'x402/payment': forSkill }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused, 'a payment for another skill must not buy this one').toBeDefined();
    expect(refused.data?.contents).toBeUndefined();
    expect(await balance(account.address)).toBe(before);
  });

  it('a fresh buyer pays with _meta["x402/payment"] and installs in the same call: files equal the listing, the receipt and the version', async () => {
    buyer = await freshBuyer();
    const before = await balance(buyer.address);
    payment = await payer(buyer).createPaymentPayload(await required(SKILL));
    bought = await get(buyerMcp, SKILL, { 'x402/payment': payment });

    // The entry is the listing's, and every delivered file hashes to its listed digest; none is missing or extra.
    const entry = await listed(SKILL);
    expect(bought.skill).toEqual(entry);
    expect(bought.contents.map((c) => c.uri).sort()).toEqual(entry.resources.map((r) => r.uri).sort());
    const digests = new Map(entry.resources.map((r) => [r.uri, r.digest]));
    for (const c of bought.contents) expect(`sha256:${sha256(c.text)}`).toBe(digests.get(c.uri));
    const files = filesOf(bought, SKILL);
    expect(files['SKILL.md']).toMatch(new RegExp(`^---\\nname: ${SKILL}\\n`));

    // x402's settlement response; the buyer paid the price once.
    const settled = bought._meta['x402/payment-response'] as any;
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(settled.payer.toLowerCase()).toBe(buyer.address.toLowerCase());
    tx = String(settled.transaction).toLowerCase();
    expect(await balance(buyer.address)).toBe(before - PRICE);

    // The signed receipt names the seal of exactly these files.
    const unlock = bought._meta['skill-market/unlock'] as any;
    expect(unlock.payment.txHash).toBe(tx);
    const keys = createLocalJWKSet((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as never);
    const { payload } = await compactVerify(unlock.receipt, keys, { algorithms: ['ES256'] });
    const claims = JSON.parse(new TextDecoder().decode(payload));
    expect(claims).toMatchObject({ sub: SKILL, tx });
    const seal = packSeal(packFiles(files));
    expect(claims.pack.seal).toBe(seal);
    expect(entry._meta?.['skill-market/pack']).toMatchObject({ digest: `sha256:${seal}` });

    // The current version's record: its digest is the seal, and its files (the provenance subjects) are these bytes.
    const record = currentRecord(SKILL);
    const subjects = expectedSubjects(record);
    expect(subjects[0]).toEqual({ digest: { sha256: seal } });
    expect(subjects.slice(1)).toEqual(
      Object.entries(files)
        .map(([name, text]) => ({ name, digest: { sha256: sha256(text) } }))
        .sort((a, b) => record.files.findIndex((f) => f.path === a.name) - record.files.findIndex((f) => f.path === b.name)),
    );
  });

  // Turned on at merge: the provenance route (issue 52, item 2) is another branch's. Until it is
  // routed here the edge answers 404 not_found and this case is skipped; any other answer is checked.
  it('the signed provenance of the version delivered names these files as its subjects', async (ctx) => {
    const res = await fetch(`${base}/api/packs/provenance?skill=${SKILL}`);
    const body = (await res.json()) as any;
    if (res.status === 404 && body?.error_code === 'not_found' && !/skill/i.test(String(body?.message))) ctx.skip();
    expect(res.status).toBe(200);
    const statements: any[] = [];
    const walk = (v: unknown): void => {
      if (!v || typeof v !== 'object') return;
      const o = v as Record<string, unknown>;
      if (typeof o['payload'] === 'string' && typeof o['payloadType'] === 'string') {
        statements.push(JSON.parse(Buffer.from(o['payload'], 'base64').toString('utf8')));
      }
      Object.values(o).forEach(walk);
    };
    walk(body);
    const files = filesOf(bought, SKILL);
    const seal = packSeal(packFiles(files));
    const withSubjects = statements.filter((s) => Array.isArray(s?.subject));
    expect(withSubjects.length).toBeGreaterThan(0);
    for (const s of withSubjects) {
      const byDigest = new Set(s.subject.map((x: any) => x.digest?.sha256));
      expect(byDigest.has(seal)).toBe(true);
      for (const text of Object.values(files)) expect(byDigest.has(sha256(text))).toBe(true);
      expect(s.subject).toHaveLength(Object.keys(files).length + 1);
    }
  });

  it('the copied _meta payment replayed by another caller gets no file; the buyer asking again gets the same files, charged nothing', async () => {
    const before = await balance(buyer.address);
    const stolen: any = await get(intruderMcp, SKILL, { 'x402/payment': payment }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(stolen, 'a copied payment must not deliver to another caller').toBeDefined();
    expect(stolen.code).toBe(403);
    expect(stolen.data).toMatchObject({ ok: false, error_code: 'BUYER_PROOF_REQUIRED' });
    expect(JSON.stringify(stolen.data)).not.toContain('SKILL.md');

    const again = await get(buyerMcp, SKILL, { 'x402/payment': payment });
    expect(again.contents).toEqual(bought.contents);
    expect(again._meta['x402/payment-response']).toMatchObject({ success: true, transaction: expect.stringMatching(new RegExp(tx, 'i')) });
    expect(await balance(buyer.address)).toBe(before);
  });

  it('an owner is not charged: a fresh payment gets the files and names the original sale; the copy of it gets nothing', async () => {
    const before = await balance(buyer.address);
    const fresh = await payer(buyer).createPaymentPayload(await required(SKILL));
    const owned = await get(buyerMcp, SKILL, { 'x402/payment': fresh });
    expect(owned.contents).toEqual(bought.contents);
    expect(owned._meta['skill-market/unlock']).toMatchObject({ access: { granted: true, charged_atomic: '0' } });
    expect(owned._meta['x402/payment-response']).toEqual({
      success: true,
      transaction: tx,
      network: 'eip155:8453',
      payer: buyer.address.toLowerCase(),
    });
    for (const mcp of [intruderMcp, buyerMcp]) {
      await expect(get(mcp, SKILL, { 'x402/payment': fresh })).rejects.toMatchObject({ code: expect.any(Number) });
    }
    expect(await balance(buyer.address)).toBe(before);
  });

  it("an owner's sign-in gets the files and nothing is settled; its copy by another caller, or on another skill, gets nothing", async () => {
    const before = await balance(buyer.address);
    const signIn = await signInWithXHeader({ account: buyer, baseUrl: base, skill: SKILL });
    const copy = signIn;
    const owned = await get(buyerMcp, SKILL, { 'x402/sign-in-with-x': signIn });
    expect(owned.contents).toEqual(bought.contents);
    expect(owned._meta['x402/payment-response']).toBeUndefined();
    await expect(get(intruderMcp, SKILL, { 'x402/sign-in-with-x': copy })).rejects.toMatchObject({ code: expect.any(Number) });

    // The wallet buys the other skill too; a sign-in made out for this one still gets nothing there.
    const other = await get(buyerMcp, OTHER, { 'x402/payment': await payer(buyer).createPaymentPayload(await required(OTHER)) });
    expect(other.contents.length).toBeGreaterThan(0);
    const spentOnOther = (await balance(buyer.address)) - before;
    expect(spentOnOther).toBe(-PRICE);
    const forSkill = await signInWithXHeader({ account: buyer, baseUrl: base, skill: SKILL });
    await expect(get(buyerMcp, OTHER, { 'x402/sign-in-with-x': forSkill })).rejects.toMatchObject({ code: expect.any(Number) });
    // And the payment that bought this skill buys nothing there either.
    await expect(get(buyerMcp, OTHER, { 'x402/payment': payment })).rejects.toMatchObject({ code: expect.any(Number) });

    // A skill:// file read by the owner: the one file, its digest the listing's.
    const read = await buyerMcp.readResource({
      uri: uriOf(SKILL),
      _meta: { 'x402/sign-in-with-x': await signInWithXHeader({ account: buyer, baseUrl: base, skill: SKILL }) },
    });
    const entry = await listed(SKILL);
    expect(read.contents).toHaveLength(1);
    expect(`sha256:${sha256((read.contents[0] as { text: string }).text)}`).toBe(
      entry.resources.find((r) => r.uri === uriOf(SKILL))!.digest,
    );
    expect(await balance(buyer.address)).toBe(before - PRICE);
  });
});

describe('/.well-known/agent-skills: the discovery index and its paid archives', () => {
  /** A 0.25 USDC skill no other test file buys. */
  const ARCHIVED = 'card-checkout-session-fallback';
  const archiveUrl = `${base}/.well-known/agent-skills/${ARCHIVED}/pack.zip`;
  let index: any;
  let buyer: LocalAccount;
  let signature: string;
  let zipDigest: string;

  it('lists the 250 packs in the draft v0.2.0 shape, each archive with its digest', async () => {
    const res = await fetch(`${base}/.well-known/agent-skills/index.json`);
    expect(res.status).toBe(200);
    index = await res.json();
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills).toHaveLength(250);
    const entry = index.skills.find((s: any) => s.name === ARCHIVED);
    expect(entry).toMatchObject({ type: 'archive', url: archiveUrl, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  });

  it("answers the archive unpaid with GET /api/pay's x402 challenge", async () => {
    const res = await fetch(archiveUrl);
    expect(res.status).toBe(402);
    const pay = await fetch(`${base}/api/pay?skill=${ARCHIVED}`);
    const decode = (r: Response) => JSON.parse(Buffer.from(r.headers.get('payment-required')!, 'base64').toString('utf8'));
    expect(decode(res).accepts).toEqual(decode(pay).accepts);
    expect(decode(res).resource).toEqual(decode(pay).resource);
  });

  it("paid by a stock x402 client: the archive's SHA-256 is the index digest, its files the listing's, the receipt's seal theirs", async () => {
    buyer = await freshBuyer();
    const before = await balance(buyer.address);
    const http402 = new x402HTTPClient(payer(buyer));
    const challenge = await fetch(archiveUrl);
    const required = http402.getPaymentRequiredResponse((name) => challenge.headers.get(name));
    signature = http402.encodePaymentSignatureHeader(await http402.createPaymentPayload(required))['PAYMENT-SIGNATURE']!;
    const res = await fetch(archiveUrl, { headers: { 'payment-signature': signature } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const zip = new Uint8Array(await res.arrayBuffer());
    zipDigest = `sha256:${createHash('sha256').update(zip).digest('hex')}`;
    expect(zipDigest).toBe(index.skills.find((s: any) => s.name === ARCHIVED).digest);
    const files = Object.fromEntries(Object.entries(unzipSync(zip)).map(([p, b]) => [p, new TextDecoder().decode(b)]));
    const entry = await listed(ARCHIVED);
    expect(
      Object.keys(files)
        .map((p) => `skill://${ARCHIVED}/${p}`)
        .sort(),
    ).toEqual(entry.resources.map((r) => r.uri).sort());
    for (const r of entry.resources) expect(`sha256:${sha256(files[r.uri.slice(`skill://${ARCHIVED}/`.length)]!)}`).toBe(r.digest);
    const keys = createLocalJWKSet((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as never);
    const { payload } = await compactVerify(res.headers.get('x-receipt')!, keys, { algorithms: ['ES256'] });
    expect(JSON.parse(new TextDecoder().decode(payload)).pack.seal).toBe(packSeal(packFiles(files)));
    expect(res.headers.get('payment-response')).toBeTruthy();
    expect(await balance(buyer.address)).toBe(before - PRICE);
  });

  it('the PAYMENT-SIGNATURE copied by another caller gets no archive; the owner signing in gets the same bytes and pays nothing', async () => {
    const before = await balance(buyer.address);
    const stolen = await requestFrom('127.0.0.3', archiveUrl, { headers: { 'payment-signature': signature } });
    expect(stolen.status).toBe(403);
    expect(stolen.body).toMatchObject({ error_code: 'BUYER_PROOF_REQUIRED' });
    const owner = await fetch(archiveUrl, {
      headers: { 'sign-in-with-x': await signInWithXHeader({ account: buyer, baseUrl: base, skill: ARCHIVED }) },
    });
    expect(owner.status).toBe(200);
    expect(
      `sha256:${createHash('sha256')
        .update(new Uint8Array(await owner.arrayBuffer()))
        .digest('hex')}`,
    ).toBe(zipDigest);
    expect(await balance(buyer.address)).toBe(before);
  });
});
