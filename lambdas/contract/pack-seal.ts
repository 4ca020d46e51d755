/** The pack seal: a published format, computed the same way by the build, the buyer CLI and readiness. */
import { createHash } from 'node:crypto';
import type { PackFileMeta, SealedPack } from './catalog-data';

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** Per-file metadata, sorted by path (byte order), as /api/packs lists it. */
export function packFiles(pack: SealedPack): PackFileMeta[] {
  return Object.keys(pack)
    .sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : a === b ? 0 : 1))
    .map((path) => {
      const bytes = Buffer.from(pack[path]!, 'utf8');
      return { path, bytes: bytes.byteLength, sha256: sha256Hex(bytes) };
    });
}

/**
 * The pack seal: sha256 of the pack's canonical form, which is exactly what `sha256sum`
 * prints for the pack's files sorted by path: one line `<sha256 hex><2 spaces><path>\n` per
 * file, paths relative to the pack root with `/`, sorted by byte order, UTF-8 file contents.
 * A buyer who saved the files under DIR can recompute it with:
 *   (cd DIR && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum) | sha256sum
 */
/** How a buyer recomputes the seal over the files they saved under DIR (published on /api/packs and in unlocks). */
export const SEAL_VERIFY_COMMAND = "(cd DIR && find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n' sha256sum) | sha256sum";

export function packSeal(files: readonly PackFileMeta[]): string {
  return sha256Hex(files.map((f) => `${f.sha256}  ${f.path}\n`).join(''));
}
