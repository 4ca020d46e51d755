/**
 * The local chain's set-up, made once and loaded after (local/chain-snapshot.ts): a chain that
 * begins from the snapshot holds everything the set-up makes, a persisted chain is never
 * replaced by it, and the snapshot's name changes with whatever decides the set-up.
 */
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createTestClient, http, type Address, type PublicClient } from 'viem';
import {
  BUYER_ACCOUNT_INDEXES,
  RELAYER_ACCOUNT_INDEX,
  TEST_STABLECOIN_ABI,
  ensureRelayer,
  ensureTestTokens,
  startAnvil,
  testAccount,
  type AnvilHandle,
} from '../../local/anvil';
import { SET_UP_SOURCES, chainSnapshot, setUpKey } from '../../local/chain-snapshot';
import { IDENTITY_REGISTRY_ABI, ensureIdentityRegistry } from '../../local/identity-registry';
import { ensureAuthCaptureEscrow, LOCAL_AUTH_CAPTURE_ESCROW, LOCAL_ERC3009_PAYMENT_COLLECTOR } from '../../local/escrow';
import { localChain } from '../../local/local-chain';
import { LOCAL_ETH_USD_FEED, TEST_PRICE_FEED_ABI, ensureEthUsdFeed } from '../../local/price-feed';
import { BASE_MAINNET_USDBC, BASE_MAINNET_USDC, MULTICALL3 } from '../../lambdas/contract/chain';

const dir = mkdtempSync(join(tmpdir(), 'chain-snapshot-'));
const started: AnvilHandle[] = [];
const start = async (opts: Parameters<typeof startAnvil>[0]): Promise<AnvilHandle> => {
  const anvil = await startAnvil(opts);
  started.push(anvil);
  return anvil;
};
const setUp = (rpcUrl: string) =>
  Promise.all([
    ensureTestTokens(rpcUrl),
    ensureIdentityRegistry(rpcUrl),
    ensureRelayer(rpcUrl),
    ensureEthUsdFeed(rpcUrl),
    ensureAuthCaptureEscrow(rpcUrl),
  ]);

/** What the set-up leaves on a chain, read back: code, balances, the test agent, the history. */
async function contents(rpcUrl: string) {
  const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) }) as PublicClient;
  const balance = async (token: Address, index: number): Promise<bigint> =>
    (await pub.readContract({
      address: token,
      abi: TEST_STABLECOIN_ABI,
      functionName: 'balanceOf',
      args: [testAccount(index).address],
    })) as bigint;
  const registry = (await ensureIdentityRegistry(rpcUrl)).registry;
  return {
    code: await Promise.all(
      (
        [
          BASE_MAINNET_USDC,
          BASE_MAINNET_USDBC,
          MULTICALL3,
          registry,
          LOCAL_ETH_USD_FEED,
          LOCAL_AUTH_CAPTURE_ESCROW,
          LOCAL_ERC3009_PAYMENT_COLLECTOR,
        ] as Address[]
      ).map((address) => pub.getCode({ address })),
    ),
    balances: await Promise.all(BUYER_ACCOUNT_INDEXES.flatMap((i) => [balance(BASE_MAINNET_USDC, i), balance(BASE_MAINNET_USDBC, i)])),
    agentURI: await pub.readContract({ address: registry, abi: IDENTITY_REGISTRY_ABI, functionName: 'tokenURI', args: [1n] }),
    ethUsd: await pub.readContract({ address: LOCAL_ETH_USD_FEED, abi: TEST_PRICE_FEED_ABI, functionName: 'latestRoundData' }),
    relayerWei: await pub.getBalance({ address: testAccount(RELAYER_ACCOUNT_INDEX).address }),
    block: await pub.getBlockNumber(),
    logs: (await pub.getLogs({ fromBlock: 0n, toBlock: 'latest' })).length,
    deployerNonce: await pub.getTransactionCount({ address: testAccount(0).address }),
  };
}

let made: Awaited<ReturnType<typeof contents>>;
const snapshot = chainSnapshot(join(dir, 'cache'), 'test-key');

beforeAll(async () => {
  const empty = await start({ port: 0 });
  expect(empty.fresh).toBe(true);
  await setUp(empty.rpcUrl);
  made = await contents(empty.rpcUrl);
  await snapshot.save(empty.rpcUrl);
});
afterAll(async () => {
  await Promise.all(started.map((a) => a.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the chain set-up snapshot', () => {
  it('is a chain anvil loads holding everything the set-up made, which the set-up then finds in place', async () => {
    expect(snapshot.exists).toBe(false);
    expect(chainSnapshot(join(dir, 'cache'), 'test-key').exists).toBe(true);
    expect(made.balances.every((b) => b > 0n)).toBe(true);

    const loaded = await start({ port: 0, initialState: snapshot.path });
    expect(loaded.fresh).toBe(false);
    // The chain mines an empty block every 2 s, so one may land between reading `made` and saving, or
    // after the load: the height may only grow, and nothing else may differ.
    const same = async (): Promise<void> => {
      const now = await contents(loaded.rpcUrl);
      expect({ ...now, block: made.block }).toEqual(made);
      expect(now.block >= made.block).toBe(true);
    };
    await same();
    const [tokens, identity, , feed, escrow] = await setUp(loaded.rpcUrl);
    expect([tokens.reused, identity.reused, feed.reused, escrow.reused]).toEqual([true, true, true, true]);
    // Nothing was sent again: the deployer's nonce and the chain's logs are the snapshot's.
    await same();
  });

  it('begins a new data dir as a copy, and never replaces a persisted chain', async () => {
    const fresh = join(dir, 'fresh-data');
    mkdirSync(fresh);
    const copied = await start({ port: 0, statePath: join(fresh, 'anvil-state.json'), initialState: snapshot.path });
    expect(copied.fresh).toBe(false);
    expect((await contents(copied.rpcUrl)).balances).toEqual(made.balances);

    // A new data dir's chain, before anything is on it.
    const own = join(dir, 'own-data');
    mkdirSync(own);
    const first = await start({ port: 0, statePath: join(own, 'anvil-state.json') });
    expect(first.fresh).toBe(true);
    // A persisted chain of its own (nothing deployed on it), as anvil writes it: the snapshot must not replace it.
    const dumped = await createTestClient({ mode: 'anvil', transport: http(first.rpcUrl) }).dumpState();
    await first.stop();
    writeFileSync(join(own, 'anvil-state.json'), gunzipSync(Buffer.from(dumped.slice(2), 'hex')));
    const again = await start({ port: 0, statePath: join(own, 'anvil-state.json'), initialState: snapshot.path });
    expect(again.fresh).toBe(false);
    const pub = createPublicClient({ transport: http(again.rpcUrl) });
    expect(await pub.getCode({ address: BASE_MAINNET_USDC })).toBeUndefined();
  });

  it('stops at once when already gone, whether it exited or was killed', async () => {
    const anvil = await start({ port: 0 });
    anvil.process.kill('SIGKILL');
    await new Promise((resolve) => anvil.process.once('exit', resolve));
    const stopped = await Promise.race([anvil.stop().then(() => 'stopped'), new Promise((r) => setTimeout(() => r('hung'), 2_000))]);
    expect(stopped).toBe('stopped');
  });

  it('is named by the set-up sources and anvil version: an edit or another anvil names another snapshot', () => {
    const root = join(dir, 'sources');
    mkdirSync(join(root, 'local'), { recursive: true });
    writeFileSync(join(root, 'local', 'a.ts'), 'export const a = 1;');
    writeFileSync(join(root, 'local', 'b.json'), '{}');
    const key = (anvil = '1.7.0') => setUpKey(['local/a.ts', 'local/b.json'], root, anvil);
    const before = key();
    expect(key()).toBe(before);
    expect(key('1.8.0')).not.toBe(before);
    writeFileSync(join(root, 'local', 'b.json'), '{"x":1}');
    expect(key()).not.toBe(before);
    // The real key reads files that exist: a source renamed without updating the list fails here.
    expect(setUpKey()).toMatch(/^[0-9a-f]{32}$/);
    // The ETH / USD test feed is part of the set-up: its contract and its placing name the snapshot.
    expect(SET_UP_SOURCES).toEqual(expect.arrayContaining(['local/price-feed.ts', 'local/contracts/test-price-feed.artifact.json']));
    expect(existsSync(snapshot.path)).toBe(true);
  });
});
