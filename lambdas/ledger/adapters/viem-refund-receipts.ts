/**
 * A refund transaction as the chain reports it: its receipt (status, block), the ERC-20 Transfer
 * logs of the accepted tokens in it, the configured escrow's PaymentRefunded logs (x402
 * auth-capture) with the token store it paid from, its block's time, and the head for its depth.
 * Requests go through the configured providers in order (platform's rpcTransport), each with a time limit.
 */
import {
  createPublicClient,
  getAddress,
  parseAbi,
  parseEventLogs,
  TransactionReceiptNotFoundError,
  erc20Abi,
  type Address,
  type Hex,
} from 'viem';
import { base } from 'viem/chains';
import { rpcTransport } from '../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { EscrowRefundLog, RefundTransferLog } from '../core/usdc-refunds';
import type { RefundChain } from '../ports';

const PROVIDER_TIMEOUT_MS = 10_000;

/** base/commerce-payments' AuthCaptureEscrow (v1.0): its refund event, and where an operator's token store is. */
const ESCROW_ABI = parseAbi([
  'event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector)',
  'function getTokenStore(address operator) view returns (address)',
]);

export function viemRefundChain(
  urls: RpcUrls,
  tokens: { USDC: Address | undefined; USDbC: Address | undefined },
  escrow?: Address | undefined,
): RefundChain {
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
      // Only the configured escrow's own events. Its `refund` is its operator's call alone, so the
      // transaction's sender is the operator, and the payer is paid from that operator's token store.
      const refunded = escrow
        ? parseEventLogs({ abi: ESCROW_ABI, eventName: 'PaymentRefunded', logs: receipt.logs, strict: true }).filter(
            (l) => getAddress(l.address) === getAddress(escrow),
          )
        : [];
      const escrowRefunds: EscrowRefundLog[] = [];
      if (refunded.length > 0) {
        const tokenStore = await client.readContract({
          address: getAddress(escrow!),
          abi: ESCROW_ABI,
          functionName: 'getTokenStore',
          // A pure function of the escrow's immutables: read at the head, which any provider serves.
          args: [receipt.from],
        });
        for (const l of refunded)
          escrowRefunds.push({ paymentHash: l.args.paymentInfoHash.toLowerCase(), tokenStore: tokenStore.toLowerCase() });
      }
      return {
        txHash: receipt.transactionHash.toLowerCase(),
        success: receipt.status === 'success',
        blockNumber: receipt.blockNumber,
        blockTime: new Date(Number(block.timestamp) * 1000).toISOString(),
        confirmations: head >= receipt.blockNumber ? Number(head - receipt.blockNumber + 1n) : 0,
        transfers,
        escrowRefunds,
      };
    },
  };
}
