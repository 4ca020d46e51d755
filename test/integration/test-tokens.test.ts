/**
 * The local test tokens as a stock x402 client and facilitator meet them: at Base's addresses,
 * with Base USDC's EIP-712 domain, and EIP-3009's rules (each authorization once, inside its
 * window, signed by `from`). A chain of its own, so no other file's accounts are touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  domainSeparator,
  http,
  keccak256,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { ensureTestTokens, startAnvil, testAccount, TEST_STABLECOIN_ABI, type AnvilHandle } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../support/chain';
import { ASSET_EIP712, BASE_MAINNET_USDBC, BASE_MAINNET_USDC, CHAIN_ID, MULTICALL3 } from '../../lambdas/contract/chain';

let anvil: AnvilHandle;
let pub: PublicClient;
const relayer = () => createWalletClient({ account: testAccount(0), chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  await ensureTestTokens(anvil.rpcUrl);
  pub = createPublicClient({ chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) }) as PublicClient;
});
afterAll(() => anvil?.stop());

const now = async () => (await pub.getBlock()).timestamp;

/** An authorization signed by buyer `from` (a test account index), valid from `validAfter` to `validBefore`. */
async function authorize(from: number, to: Address, value: bigint, window?: { validAfter?: bigint; validBefore?: bigint }, signer = from) {
  const t = await now();
  const message = {
    from: testAccount(from).address,
    to,
    value,
    validAfter: window?.validAfter ?? 0n,
    validBefore: window?.validBefore ?? t + 600n,
    nonce: keccak256(toHex(`${Math.random()}`)),
  };
  const signature = await testAccount(signer).signTypedData({
    domain: { ...ASSET_EIP712.USDC, chainId: CHAIN_ID, verifyingContract: BASE_MAINNET_USDC },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  return { message, signature };
}

const submit = async (
  a: Awaited<ReturnType<typeof authorize>>,
  functionName: 'transferWithAuthorization' | 'receiveWithAuthorization' = 'transferWithAuthorization',
) => {
  const { message: m, signature } = a;
  const hash = await relayer().writeContract({
    address: BASE_MAINNET_USDC,
    abi: TEST_STABLECOIN_ABI,
    functionName,
    args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
    gas: 200_000n,
  });
  return pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
};

const balance = (who: Address): Promise<bigint> =>
  pub.readContract({ address: BASE_MAINNET_USDC, abi: TEST_STABLECOIN_ABI, functionName: 'balanceOf', args: [who] }) as Promise<bigint>;

describe('test tokens', () => {
  it("sit at Base's addresses with the real tokens' names, versions and EIP-712 domains, beside Multicall3", async () => {
    for (const [address, symbol, domain] of [
      [BASE_MAINNET_USDC, 'USDC', ASSET_EIP712.USDC],
      [BASE_MAINNET_USDBC, 'USDbC', ASSET_EIP712.USDbC],
    ] as const) {
      const read = (functionName: string) => pub.readContract({ address, abi: TEST_STABLECOIN_ABI, functionName } as never);
      expect(await read('symbol')).toBe(symbol);
      expect(await read('name')).toBe(domain.name);
      expect(await read('version')).toBe(domain.version);
      expect(await read('decimals')).toBe(6);
      expect(await read('DOMAIN_SEPARATOR')).toBe(
        domainSeparator({ domain: { ...domain, chainId: CHAIN_ID, verifyingContract: address } }),
      );
      expect(await balance(testAccount(1).address)).toBeGreaterThanOrEqual(10n ** 6n);
    }
    expect(await pub.getCode({ address: MULTICALL3 })).toMatch(/^0x[0-9a-f]{100,}$/);
    // Placed once: a second call finds them.
    expect((await ensureTestTokens(anvil.rpcUrl)).reused).toBe(true);
  });

  it('moves the authorized value once, from a relayer that is neither party, and refuses the same authorization again', async () => {
    const to = testAccount(9).address;
    const [before, toBefore] = [await balance(testAccount(2).address), await balance(to)];
    const auth = await authorize(2, to, 12_345n);
    const receipt = await submit(auth);
    expect(receipt.status).toBe('success');
    expect(await balance(testAccount(2).address)).toBe(before - 12_345n);
    expect(await balance(to)).toBe(toBefore + 12_345n);
    expect(
      await pub.readContract({
        address: BASE_MAINNET_USDC,
        abi: TEST_STABLECOIN_ABI,
        functionName: 'authorizationState',
        args: [auth.message.from, auth.message.nonce],
      }),
    ).toBe(true);
    expect((await submit(auth)).status).toBe('reverted');
    expect(await balance(testAccount(2).address)).toBe(before - 12_345n);
  });

  it('refuses an authorization outside its window, signed by another key, or received by a caller who is not the payee', async () => {
    const to = testAccount(9).address;
    const t = await now();
    const before = await balance(testAccount(3).address);
    const refused: Hex[] = [];
    for (const auth of [
      await authorize(3, to, 1n, { validBefore: t - 1n }),
      await authorize(3, to, 1n, { validAfter: t + 3_600n }),
      await authorize(3, to, 1n, undefined, 4),
    ]) {
      const r = await submit(auth);
      if (r.status === 'reverted') refused.push(r.transactionHash);
    }
    const receiveByOther = await submit(await authorize(3, to, 1n), 'receiveWithAuthorization');
    expect(refused).toHaveLength(3);
    expect(receiveByOther.status).toBe('reverted');
    expect(await balance(testAccount(3).address)).toBe(before);
  });
});
