/**
 * A refund transaction as the chain reports it: its receipt (status, block), the ERC-20 Transfer
 * logs of the accepted tokens in it, its block's time, and the head for its depth. Requests go
 * through the configured providers in order (platform's rpcTransport), each with a time limit.
 */
import { createPublicClient, getAddress, parseEventLogs, TransactionReceiptNotFoundError, erc20Abi, type Address, type Hex } from 'viem';
import { base } from 'viem/chains';
import { rpcTransport } from '../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { RefundTransferLog } from '../core/usdc-refunds';
import type { RefundChain } from '../ports';

const PROVIDER_TIMEOUT_MS = 10_000;

export function viemRefundChain(urls: RpcUrls, tokens: { USDC: Address | undefined; USDbC: Address | undefined }): RefundChain {
  const client = createPublicClient({ chain: base, transport: rpcTransport(urls, { timeout: PROVIDER_TIMEOUT_MS }) });
  const assetOf = new Map<string, RefundTransferLog['asset']>();
  for (const [asset, address] of Object.entries(tokens) as [RefundTransferLog['asset'], Address | undefined][]) {
    if (address) assetOf.set(getAddress(address), asset);
  }
  return {
    async receipt(txHash) {
      let receipt;
      try {
        receipt = await client.getTransactionReceipt({ hash: txHash as Hex });
      } catch (e) {
        if (e instanceof TransactionReceiptNotFoundError) return undefined;
        throw e;
      }
      const [head, block] = await Promise.all([
        client.getBlockNumber({ cacheTime: 0 }),
        client.getBlock({ blockNumber: receipt.blockNumber }),
      ]);
      // Only the accepted tokens' own contracts: a look-alike token's Transfer is not a refund.
      const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: true })
        .filter((l) => assetOf.has(getAddress(l.address)))
        .map((l) => ({
          asset: assetOf.get(getAddress(l.address))!,
          from: l.args.from.toLowerCase(),
          to: l.args.to.toLowerCase(),
          amount: l.args.value.toString(),
          logIndex: l.logIndex,
        }));
      return {
        txHash: receipt.transactionHash.toLowerCase(),
        success: receipt.status === 'success',
        blockNumber: receipt.blockNumber,
        blockTime: new Date(Number(block.timestamp) * 1000).toISOString(),
        confirmations: head >= receipt.blockNumber ? Number(head - receipt.blockNumber + 1n) : 0,
        transfers,
      };
    },
  };
}
