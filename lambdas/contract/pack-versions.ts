/**
 * A pack's versions (issue 52). Every build whose bytes for a skill differ from its latest version
 * publishes a new version: the next number, the day, the pack's digest (its seal: sha256 over the
 * canonical form, `pack-seal.ts`) and the sha256 of every file. A version is never changed once
 * published: its record is stored content-addressed, under its digest, and carries what the build
 * checked in those bytes (the security scan and the eval suite) when it was published, so a signed
 * statement about a version says what was known of exactly those bytes.
 *
 * Where versions are kept: `catalog/versions/sha256/<digest>.json`, committed like a lockfile (the
 * build only adds files; a file whose bytes do not hash to its name fails the build); the build
 * copies them to `dist/versions/` (the content-addressed store: an S3 bucket with Object Lock in
 * AWS, the directory locally) and their metadata, without the files, to `dist/catalog/versions.json`.
 */
import type { PackFileMeta, SealedPack } from './catalog-data';
import { packFiles, packSeal } from './pack-seal';
import type { SkillSecurity } from './security-report';
import type { SkillEval } from './eval-report';

/** The stored record's schema id. */
export const PACK_VERSION_SCHEMA = 'skill-market-pack-version/1';

/** What the build checked in a version's bytes when it published them. */
export interface VersionChecks {
  /** The security scan (secretlint and the skill-pack rules, prompt injection among them) and its scanners' versions. */
  security: { scanners: { name: string; version: string; rules: string }[]; result: SkillSecurity };
  /** The eval suite and this pack's scores. */
  eval: { suite: string; version: string; result: SkillEval };
}

/** Where a version's bytes came from: the authored record and, when the build ran in a git work tree, its commit. */
export interface VersionSource {
  /** The authored file, relative to the repository (`catalog/skills/<category>.json`), and the record's id in it. */
  record: { file: string; id: string; sha256: string };
  /** `git rev-parse HEAD` when the version was published; `dirty` when the work tree had uncommitted changes. */
  commit?: { sha: string; dirty: boolean };
  /** The catalog build that rendered the bytes (this repository's build script, by path). */
  builder: string;
}

/** One version's metadata: what every listing shows. */
export interface PackVersionMeta {
  skill_id: string;
  /** 1, 2, 3, … per skill, in order of publication. */
  version: number;
  /** The day the version was published (YYYY-MM-DD, UTC). */
  published: string;
  /** sha256 hex of the pack's canonical form: the seal. */
  digest: string;
  file_count: number;
  total_bytes: number;
  files: PackFileMeta[];
}

/** The stored record: a version's metadata, its bytes, where they came from and what was checked. */
export interface PackVersionRecord extends PackVersionMeta {
  schema: typeof PACK_VERSION_SCHEMA;
  pack: SealedPack;
  source: VersionSource;
  checks: VersionChecks;
}

/** `dist/catalog/versions.json`: every skill's versions, oldest first; the last is the current one. */
export type VersionIndex = Record<string, (PackVersionMeta & { checks: VersionChecks; source: VersionSource })[]>;

/** The digest as the published formats write it (in-toto, Agent Skills discovery, MCP skills): `sha256:<hex>`. */
export const digestRef = (hex: string): string => `sha256:${hex}`;

/** The content-addressed key of a version's record in the store (`dist/versions/`, the S3 bucket). */
export const versionObjectKey = (digest: string): string => `sha256/${digest}.json`;

/** A version's digest: 64 lowercase hex characters. */
export const VERSION_DIGEST = /^[0-9a-f]{64}$/;

/**
 * Which versions a license (or a wallet's purchase) covers: the version it bought and every later
 * one (docs/ACCESS.md, "Versions"). A version earlier than the one bought was published before the
 * license existed and is not covered.
 */
export function coveredVersions<V extends { version: number }>(versions: readonly V[], bought: number): V[] {
  return versions.filter((v) => v.version >= bought);
}

/** The version whose digest a sale recorded (its seal), if the index has it. */
export function versionOfDigest<V extends { digest: string }>(versions: readonly V[] | undefined, digest: string): V | undefined {
  return versions?.find((v) => v.digest === digest);
}

/** A skill's versions, oldest first, as the catalog serves them: what a receipt's `pack.version` is read from. */
export type VersionsOf = (skill: string) => readonly Pick<PackVersionMeta, 'version' | 'digest'>[] | undefined;

/**
 * The version store's one rule for a record read back (the build's store, the local files, the
 * bucket, the publisher): it is the version `digest` names when its digest field is that digest and
 * its pack hashes to it. A record that is not answers as no version at all.
 */
export function parseVersionRecord(text: string, digest: string): PackVersionRecord | undefined {
  let record: Partial<PackVersionRecord>;
  try {
    record = JSON.parse(text) as Partial<PackVersionRecord>;
  } catch {
    return undefined;
  }
  return record.digest === digest && record.pack !== undefined && packSeal(packFiles(record.pack)) === digest
    ? (record as PackVersionRecord)
    : undefined;
}
