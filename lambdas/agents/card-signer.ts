/**
 * Signs the agent card (ES256). The port hides where the private key lives: AWS KMS (an
 * ECC_NIST_P256 SIGN_VERIFY key whose private half never leaves KMS) or, locally, a key
 * generated once into .data/. Both give raw r||s signatures, as JWS wants.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';

export interface CardSigner {
  /** ES256 signature of the bytes: 64 bytes, r then s. */
  sign(input: Uint8Array): Promise<Uint8Array>;
  /** The public key as a JWK (kty EC, crv P-256). */
  publicJwk(): Promise<JsonWebKey>;
}

/** ECDSA signatures from KMS are DER; JWS needs the fixed-width r||s form (RFC 7518 §3.4). */
export function derToJose(der: Uint8Array, size = 32): Uint8Array {
  const bytes = Buffer.from(der);
  let offset = 2;
  if (bytes[0] !== 0x30) throw new Error('not a DER sequence');
  if ((bytes[1]! & 0x80) !== 0) offset = 2 + (bytes[1]! & 0x7f);
  const readInt = (): Buffer => {
    if (bytes[offset] !== 0x02) throw new Error('not a DER integer');
    const len = bytes[offset + 1]!;
    const value = bytes.subarray(offset + 2, offset + 2 + len);
    offset += 2 + len;
    const trimmed = value[0] === 0 ? value.subarray(1) : value;
    if (trimmed.length > size) throw new Error('integer too long');
    return Buffer.concat([Buffer.alloc(size - trimmed.length), trimmed]);
  };
  return Buffer.concat([readInt(), readInt()]);
}

function keySigner(privateKey: KeyObject): CardSigner {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return {
    sign: async (input) => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
    publicJwk: async () => jwk,
  };
}

/** A P-256 key kept in `file` (created on first use) or, without a file, one for this process. */
export function localCardSigner(file: string | undefined): CardSigner {
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

export function kmsCardSigner(keyId: string, client = new KMSClient({})): CardSigner {
  let jwk: Promise<JsonWebKey> | undefined;
  return {
    async sign(input) {
      const out = await client.send(new SignCommand({ KeyId: keyId, Message: input, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }));
      if (!out.Signature) throw new Error('KMS returned no signature');
      return derToJose(out.Signature);
    },
    publicJwk() {
      jwk ??= client.send(new GetPublicKeyCommand({ KeyId: keyId })).then((out) => {
        if (!out.PublicKey) throw new Error('KMS returned no public key');
        return createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }).export({ format: 'jwk' });
      });
      return jwk;
    },
  };
}
