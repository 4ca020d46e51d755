/**
 * An in-process stand-in for KMS's client (tests only), holding a secp256k1 key and answering as KMS
 * does: the public key as SubjectPublicKeyInfo DER, signatures of a digest as DER (r, s), with no
 * recovery id and, half of the time, the high `s` Ethereum refuses. For the loopback HTTP one the
 * synthesized bundles reach, see kms-stand-in.ts.
 */
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { expect } from 'vitest';
import type { Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';

export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const SPKI_PREFIX = '3056301006072a8648ce3d020106052b8104000a034200';

const derInt = (v: bigint): Buffer => {
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
};
export const der = (r: bigint, s: bigint): Uint8Array => {
  const body = Buffer.concat([derInt(r), derInt(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
};

export function kmsClientStandIn(privateKey: Hex) {
  const publicKey = privateKeyToAccount(privateKey).publicKey;
  let signs = 0;
  const client = {
    async send(command: unknown) {
      if (command instanceof GetPublicKeyCommand) {
        return { KeySpec: 'ECC_SECG_P256K1', PublicKey: Buffer.from(`${SPKI_PREFIX}${publicKey.slice(2)}`, 'hex') };
      }
      if (command instanceof SignCommand) {
        expect(command.input).toMatchObject({ MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' });
        const digest = `0x${Buffer.from(command.input.Message!).toString('hex')}` as Hex;
        const sig = await sign({ hash: digest, privateKey });
        const s = BigInt(sig.s);
        // KMS does not normalise s: answer the high form every other time.
        return { Signature: der(BigInt(sig.r), signs++ % 2 === 0 ? N - s : s) };
      }
      throw new Error('unexpected command');
    },
  };
  return client as unknown as KMSClient;
}
