/**
 * A wallet signature that does not recover to its address is judged by the chain (EIP-1271,
 * ERC-6492). viem reports a check whose eth_call could not be made as `false`, which would tell a
 * contract-wallet buyer their signature is wrong when only the providers are down; both adapters
 * trust a "no" only from a chain that answers, and otherwise throw (a fault: 503, retry).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORKS } from '../../lambdas/contract/networks';
import { getAddress } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { viemTypedSignatures } from '../../lambdas/access/adapters/viem-typed-signatures';
import { siweParameters, type SignInWithXFields } from '../../lambdas/contract/sign-in-with-x';
import { viemSiwe } from '../../lambdas/payments/adapters/viem-siwe';
import { fixedRpcUrls } from '../../lambdas/platform/rpc-urls';

const DOWN = fixedRpcUrls(['http://127.0.0.1:9']);
const WALLET = getAddress('0x00000000000000000000000000000000000c0de1');
/** Not an EOA signature of anything: only a contract could accept it. */
const CONTRACT_SIGNATURE = `0x${'ab'.repeat(100)}` as const;

const fields: SignInWithXFields = {
  domain: 'm.example',
  address: WALLET,
  uri: 'https://m.example/api/pay?skill=csv-cleaner',
  version: '1',
  chainId: 'eip155:8453',
  type: 'eip191',
  nonce: 'abcdef0123456789',
  issuedAt: new Date().toISOString(),
};
const typed = {
  address: WALLET,
  domain: { name: 'skill-market', version: '1', chainId: 8453 },
  types: { Ping: [{ name: 'n', type: 'uint256' }] },
  primaryType: 'Ping',
  message: { n: '1' },
  signature: CONTRACT_SIGNATURE,
};

// A chain that answers: every eth_call says "not valid" (0x0), the head is block 1.
let server: Server;
let answering: ReturnType<typeof fixedRpcUrls>;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const one = (r: { id: number; method: string }) => ({
        jsonrpc: '2.0',
        id: r.id,
        result: r.method === 'eth_chainId' ? '0x2105' : r.method === 'eth_call' ? '0x0' : r.method === 'eth_getCode' ? '0x' : '0x1',
      });
      const parsed = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  answering = fixedRpcUrls([`http://127.0.0.1:${(server.address() as AddressInfo).port}`]);
});
afterAll(() => server.close());

describe('wallet signatures when the chain cannot be asked', () => {
  it('SIGN-IN-WITH-X: an EOA signature needs no chain; a contract-wallet "no" only from a chain that answers', async () => {
    const key = generatePrivateKey();
    const eoa = privateKeyToAccount(key);
    const own = { ...fields, address: eoa.address };
    const signature = await eoa.signMessage({ message: createSiweMessage(siweParameters(own)) });
    expect(await viemSiwe(DOWN, NETWORKS.base).verify({ ...own, signature })).toBe(true);

    expect(await viemSiwe(answering, NETWORKS.base).verify({ ...fields, signature: CONTRACT_SIGNATURE })).toBe(false);
    await expect(viemSiwe(DOWN, NETWORKS.base).verify({ ...fields, signature: CONTRACT_SIGNATURE })).rejects.toThrow();
  });

  it('EIP-712 (mandates, wallet actions): the same', async () => {
    expect(await viemTypedSignatures(answering).verify(typed as never)).toBe(false);
    await expect(viemTypedSignatures(DOWN).verify(typed as never)).rejects.toThrow();
  });
});
