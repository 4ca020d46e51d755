/**
 * Issue 52: a pack whose bytes change becomes a new version, and a published version is never
 * changed. The build is run over copies of the authored skills and of the version store.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../catalog/build';
import { loadVersionStore, VERSIONS_DIR, VersionStoreError, writeVersions } from '../../catalog/versions';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';
import { coveredVersions } from '../../lambdas/contract/pack-versions';

const SKILLS = fileURLToPath(new URL('../../catalog/skills', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'versions-'));
  cpSync(SKILLS, join(work, 'skills'), { recursive: true });
  cpSync(VERSIONS_DIR, join(work, 'versions'), { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('pack versions', () => {
  it('the committed store is current: a build of the authored skills publishes nothing', async () => {
    const built = await buildCatalog();
    expect(built.addedVersions.map((v) => v.skill_id)).toEqual([]);
    expect(built.versions.size).toBe(250);
    for (const [id, vs] of built.versions) expect(vs.at(-1)!.digest, id).toBe(built.packMeta.get(id)!.seal);
  });

  it('every version record is committed with the edit that made it (the store is a lockfile)', () => {
    let tracked: string[];
    try {
      tracked = execFileSync('git', ['ls-files', 'catalog/versions/sha256'], { cwd: REPO, encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch {
      return; // not a git work tree (a source tarball): nothing to compare
    }
    const onDisk = readdirSync(join(VERSIONS_DIR, 'sha256')).map((n) => `catalog/versions/sha256/${n}`);
    expect(
      onDisk.filter((f) => !tracked.includes(f)),
      'commit these with the skill edit that published them',
    ).toEqual([]);
  });

  it('editing one skill publishes version 2 of it alone; version 1 keeps its bytes, which still hash to its digest', async () => {
    const file = join(work, 'skills', 'data.json');
    const records = JSON.parse(readFileSync(file, 'utf8')) as { id: string; outcome: string }[];
    const edited = records[0]!;
    const before = loadVersionStore(join(work, 'versions')).get(edited.id)!;
    expect(before.map((v) => v.version)).toEqual([1]);

    edited.outcome = `${edited.outcome} Now with a second pass over the edge cases.`;
    writeFileSync(file, JSON.stringify(records, null, 2));
    const now = new Date('2026-12-01T09:00:00Z');
    const built = await buildCatalog({ skillsDir: join(work, 'skills'), versionsDir: join(work, 'versions'), now });
    expect(built.addedVersions.map((v) => [v.skill_id, v.version, v.published])).toEqual([[edited.id, 2, '2026-12-01']]);
    writeVersions(built.addedVersions, join(work, 'versions'));

    const after = loadVersionStore(join(work, 'versions')).get(edited.id)!;
    expect(after.map((v) => v.version)).toEqual([1, 2]);
    expect(after[0]).toEqual(before[0]);
    expect(packSeal(packFiles(after[0]!.pack))).toBe(before[0]!.digest);
    expect(after[1]!.digest).toBe(built.packMeta.get(edited.id)!.seal);
    expect(after[1]!.digest).not.toBe(after[0]!.digest);
    expect(JSON.parse(built.catalogFiles.get('versions.json')!)[edited.id]).toHaveLength(2);
    expect(built.versionFiles.has(`sha256/${before[0]!.digest}.json`)).toBe(true);

    // Built again with the record written: nothing new.
    const again = await buildCatalog({ skillsDir: join(work, 'skills'), versionsDir: join(work, 'versions'), now });
    expect(again.addedVersions).toEqual([]);
    // A record is created once: writing it again is refused, not replaced.
    expect(() => writeVersions(built.addedVersions, join(work, 'versions'))).toThrow(/EEXIST/);
  });

  it('refuses a store whose published version was edited, or one with a gap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'versions-bad-'));
    cpSync(VERSIONS_DIR, dir, { recursive: true });
    const name = readdirSync(join(dir, 'sha256'))[0]!;
    const path = join(dir, 'sha256', name);
    const record = JSON.parse(readFileSync(path, 'utf8')) as { pack: Record<string, string> };
    record.pack['SKILL.md'] += ' ';
    writeFileSync(path, JSON.stringify(record));
    expect(() => loadVersionStore(dir)).toThrow(VersionStoreError);
    expect(() => loadVersionStore(dir)).toThrow(/does not hash to its name/);

    rmSync(path);
    const other = readdirSync(join(dir, 'sha256'))[0]!;
    const r2 = JSON.parse(readFileSync(join(dir, 'sha256', other), 'utf8')) as { version: number };
    r2.version = 3;
    writeFileSync(join(dir, 'sha256', other), JSON.stringify(r2));
    expect(() => loadVersionStore(dir)).toThrow(/not 1\.\.1/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a license covers the version it bought and every later one', () => {
    const vs = [1, 2, 3].map((version) => ({ version }));
    expect(coveredVersions(vs, 2).map((v) => v.version)).toEqual([2, 3]);
    expect(coveredVersions(vs, 1).map((v) => v.version)).toEqual([1, 2, 3]);
  });
});
