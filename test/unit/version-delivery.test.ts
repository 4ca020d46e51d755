/**
 * Issue 52's acceptance, at the level of payments' ports: edit one authored skill and rebuild, and
 * the earlier version's bytes still download for its buyers, by the version their receipt names,
 * and the seal matches. The rebuild runs over copies of catalog/skills and catalog/versions (the
 * repository's store is never touched); the functions' own adapters (the built catalog, the bundled
 * packs, the content-addressed version store, jose licenses, the service key) read the rebuilt
 * trees; only the ledger is a fake holding the two buyers' rows. The attacker's cases come first.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../catalog/build';
import { writeTree } from '../../catalog/write-tree';
import { loadVersionStore, VERSIONS_DIR, writeVersions } from '../../catalog/versions';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';
import type { PackVersionRecord } from '../../lambdas/contract/pack-versions';
import type { LedgerRow } from '../../lambdas/ledger';
import { keyFileServiceSigner } from '../../lambdas/ledger/adapters/key-file-service-signer';
import { filePackStore } from '../../lambdas/payments/adapters/file-pack-store';
import { filePackVersionStore } from '../../lambdas/payments/adapters/file-pack-version-store';
import { joseLicenses } from '../../lambdas/payments/adapters/jose-licenses';
import { fileLicenseSecret } from '../../lambdas/payments/adapters/license-secret';
import { readVersionParam } from '../../lambdas/payments/pack-version';
import type { PaymentsPorts } from '../../lambdas/payments/ports';
import { unlockWithProof } from '../../lambdas/payments/unlock';
import { readMarketConfig } from '../../lambdas/platform/config';
import { AppError } from '../../lambdas/platform/errors';

const SKILLS = fileURLToPath(new URL('../../catalog/skills', import.meta.url));
const BASE = 'https://m.example';
const NOW = new Date('2026-12-01T09:00:00Z');
const reading = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });

let work: string;
let ports: PaymentsPorts;
let edited: string;
let other: string;
let v1: PackVersionRecord;
let v2: PackVersionRecord;
const rows = new Map<string, LedgerRow>();

const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
function rowOf(n: number, skill: string, packSeal: string, payer = `0x${'1'.repeat(40)}`): LedgerRow {
  const row: LedgerRow = {
    network: 'base',
    txHash: tx(n),
    skill,
    amount: '1000000',
    price: '1000000',
    asset: 'USDC',
    assetContract: reading.config.assets.USDC!,
    payer,
    blockNumber: '100',
    blockHash: `0x${'b'.repeat(64)}`,
    logIndex: 0,
    confirmations: 3,
    recordedAt: '2026-11-20T10:00:00.000Z',
    status: 'confirmed',
    final: true,
    claimSource: 'someone-else',
    packSeal,
  };
  rows.set(row.txHash, row);
  return row;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const licenseFor = (row: LedgerRow) =>
  ports.licenses.issue({ network: row.network, txHash: row.txHash, skill: row.skill, payer: row.payer, seal: row.packSeal! });
const redeem = (license: string, version?: number, skill?: string) =>
  unlockWithProof({ txHash: undefined, skill, license, version }, ports, BASE).then((u) => u.body as any);
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'version-delivery-'));
  cpSync(SKILLS, join(work, 'skills'), { recursive: true });
  cpSync(VERSIONS_DIR, join(work, 'versions'), { recursive: true });
  const file = join(work, 'skills', 'data.json');
  const records = JSON.parse(readFileSync(file, 'utf8')) as { id: string; outcome: string }[];
  edited = records[0]!.id;
  other = records[1]!.id;
  records[0]!.outcome = `${records[0]!.outcome} Now with a second pass over the edge cases.`;
  writeFileSync(file, JSON.stringify(records, null, 2));

  // The rebuild: version 2 of the edited skill is published into the copy of the store, and the
  // trees a deploy ships (catalog data, bundled packs, the content-addressed store) are written.
  const built = await buildCatalog({ skillsDir: join(work, 'skills'), versionsDir: join(work, 'versions'), now: NOW });
  writeVersions(built.addedVersions, join(work, 'versions'));
  writeTree(join(work, 'dist', 'catalog'), built.catalogFiles);
  writeTree(join(work, 'dist', 'versions'), built.versionFiles);
  writeTree(join(work, 'dist', 'sealed'), new Map([['packs.json', JSON.stringify(Object.fromEntries(built.packs))]]));
  [v1, v2] = loadVersionStore(join(work, 'versions')).get(edited)! as [PackVersionRecord, PackVersionRecord];

  ports = {
    config: reading.config,
    configReading: reading,
    catalog: loadCatalogFiles(join(work, 'dist', 'catalog')),
    packs: filePackStore(join(work, 'dist', 'sealed')),
    versions: filePackVersionStore(join(work, 'dist', 'versions')),
    licenses: joseLicenses(fileLicenseSecret(join(work, 'license-secret'), () => {})),
    ledger: {
      get: async (_network: string, txHash: string) => rows.get(txHash),
      owned: async () => undefined,
    },
    cardSales: { get: async () => undefined },
    serviceSigner: keyFileServiceSigner(undefined),
    now: () => NOW,
  } as unknown as PaymentsPorts;
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a re-download by version (issue 52): the attacker first', () => {
  it('refuses a version that is no version number (0, -1, 1e9, 2abc, empty) with 400 naming `version`', () => {
    for (const raw of ['0', '-1', '1e9', '2abc', '', ' 1', '01', '1.0', '0x1']) {
      const e = (() => {
        try {
          readVersionParam(raw);
        } catch (err) {
          return err as AppError;
        }
        return undefined;
      })();
      expect(e, raw).toBeInstanceOf(AppError);
      expect(e!.status, raw).toBe(400);
      expect(e!.details, raw).toMatchObject({ parameter: 'version' });
    }
    expect(readVersionParam(undefined)).toBeUndefined();
    expect(readVersionParam('2')).toBe(2);
  });

  it('a license for one skill asking for a version of another gets nothing (403 INVALID_LICENSE)', async () => {
    const license = await licenseFor(rowOf(10, other, loadVersionStore(join(work, 'versions')).get(other)![0]!.digest));
    const e = await refusal(redeem(license, 1, edited));
    expect([e.status, e.code]).toEqual([403, 'INVALID_LICENSE']);
  });

  it('a version number and txHash from someone else’s receipt, without the license or the wallet, get nothing (403 BUYER_PROOF_REQUIRED)', async () => {
    const victim = rowOf(11, edited, v1.digest);
    const e = await refusal(
      unlockWithProof({ txHash: victim.txHash as `0x${string}`, skill: edited, license: undefined, version: 1 }, ports, BASE, {
        sourceIp: '203.0.113.9',
      }),
    );
    expect([e.status, e.code]).toEqual([403, 'BUYER_PROOF_REQUIRED']);
  });

  it('a license bought at version 2 asking for version 1 is refused (403 VERSION_NOT_COVERED); a version never published is 404', async () => {
    const license = await licenseFor(rowOf(12, edited, v2.digest));
    const old = await refusal(redeem(license, 1));
    expect([old.status, old.code]).toEqual([403, 'VERSION_NOT_COVERED']);
    expect(old.details).toMatchObject({ covered: [2] });
    const none = await refusal(redeem(license, 3));
    expect([none.status, none.code]).toEqual([404, 'VERSION_NOT_FOUND']);
    expect((await redeem(license, 2)).seal).toBe(v2.digest);
  });
});

describe('edit one skill and rebuild: the earlier version still downloads for its buyers', () => {
  it('publishes version 2, and the listings say so', () => {
    expect([v1.version, v2.version, v2.published]).toEqual([1, 2, '2026-12-01']);
    expect(v2.digest).not.toBe(v1.digest);
    expect(ports.catalog.packMeta(edited)!.seal).toBe(v2.digest);
    expect(ports.catalog.versions(edited)!.map((v) => v.version)).toEqual([1, 2]);
  });

  it("a version 1 buyer's receipt names version 1; asking for it gets exactly those bytes (each file's sha256 and the seal), and the default gives version 2", async () => {
    const row = rowOf(20, edited, v1.digest);
    const license = await licenseFor(row);
    const current = await redeem(license);
    // The receipt (signed again from the row, as every delivery does) names the version the sale bought.
    const receipt = decodeJwt(current.receipt) as { pack: { seal: string; version: number } };
    expect(receipt.pack).toEqual({ seal: v1.digest, version: 1 });

    expect(current.version).toEqual({ number: 2, digest: `sha256:${v2.digest}`, published: '2026-12-01' });
    expect(current.seal).toBe(v2.digest);
    expect(packSeal(packFiles(current.sealed_pack.files))).toBe(v2.digest);

    const old = await redeem(license, receipt.pack.version);
    expect(old.version).toEqual({ number: 1, digest: `sha256:${receipt.pack.seal}`, published: v1.published });
    expect(old.seal).toBe(receipt.pack.seal);
    expect(old.sealed_pack.seal).toBe(receipt.pack.seal);
    expect(old.sealed_pack.files).toEqual(v1.pack);
    const files = old.sealed_pack.files as Record<string, string>;
    expect(Object.fromEntries(Object.entries(files).map(([p, t]) => [p, sha256(t)]))).toEqual(
      Object.fromEntries(v1.files.map((f) => [f.path, f.sha256])),
    );
    expect(packSeal(packFiles(files))).toBe(receipt.pack.seal);
    expect(old.sealed_pack.files).not.toEqual(current.sealed_pack.files);
  });

  it('the seal delivered is always the version’s digest: a bundled copy that is not the current version’s bytes is not served', async () => {
    const row = rowOf(21, edited, v1.digest);
    const license = await licenseFor(row);
    const tampered = { ...ports, packs: { get: () => ({ ...v2.pack, 'SKILL.md': `${v2.pack['SKILL.md']} ` }) } } as PaymentsPorts;
    const body = (await unlockWithProof({ txHash: undefined, skill: undefined, license, version: undefined }, tampered, BASE)).body as any;
    expect(body.sealed_pack.files).toEqual(v2.pack);
    expect(packSeal(packFiles(body.sealed_pack.files))).toBe(v2.digest);
  });
});
