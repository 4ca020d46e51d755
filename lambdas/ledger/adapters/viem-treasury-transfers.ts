/**
 * Transfers to the treasury from the chain's logs: `eth_getLogs` for the ERC-20 Transfer event
 * with the treasury as the indexed `to`, over both accepted tokens at once, a range of blocks per
 * request (providers cap a request's range: 2,000 blocks is under every common limit), and one
 * `eth_getBlockByNumber` per block that holds one, for its time. Requests go through the
 * configured providers in order (platform's rpcTransport), each with a time limit.
 */
import { createPublicClient, getAddress, parseAbiItem, type Address } from 'viem';
import { base } from 'viem/chains';
import { rpcTransport } from '../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { TreasuryTransfer, TreasuryTransfers } from '../ports';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** Blocks per eth_getLogs request. */
export const LOG_RANGE_BLOCKS = 2_000n;
const PROVIDER_TIMEOUT_MS = 10_000;

export function viemTreasuryTransfers(
  urls: RpcUrls,
  treasury: Address,
  tokens: { USDC: Address | undefined; USDbC: Address | undefined },
): TreasuryTransfers {
  const client = createPublicClient({ chain: base, transport: rpcTransport(urls, { timeout: PROVIDER_TIMEOUT_MS }) });
  const assetOf = new Map<string, TreasuryTransfer['asset']>();
  for (const [asset, address] of Object.entries(tokens) as [TreasuryTransfer['asset'], Address | undefined][]) {
    if (address) assetOf.set(getAddress(address), asset);
  }
  return {
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    async between(from, to) {
      const logs = [];
      for (let start = from; start <= to; start += LOG_RANGE_BLOCKS) {
        const end = start + LOG_RANGE_BLOCKS - 1n < to ? start + LOG_RANGE_BLOCKS - 1n : to;
        logs.push(
          ...(await client.getLogs({
            address: [...assetOf.keys()] as Address[],
            event: TRANSFER,
            args: { to: treasury },
            fromBlock: start,
            toBlock: end,
            strict: true,
          })),
        );
      }
      const times = new Map<bigint, string>();
      for (const block of new Set(logs.map((l) => l.blockNumber))) {
        const { timestamp } = await client.getBlock({ blockNumber: block });
        times.set(block, new Date(Number(timestamp) * 1000).toISOString());
      }
      return logs.map((l) => ({
        asset: assetOf.get(getAddress(l.address))!,
        txHash: l.transactionHash.toLowerCase(),
        logIndex: l.logIndex,
        from: l.args.from.toLowerCase(),
        amount: l.args.value.toString(),
        blockNumber: l.blockNumber,
        time: times.get(l.blockNumber)!,
      }));
    },
  };
}
