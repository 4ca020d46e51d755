/**
 * The relayer's KMS account with a stand-in for KMS that holds a secp256k1 key and answers as
 * KMS does: the public key as SubjectPublicKeyInfo DER, signatures of a digest as DER (r, s),
 * with no recovery id and, half of the time, the high `s` Ethereum refuses.
 */
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it, vi } from 'vitest';
import { hexToBytes, parseGwei, parseTransaction, recoverTransactionAddress, toHex, verifyTypedData, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { kmsRelayerAccount } from '../../lambdas/facilitator/adapters/kms-relayer-account';
import { derToJose } from '../../lambdas/platform/adapters/der-signature';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SPKI_PREFIX = '3056301006072a8648ce3d020106052b8104000a034200';

const derInt = (v: bigint): Buffer => {
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
};
const der = (r: bigint, s: bigint): Uint8Array => {
  const body = Buffer.concat([derInt(r), derInt(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
};

function kmsStandIn(privateKey: Hex) {
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

describe('kms relayer account', () => {
  it("has the key's address, and its transactions and typed data recover to it whatever s KMS returns", async () => {
    const privateKey = generatePrivateKey();
    const account = await kmsRelayerAccount('key-1', kmsStandIn(privateKey));
    expect(account.address).toBe(privateKeyToAccount(privateKey).address);
    for (let i = 0; i < 4; i++) {
      const raw = await account.signTransaction({
        chainId: 8453,
        type: 'eip1559',
        to: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        data: '0x',
        nonce: i,
        gas: 100_000n,
        maxFeePerGas: parseGwei('1'),
        maxPriorityFeePerGas: parseGwei('0.01'),
      });
      expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(account.address);
      // s as the transaction carries it (RLP drops an s's leading zero bytes, so never slice the raw tail).
      const s = BigInt(parseTransaction(raw as never).s!);
      expect(s <= N / 2n).toBe(true);
    }
    const typed = {
      domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const },
      types: { Ping: [{ name: 'n', type: 'uint256' }] },
      primaryType: 'Ping' as const,
      message: { n: 1n },
    };
    const signature = await account.signTypedData(typed);
    expect(await verifyTypedData({ ...typed, address: account.address, signature })).toBe(true);
  });

  it('reads r and s from DER, long-form lengths and leading zeros included', () => {
    const r = 0x80n << 248n;
    const s = 5n;
    const rs = derToJose(der(r, s));
    expect({ r: BigInt(toHex(rs.subarray(0, 32))), s: BigInt(toHex(rs.subarray(32))) }).toEqual({ r, s });
    expect(() => derToJose(hexToBytes('0x01'))).toThrow(/DER/);
  });
});

describe('a relayer key KMS refuses to sign with', () => {
  it('fails the signature and counts it as SignerFailures (Key relayer), which the alarm watches', async () => {
    const privateKey = generatePrivateKey();
    const refusing = kmsStandIn(privateKey);
    const send = refusing.send.bind(refusing);
    (refusing as unknown as { send: (c: unknown) => Promise<unknown> }).send = async (command) => {
      if (command instanceof SignCommand) throw Object.assign(new Error('The key is disabled'), { name: 'DisabledException' });
      return send(command as never);
    };
    const account = await kmsRelayerAccount('key-1', refusing);
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const saved = process.env['POWERTOOLS_METRICS_DISABLED'];
    process.env['POWERTOOLS_METRICS_DISABLED'] = 'false';
    try {
      await expect(account.signMessage({ message: 'x' })).rejects.toThrow('The key is disabled');
    } finally {
      write.mockRestore();
      if (saved === undefined) delete process.env['POWERTOOLS_METRICS_DISABLED'];
      else process.env['POWERTOOLS_METRICS_DISABLED'] = saved;
    }
    const emf = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => 'SignerFailures' in l);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ SignerFailures: 1, Key: 'relayer' });
  });
});
