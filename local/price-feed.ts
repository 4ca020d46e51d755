/**
 * The local chain's ETH / USD price feed: a Chainlink-compatible test feed
 * (contracts/TestPriceFeed.sol) at Chainlink's ETH / USD address on Base, so the `ethUsdFeed`
 * setting's default reads it locally as it reads Chainlink's on Base. Its price is whatever its
 * owner last set with `setAnswer`; the set-up starts it at {@link LOCAL_ETH_USD_ANSWER}.
 * Idempotent over a persisted chain.
 */
import { createPublicClient, createTestClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { BASE_MAINNET_ETH_USD_FEED } from '../lambdas/contract/chain';
import { contractArtifact, testAccount } from './anvil';
import { localChain } from './local-chain';

const { abi: TEST_PRICE_FEED_ABI, bytecode: TEST_PRICE_FEED_BYTECODE } = contractArtifact('test-price-feed.artifact.json');
export { TEST_PRICE_FEED_ABI };

/**
 * The feed's owner, the only account that may set its answer: an account of its own (anvil funds
 * 0-9 only, so it is given ETH), whose nonces nothing else uses: neither the set-up's other
 * deployers nor a test that sets a price while others send from account 0.
 */
export const PRICE_FEED_OWNER_INDEX = 12;
/** The local feed's first answer: 3000 USD per ETH, at the feed's 8 decimals (a test price, not a market one). */
export const LOCAL_ETH_USD_ANSWER = 3_000_00000000n;
/** Where the local feed sits: Chainlink's ETH / USD proxy address on Base mainnet. */
export const LOCAL_ETH_USD_FEED = BASE_MAINNET_ETH_USD_FEED as Address;

/** Deploys the test feed from its owner, places its code at Chainlink's address and sets the first answer there. */
export async function ensureEthUsdFeed(rpcUrl: string): Promise<{ feed: Address; reused: boolean }> {
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const code = await pub.getCode({ address: LOCAL_ETH_USD_FEED });
  if (code && code !== '0x') return { feed: LOCAL_ETH_USD_FEED, reused: true };

  const owner = testAccount(PRICE_FEED_OWNER_INDEX);
  const test = createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) });
  await test.setBalance({ address: owner.address, value: parseEther('1') });
  const wallet = createWalletClient({ account: owner, chain, transport: http(rpcUrl) });
  const deployed = await pub.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi: TEST_PRICE_FEED_ABI, bytecode: TEST_PRICE_FEED_BYTECODE }),
    pollingInterval: 50,
  });
  if (deployed.status !== 'success' || !deployed.contractAddress) throw new Error('deploying the test ETH / USD feed failed');
  // The owner and the constants are in the code (immutable): the code alone makes the feed there;
  // its rounds start at Chainlink's address with the first answer.
  const runtime = await pub.getCode({ address: deployed.contractAddress });
  await test.setCode({ address: LOCAL_ETH_USD_FEED, bytecode: runtime as Hex });
  await setEthUsdAnswer(rpcUrl, LOCAL_ETH_USD_ANSWER);
  return { feed: LOCAL_ETH_USD_FEED, reused: false };
}

/** Starts a new round of the local feed with `answer` (8 decimals), from its owner; resolves when it is mined. */
export async function setEthUsdAnswer(rpcUrl: string, answer: bigint): Promise<{ roundId: bigint; blockNumber: bigint }> {
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ account: testAccount(PRICE_FEED_OWNER_INDEX), chain, transport: http(rpcUrl) });
  const hash = await wallet.writeContract({
    address: LOCAL_ETH_USD_FEED,
    abi: TEST_PRICE_FEED_ABI,
    functionName: 'setAnswer',
    args: [answer],
  });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`setting the test ETH / USD answer to ${answer} reverted`);
  const roundId = (await pub.readContract({
    address: LOCAL_ETH_USD_FEED,
    abi: TEST_PRICE_FEED_ABI,
    functionName: 'latestRound',
    blockNumber: receipt.blockNumber,
  })) as bigint;
  return { roundId, blockNumber: receipt.blockNumber };
}
