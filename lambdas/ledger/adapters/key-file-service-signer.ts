/**
 * The service key for the local run (receipts and the agent card): a P-256 key generated once into
 * .data/ (or kept in memory). Every local function that signs reads the same file, as every Lambda
 * signs with the same KMS key.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ServiceSigner } from '../ports';

function keySigner(privateKey: KeyObject): ServiceSigner {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return {
    sign: async (input) => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
    publicJwk: async () => jwk,
  };
}

const readKey = (file: string): KeyObject => createPrivateKey({ key: JSON.parse(readFileSync(file, 'utf8')) as JsonWebKey, format: 'jwk' });

/**
 * The key in `file`, created on first use. Several functions may ask first at once: the new key is
 * written whole to a file of its own and linked into place (a link fails if the name exists), so
 * every one of them ends up reading the one key that won, never a half-written file.
 */
function keptKey(file: string): KeyObject {
  try {
    return readKey(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  mkdirSync(dirname(file), { recursive: true });
  const draft = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(draft, JSON.stringify(privateKey.export({ format: 'jwk' })), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, file);
    return privateKey;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return readKey(file);
  } finally {
    rmSync(draft, { force: true });
  }
}

/** A P-256 key kept in `file` (created on first use) or, without a file, one for this process (tests). */
export function keyFileServiceSigner(file: string | undefined): ServiceSigner {
  return keySigner(file ? keptKey(file) : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
}
