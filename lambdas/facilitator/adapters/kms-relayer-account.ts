/**
 * The relayer's account in AWS: an ECC_SECG_P256K1 SIGN_VERIFY key in KMS, used as a viem custom
 * account, so no private key exists anywhere. Its address comes from the public key; every
 * transaction, message or typed datum is hashed here and only the 32-byte digest goes to KMS
 * (`MessageType: DIGEST`). KMS answers a DER signature without a recovery id: `s` is moved to the
 * low half (as Ethereum requires) and the recovery id is the one that recovers the address.
 * It signs EIP-7702 authorizations too: the escrow operator's key delegates its account to
 * EscrowOperatorGuard with one (docs/OPERATIONS.md, "The escrow operator key").
 */
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import {
  hashMessage,
  hashTypedData,
  keccak256,
  recoverAddress,
  serializeSignature,
  serializeTransaction,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
  type Signature,
} from 'viem';
import { publicKeyToAddress, toAccount } from 'viem/accounts';
import { hashAuthorization } from 'viem/utils';
import { derToJose } from '../../platform/adapters/der-signature';
import { METRICS } from '../../contract/metrics';
import { countMetric } from '../../platform/metrics';
import { traced } from '../../platform/tracer';

/** The order of secp256k1's group: a signature's `s` above half of it is flipped to `n - s`. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The uncompressed public key (0x04‖X‖Y) at the end of a secp256k1 SubjectPublicKeyInfo. */
export function spkiPublicKey(spki: Uint8Array): Hex {
  const key = Buffer.from(spki).subarray(-65);
  if (key.length !== 65 || key[0] !== 0x04) throw new Error('not an uncompressed secp256k1 public key');
  return toHex(key);
}

/** A viem account whose signatures are made by the KMS key `keyId` (kms:GetPublicKey once, kms:Sign per signature). */
export async function kmsRelayerAccount(keyId: string, client = traced(new KMSClient({}))): Promise<LocalAccount> {
  const key = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (!key.PublicKey) throw new Error('KMS returned no public key');
  if (key.KeySpec && key.KeySpec !== 'ECC_SECG_P256K1') throw new Error(`the relayer key is ${key.KeySpec}, not ECC_SECG_P256K1`);
  const address: Address = publicKeyToAddress(spkiPublicKey(key.PublicKey));

  const signHash = async (hash: Hex): Promise<Signature> => {
    const out = await client
      .send(
        new SignCommand({
          KeyId: keyId,
          Message: Buffer.from(hash.slice(2), 'hex'),
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      )
      .catch((e: unknown) => {
        // A relayer that cannot sign settles nothing: the SignerFailures alarm watches this.
        countMetric(METRICS.signerFailures, { Key: 'relayer' });
        throw e;
      });
    if (!out.Signature) throw new Error('KMS returned no signature');
    const rs = derToJose(out.Signature);
    const r = BigInt(toHex(rs.subarray(0, 32)));
    const rawS = BigInt(toHex(rs.subarray(32)));
    const s = rawS > SECP256K1_N / 2n ? SECP256K1_N - rawS : rawS;
    const parts = { r: toHex(r, { size: 32 }), s: toHex(s, { size: 32 }) };
    for (const yParity of [0, 1] as const) {
      const signature = { ...parts, yParity };
      if ((await recoverAddress({ hash, signature })).toLowerCase() === address.toLowerCase()) return signature;
    }
    throw new Error('the KMS signature recovers to neither parity of the relayer address');
  };

  return toAccount({
    address,
    sign: async ({ hash }) => serializeSignature(await signHash(hash)),
    signMessage: async ({ message }) => serializeSignature(await signHash(hashMessage(message))),
    signTypedData: async (typedData) => serializeSignature(await signHash(hashTypedData(typedData as never))),
    // EIP-7702: keccak256(0x05 ‖ rlp([chain_id, address, nonce])), signed as any digest is.
    signAuthorization: async (request) => {
      const target = request.contractAddress ?? request.address;
      const signature = await signHash(hashAuthorization({ address: target, chainId: request.chainId, nonce: request.nonce }));
      return { address: target, chainId: request.chainId, nonce: request.nonce, ...signature };
    },
    signTransaction: async (transaction, options) => {
      const serializer = options?.serializer ?? serializeTransaction;
      const signature = await signHash(keccak256(await serializer(transaction)));
      return serializer(transaction, signature);
    },
  });
}
