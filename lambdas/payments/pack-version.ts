/**
 * Which bytes a delivery gives (issue 52): the current version, or the version a re-download asks
 * for (`version=<n>`) when the buyer's purchase covers it. A purchase covers the version it bought
 * (the version whose digest is the seal recorded with the sale) and every later one
 * (`coveredVersions`, docs/ACCESS.md, "Versions"). The current version may come from the bundled
 * packs, an earlier one from the content-addressed store; either way the seal delivered is the
 * version's digest, checked here, never assumed.
 */
import type { PackMeta, SealedPack } from '../contract/catalog-data';
import { packFiles, packSeal } from '../contract/pack-seal';
import { digestRef, versionOfDigest, type PackVersionMeta } from '../contract/pack-versions';
import { invalidRequest, notFound } from '../platform/errors';
import { PAYMENT_ERRORS } from './errors';
import type { PaymentsPorts } from './ports';

/** A version number as a query parameter: 1, 2, …; nothing else (no 0, sign, exponent, or trailing text). */
const VERSION_PARAM = /^[1-9][0-9]{0,8}$/;

/** The `version` a re-download asks for, or undefined for the current one; 400 INVALID_REQUEST for anything but a version number. */
export function readVersionParam(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!VERSION_PARAM.test(raw))
    throw invalidRequest(
      'version',
      '`version` must be a version number of the skill (1, 2, …), as /api/packs and your receipt name it.',
      'Leave it out for the current version.',
    );
  return Number(raw);
}

/**
 * The version a sale bought: the one whose digest is the seal recorded with it. A sale recorded
 * before versions were (no seal, or a seal no version has: the bytes before version 1) bought
 * what version 1 replaced, so it counts from version 1.
 */
export function boughtVersion(versions: readonly PackVersionMeta[] | undefined, seal: string | undefined): number {
  return (seal === undefined ? undefined : versionOfDigest(versions, seal)?.version) ?? 1;
}

/** What the delivery bodies say of the version they carry. */
export const versionView = (v: PackVersionMeta) => ({ number: v.version, digest: digestRef(v.digest), published: v.published });

export interface VersionedPack {
  pack: SealedPack;
  /** The delivered bytes' metadata; `seal` is the version's digest. */
  meta: PackMeta;
  version: PackVersionMeta;
}

const missing = (skill: string) => notFound(`The pack of ${skill} is missing from this deployment.`);

/**
 * The pack of `skill` at version `asked` (the current one when undefined), for a buyer whose
 * purchase covers versions from `coveredFrom` on. Unknown version: 404 VERSION_NOT_FOUND; one the
 * purchase does not cover: 403 VERSION_NOT_COVERED. The current version is cut from the bundled
 * packs when their seal is its digest; otherwise, and for every earlier version, the store's
 * record, which the store returns only if its bytes hash to the digest.
 */
export async function versionedPack(
  ports: Pick<PaymentsPorts, 'catalog' | 'packs' | 'versions'>,
  skill: string,
  asked: number | undefined,
  coveredFrom: number,
): Promise<VersionedPack> {
  const versions = ports.catalog.versions(skill);
  const current = versions?.at(-1);
  if (!versions || !current) throw missing(skill);
  const wanted = asked === undefined ? current : versions.find((v) => v.version === asked);
  if (!wanted)
    throw PAYMENT_ERRORS.VERSION_NOT_FOUND({
      message: `${skill} has no version ${String(asked)}: its versions are 1 to ${current.version}.`,
      details: { versions: versions.map((v) => v.version) },
    });
  if (wanted.version < coveredFrom)
    throw PAYMENT_ERRORS.VERSION_NOT_COVERED({
      message: `Your purchase of ${skill} covers version ${coveredFrom} and every later one, not version ${wanted.version}, which was published before it.`,
      details: { covered: versions.filter((v) => v.version >= coveredFrom).map((v) => v.version) },
    });
  if (wanted === current) {
    const pack = ports.packs.get(skill);
    const meta = ports.catalog.packMeta(skill);
    // The fast path: the bundle's copy, when its bytes are the version's (a seal is a few hashes of a few kilobytes).
    if (pack && meta && meta.seal === current.digest && packSeal(packFiles(pack)) === current.digest)
      return { pack, meta, version: current };
  }
  const record = await ports.versions.get(wanted.digest);
  if (!record || record.skill_id !== skill) throw missing(skill);
  const { file_count, total_bytes, files, digest } = record;
  return { pack: record.pack, meta: { skill_id: skill, file_count, total_bytes, files, seal: digest }, version: wanted };
}
