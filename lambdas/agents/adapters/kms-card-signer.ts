/**
 * The agent card's signer in AWS: an ECC_NIST_P256 SIGN_VERIFY key in KMS whose private half
 * never leaves KMS. KMS answers DER signatures; JWS wants raw r||s.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import type { CardSigner } from '../ports';

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

export function kmsCardSigner(keyId: string, client = new KMSClient({})): CardSigner {
  let jwk: Promise<JsonWebKey> | undefined;
  return {
    async sign(input) {
      const out = await client.send(
        new SignCommand({ KeyId: keyId, Message: input, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }),
      );
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
