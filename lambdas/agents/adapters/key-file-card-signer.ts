/** The agent card's signer for the local run: a P-256 key generated once into .data/ (or kept in memory). */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CardSigner } from '../ports';

function keySigner(privateKey: KeyObject): CardSigner {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return {
    sign: async (input) => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
    publicJwk: async () => jwk,
  };
}

/** A P-256 key kept in `file` (created on first use) or, without a file, one for this process. */
export function keyFileCardSigner(file: string | undefined): CardSigner {
  if (file) {
    try {
      return keySigner(createPrivateKey({ key: JSON.parse(readFileSync(file, 'utf8')) as JsonWebKey, format: 'jwk' }));
    } catch {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(privateKey.export({ format: 'jwk' })), { mode: 0o600, flag: 'wx' });
      return keySigner(privateKey);
    }
  }
  return keySigner(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
}
