/**
 * The version store the build reads and appends to (issue 52): `catalog/versions/sha256/<digest>.json`,
 * one write-once record per published version (lambdas/contract/pack-versions.ts says what a version is).
 *
 * Rules the build holds, so the history cannot drift silently:
 * - a record's bytes must hash to the digest its file is named by (an edited record fails the build);
 * - a skill's versions are numbered 1..n without a gap (a deleted record fails the build);
 * - a new record is created with O_EXCL (`wx`), never over an existing file.
 * The store is committed like a lockfile: a build that publishes a version writes a new file, which
 * the operator commits with the edit (docs/CATALOG.md, "Versions").
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PackMeta, SealedPack } from '../lambdas/contract/catalog-data';
import { sha256Hex } from '../lambdas/contract/pack-seal';
import {
  PACK_VERSION_SCHEMA,
  parseVersionRecord,
  VERSION_DIGEST,
  type PackVersionRecord,
  type VersionChecks,
  type VersionSource,
} from '../lambdas/contract/pack-versions';

export const VERSIONS_DIR = fileURLToPath(new URL('./versions', import.meta.url));
/** What the provenance names as the builder: this build script, by its path in the repository. */
export const BUILDER = 'catalog/build.ts';

export class VersionStoreError extends Error {}

const recordsDir = (dir: string): string => join(dir, 'sha256');

/** Every stored version, checked: each record hashes to its name, numbers run 1..n per skill. */
export function loadVersionStore(dir: string = VERSIONS_DIR): Map<string, PackVersionRecord[]> {
  const problems: string[] = [];
  const bySkill = new Map<string, PackVersionRecord[]>();
  let names: string[];
  try {
    names = readdirSync(recordsDir(dir)).filter((n) => n.endsWith('.json'));
  } catch {
    return bySkill;
  }
  for (const name of names.sort()) {
    const digest = name.slice(0, -'.json'.length);
    const record = parseVersionRecord(readFileSync(join(recordsDir(dir), name), 'utf8'), digest);
    if (!VERSION_DIGEST.test(digest)) problems.push(`${name}: not named by a sha256 digest`);
    else if (!record) problems.push(`${name}: its pack does not hash to its name (a published version was edited)`);
    else if (record.schema !== PACK_VERSION_SCHEMA) problems.push(`${name}: schema ${String(record.schema)}`);
    else bySkill.set(record.skill_id, [...(bySkill.get(record.skill_id) ?? []), record]);
  }
  for (const [skill, versions] of bySkill) {
    versions.sort((a, b) => a.version - b.version);
    versions.forEach((v, i) => {
      if (v.version !== i + 1) problems.push(`${skill}: versions are not 1..${versions.length} (found ${v.version} at ${i + 1})`);
    });
  }
  if (problems.length > 0) throw new VersionStoreError(`Invalid version store ${dir}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return bySkill;
}

/** The build's git commit, when it runs in a work tree (a source tarball has none). */
export function sourceCommit(cwd: string = fileURLToPath(new URL('..', import.meta.url))): VersionSource['commit'] {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--', 'catalog'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return /^[0-9a-f]{40}$/.test(sha) ? { sha, dirty: status.trim() !== '' } : undefined;
  } catch {
    return undefined;
  }
}

export interface CurrentPack {
  skill_id: string;
  pack: SealedPack;
  /** The pack's files and seal, as the build computed them for /api/packs. */
  meta: Pick<PackMeta, 'files' | 'seal'>;
  /** The authored record, as it was read, and its file. */
  record: { file: string; json: string };
  checks: VersionChecks;
}

/**
 * Each skill's versions after this build: the stored ones, plus a new version for every skill whose
 * current bytes differ from its latest (or that has none). Pure but for `now` and `commit`, which
 * the caller passes; returns the records to write separately.
 */
export function nextVersions(
  stored: ReadonlyMap<string, PackVersionRecord[]>,
  current: readonly CurrentPack[],
  now: Date,
  commit: VersionSource['commit'],
): { versions: Map<string, PackVersionRecord[]>; added: PackVersionRecord[] } {
  const versions = new Map<string, PackVersionRecord[]>();
  const added: PackVersionRecord[] = [];
  for (const c of current) {
    const history = stored.get(c.skill_id) ?? [];
    const { files, seal: digest } = c.meta;
    const latest = history.at(-1);
    if (latest?.digest === digest) {
      versions.set(c.skill_id, history);
      continue;
    }
    const record: PackVersionRecord = {
      schema: PACK_VERSION_SCHEMA,
      skill_id: c.skill_id,
      version: (latest?.version ?? 0) + 1,
      published: now.toISOString().slice(0, 10),
      digest,
      file_count: files.length,
      total_bytes: files.reduce((n, f) => n + f.bytes, 0),
      files,
      pack: c.pack,
      source: {
        record: { file: c.record.file, id: c.skill_id, sha256: sha256Hex(c.record.json) },
        ...(commit ? { commit } : {}),
        builder: BUILDER,
      },
      checks: c.checks,
    };
    added.push(record);
    versions.set(c.skill_id, [...history, record]);
  }
  return { versions, added };
}

/** Writes new records, each with O_EXCL: an existing file is never replaced. */
export function writeVersions(records: readonly PackVersionRecord[], dir: string = VERSIONS_DIR): void {
  if (records.length === 0) return;
  mkdirSync(recordsDir(dir), { recursive: true });
  for (const r of records) writeFileSync(join(recordsDir(dir), `${r.digest}.json`), `${JSON.stringify(r, null, 1)}\n`, { flag: 'wx' });
}
