/**
 * Issue 53, first step: base/commerce-payments' AuthCaptureEscrow and ERC-3009 collector on a fresh
 * anvil at their fixed addresses, wired to each other as deployed on Base (the collector names the
 * escrow and Multicall3), and found again on the same chain without a second deployment.
 */
import { createPublicClient, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MULTICALL3 } from '../../lambdas/contract/chain';
import { startAnvil, testAccount, type AnvilHandle } from '../../local/anvil';
import {
  AUTH_CAPTURE_ESCROW_ABI,
  ERC3009_PAYMENT_COLLECTOR_ABI,
  ESCROW_DEPLOYER_INDEX,
  LOCAL_AUTH_CAPTURE_ESCROW,
  LOCAL_ERC3009_PAYMENT_COLLECTOR,
  ensureAuthCaptureEscrow,
  type LocalEscrow,
} from '../../local/escrow';
import { localChain } from '../../local/local-chain';

let anvil: AnvilHandle;
let first: LocalEscrow;
let second: LocalEscrow;

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  first = await ensureAuthCaptureEscrow(anvil.rpcUrl);
  second = await ensureAuthCaptureEscrow(anvil.rpcUrl);
});
afterAll(async () => anvil?.stop());

describe('the auth-capture escrow on the local chain', () => {
  it('is deployed once at its fixed addresses, the collector naming the escrow and Multicall3', async () => {
    const pub = createPublicClient({ chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
    expect(first).toEqual({ escrow: LOCAL_AUTH_CAPTURE_ESCROW, collector: LOCAL_ERC3009_PAYMENT_COLLECTOR, reused: false });
    expect(second).toEqual({ ...first, reused: true });
    expect(await pub.getTransactionCount({ address: testAccount(ESCROW_DEPLOYER_INDEX).address })).toBe(2);

    const read = (address: Address, abi: typeof AUTH_CAPTURE_ESCROW_ABI, functionName: string) =>
      pub.readContract({ address, abi, functionName }) as Promise<string>;
    expect(await read(LOCAL_ERC3009_PAYMENT_COLLECTOR, ERC3009_PAYMENT_COLLECTOR_ABI, 'authCaptureEscrow')).toBe(LOCAL_AUTH_CAPTURE_ESCROW);
    expect(await read(LOCAL_ERC3009_PAYMENT_COLLECTOR, ERC3009_PAYMENT_COLLECTOR_ABI, 'multicall3')).toBe(MULTICALL3);
    // The escrow made its TokenStore implementation in its constructor: code there, naming the escrow.
    const store = (await read(LOCAL_AUTH_CAPTURE_ESCROW, AUTH_CAPTURE_ESCROW_ABI, 'tokenStoreImplementation')) as Address;
    expect(await pub.getCode({ address: store })).toMatch(/^0x[0-9a-f]{10,}/);
  });
});
