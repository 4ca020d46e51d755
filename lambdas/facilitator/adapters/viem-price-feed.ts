/**
 * A Chainlink-compatible price feed read through viem: `decimals()` and `latestRoundData()` at
 * one block, in one `eth_call` to Multicall3 (on Base, and placed at the same address locally),
 * so pricing a settlement costs one RPC call.
 */
import { getAddress, parseAbi, type Address } from 'viem';
import { MULTICALL3 } from '../../contract/chain';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { PriceFeed } from '../ports';
import { basePublicClient } from '../../platform/adapters/viem-base-transport';
import type { Network } from '../../contract/networks';

/** The two reads of Chainlink's AggregatorV3Interface that price a settlement. */
export const AGGREGATOR_V3_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

export function viemPriceFeed(rpcUrls: RpcUrls, network: Network): PriceFeed {
  const pub = basePublicClient(rpcUrls, network);
  return {
    async roundAt(feed, blockNumber) {
      const address = getAddress(feed) as Address;
      const [decimals, [roundId, answer, , updatedAt]] = await pub.multicall({
        contracts: [
          { address, abi: AGGREGATOR_V3_ABI, functionName: 'decimals' },
          { address, abi: AGGREGATOR_V3_ABI, functionName: 'latestRoundData' },
        ],
        allowFailure: false,
        blockNumber,
        // Named, not looked up by the chain's definition: that refuses blocks before Multicall3's
        // deployment on Base, and the local chain's blocks are all "before" it.
        multicallAddress: MULTICALL3,
      });
      return { roundId, answer, decimals, updatedAt };
    },
  };
}
