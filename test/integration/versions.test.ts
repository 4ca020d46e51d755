/**
 * Pack versions through the local stack (issue 52): the listings name each skill's version, a
 * purchase delivers the current one and its receipt names it, and every re-download path takes
 * `version=<n>` with the error codes docs/ACCESS.md ("Versions") lists. The stack serves the
 * committed store, where every pack is at version 1; a rebuild with an edited skill (version 2,
 * and a version 1 buyer fetching version 1's bytes) is test/unit/version-delivery.test.ts, through
 * the same ports over a rebuilt copy. The buyer is a fresh account of the test mnemonic (93), and
 * the skill one no other file buys.
 */
import { decodeJwt } from 'jose';
import { parseEther, type Address } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const chain = chainTools(inject('rpcUrl'));
const SKILL = 'random-effects-meta-analysis';
const BUYER = 93;

const getJson = async (path: string) => (await (await fetch(`${base}${path}`)).json()) as any;
const post = async (path: string, headers: Record<string, string>) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers });
  return { status: res.status, body: (await res.json()) as any };
};

let bought: { license: string; tx: string; seal: string };

describe('pack versions through the local stack', () => {
  it('/catalog.json and /api/packs name the current version, its day and digest, and list the earlier ones', async () => {
    const packs = await getJson(`/api/packs?skill=${SKILL}`);
    expect(packs.version).toMatchObject({ number: 1, digest: `sha256:${packs.seal.value}`, file_count: packs.file_count });
    expect(packs.version.published).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(packs.earlier_versions).toEqual([]);
    const catalog = await getJson('/catalog.json');
    const entry = catalog.skills.find((s: any) => s.id === SKILL);
    expect(entry.version).toEqual({ number: 1, digest: `sha256:${packs.seal.value}`, published: packs.version.published });
    expect(entry.earlier_versions).toEqual([]);
  });

  it('a purchase delivers the current version and its receipt names it; a license re-download takes version=', async () => {
    const price = BigInt((await getJson(`/api/pay?skill=${SKILL}`)).accepts[0].maxAmountRequired);
    const account = testAccount(BUYER);
    await chain.setTokenBalance(USDC, account.address, price);
    await chain.setEthBalance(account.address, parseEther('1'));
    const tx = await chain.transfer(BUYER, USDC, TREASURY, price);
    // A purchase asking for a version still gets the current one.
    const paid = await post('/api/pay?version=1', { 'x-payment': JSON.stringify({ txHash: tx, skill: SKILL }) });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.version).toMatchObject({ number: 1, digest: `sha256:${paid.body.seal}` });
    expect(decodeJwt(paid.body.receipt)['pack']).toEqual({ seal: paid.body.seal, version: 1 });
    bought = { license: paid.body.license.token, tx, seal: paid.body.seal };

    for (const path of ['/api/pay?version=1', '/api/recover?version=1', '/api/pay']) {
      const again = await post(path, { 'x-license': bought.license });
      expect(again.status, path).toBe(200);
      expect(again.body.seal, path).toBe(bought.seal);
      expect(again.body.version.number, path).toBe(1);
    }
  });

  it('version= that is not a number is 400 naming it, one never published 404 VERSION_NOT_FOUND, on every re-download path', async () => {
    for (const raw of ['0', '-1', '1e9', '2abc']) {
      const res = await post(`/api/pay?version=${encodeURIComponent(raw)}`, { 'x-license': bought.license });
      expect([res.status, res.body.error_code, res.body.details?.parameter], raw).toEqual([400, 'INVALID_REQUEST', 'version']);
    }
    const none = await post('/api/recover?version=2', { 'x-license': bought.license });
    expect([none.status, none.body.error_code, none.body.error, none.body.ok]).toEqual([
      404,
      'VERSION_NOT_FOUND',
      'version_not_found',
      false,
    ]);
    // The buyer's own transfer again (a replay from the same caller, inside its retry window).
    const replay = await post('/api/pay?version=2', { 'x-payment': JSON.stringify({ txHash: bought.tx, skill: SKILL }) });
    expect([replay.status, replay.body.error_code]).toEqual([404, 'VERSION_NOT_FOUND']);
  });

  it('the purchases page offers every version the license covers, each downloadable by its number', async () => {
    const res = await fetch(`${base}/api/purchases`, { headers: { 'x-license': bought.license } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    const [purchase] = body.purchases;
    expect(purchase.versions).toEqual([
      {
        number: 1,
        digest: `sha256:${bought.seal}`,
        published: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        current: true,
        bought: true,
        download: { method: 'POST', url: `${base}/api/pay?version=1`, header: 'X-LICENSE' },
      },
    ]);
    const download = await post(new URL(purchase.versions[0].download.url).pathname + '?version=1', { 'x-license': bought.license });
    expect(download.body.seal).toBe(bought.seal);
  });
});
