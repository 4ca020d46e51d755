/**
 * The local run's origin secret: a file the local edge and every handler read (as CloudFront and
 * the functions share the Secrets Manager secret), created once per data directory, mode 0600.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The secret kept in `file`; made (32 random bytes, base64url) if there is none yet. */
export function readOrCreateOriginSecret(file: string): string {
  const read = (): string | undefined => {
    try {
      return readFileSync(file, 'utf8').trim() || undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  };
  const kept = read();
  if (kept) return kept;
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // Another process made it first: theirs is the secret.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const made = read();
  if (!made) throw new Error(`the origin secret file ${file} is empty`);
  return made;
}

/** The values a handler accepts locally: the one in the file (no rotation locally). */
export function fileOriginSecrets(file: string): Promise<string[]> {
  return Promise.resolve([readOrCreateOriginSecret(file)]);
}
