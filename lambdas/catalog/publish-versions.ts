/**
 * Publishing the catalog's versions (issue 52) into the versions bucket at deploy: each version
 * the deploy carries that the bucket lacks is created once, under its content address, with a
 * conditional write (If-None-Match: *); nothing is ever deleted or replaced. A key the bucket
 * already holds is left alone; one another writer created between the listing and the write (S3
 * answers 412) is accepted only if its stored bytes are that version. Bytes that are not the
 * version their key names, on either side, fail the deploy.
 */

import { parseVersionRecord, VERSION_DIGEST } from '../contract/pack-versions';
import type { VersionsPublisherPorts } from './ports';

/** How many versions are written at once. */
const CONCURRENCY = 8;

const KEY = /^sha256\/([0-9a-f]{64})\.json$/;

/** The digest a content-addressed key names, or undefined for a key that is not one. */
export function digestOfKey(key: string): string | undefined {
  const digest = KEY.exec(key)?.[1];
  return digest !== undefined && VERSION_DIGEST.test(digest) ? digest : undefined;
}

/** Whether `bytes` are the version record of `digest`: its digest field, and its pack's seal. */
export function holdsVersion(bytes: Uint8Array, digest: string): boolean {
  return parseVersionRecord(Buffer.from(bytes).toString('utf8'), digest) !== undefined;
}

export interface PublishResult {
  /** Keys created by this run. */
  created: string[];
  /** Keys the bucket held already (listed, or found by a 412 with the same version). */
  present: number;
}

export async function publishVersions(ports: VersionsPublisherPorts): Promise<PublishResult> {
  const local = await ports.files.keys();
  const wrong = local.filter((k) => digestOfKey(k) === undefined);
  if (wrong.length > 0) throw new Error(`not content-addressed version keys: ${wrong.slice(0, 5).join(', ')}`);
  const stored = await ports.bucket.keys();
  const missing = local.filter((k) => !stored.has(k)).sort();
  const result: PublishResult = { created: [], present: local.length - missing.length };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < missing.length) {
      const key = missing[next++]!;
      const digest = digestOfKey(key)!;
      const bytes = await ports.files.read(key);
      if (!holdsVersion(bytes, digest)) throw new Error(`${key}: the deploy's bytes are not the version their key names`);
      if ((await ports.bucket.putNew(key, bytes)) === 'created') {
        result.created.push(key);
        continue;
      }
      const there = await ports.bucket.read(key);
      if (there === undefined || !holdsVersion(there, digest))
        throw new Error(`${key}: the versions bucket holds an object under this key that is not the version it names`);
      result.present++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, missing.length) }, worker));
  result.created.sort();
  return result;
}
