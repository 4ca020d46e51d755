/**
 * The relayer's KMS account with a stand-in for KMS that holds a secp256k1 key and answers as
 * KMS does: the public key as SubjectPublicKeyInfo DER, signatures of a digest as DER (r, s),
 * with no recovery id and, half of the time, the high `s` Ethereum refuses.
 */
import { SignCommand } from '@aws-sdk/client-kms';
import { describe, expect, it, vi } from 'vitest';
import { hexToBytes, parseGwei, parseTransaction, recoverTransactionAddress, toHex, verifyTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { recoverAuthorizationAddress } from 'viem/utils';
import { kmsRelayerAccount } from '../../lambdas/facilitator/adapters/kms-relayer-account';
import { derToJose } from '../../lambdas/platform/adapters/der-signature';
import { ESCROW_OPERATOR_GUARD } from '../../lambdas/contract/auth-capture';
import { der, kmsClientStandIn, N } from '../support/kms-client-stand-in';

describe('kms relayer account', () => {
  it("has the key's address, and its transactions and typed data recover to it whatever s KMS returns", async () => {
    const privateKey = generatePrivateKey();
    const account = await kmsRelayerAccount('key-1', kmsClientStandIn(privateKey));
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

  it("signs an EIP-7702 authorization (the escrow operator's delegation to its guard) that recovers to the key's address, s low", async () => {
    const privateKey = generatePrivateKey();
    const account = await kmsRelayerAccount('key-1', kmsClientStandIn(privateKey));
    for (const nonce of [0, 1, 7]) {
      const signed = await account.signAuthorization!({ address: ESCROW_OPERATOR_GUARD, chainId: 8453, nonce });
      expect(signed).toMatchObject({ address: ESCROW_OPERATOR_GUARD, chainId: 8453, nonce });
      expect(await recoverAuthorizationAddress({ authorization: signed })).toBe(account.address);
      expect(BigInt(signed.s) <= N / 2n).toBe(true);
      // The same signature a private key makes (RFC 6979 is deterministic; s normalised the same way).
      const direct = await privateKeyToAccount(privateKey).signAuthorization({ address: ESCROW_OPERATOR_GUARD, chainId: 8453, nonce });
      expect({ r: signed.r, s: signed.s, yParity: signed.yParity }).toEqual({ r: direct.r, s: direct.s, yParity: direct.yParity });
    }
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
    const refusing = kmsClientStandIn(privateKey);
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
