/**
 * The operator's funding wallet on Base: a USDC transfer to the run's fresh buyer, signed with the
 * key from the synthetic purchase secret and paid for (gas) by that wallet, over the configured
 * RPC providers; it waits for the receipt, so the buyer's balance is there before the purchase.
 */
import { createPublicClient, createWalletClient, erc20Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { base } from 'viem/chains';
import type { RpcUrls } from '../../../platform/rpc-urls';
import { baseTransport } from '../../adapters/viem-base-transport';
import type { Funder } from '../ports';

/** Base makes a block every 2 s; a transfer not mined in this long is a failure of the run. */
const RECEIPT_TIMEOUT_MS = 120_000;

export function viemUsdcFunder(o: { privateKey: Hex; usdc: Address; rpcUrls: RpcUrls; pollingIntervalMs?: number }): Funder {
  const account = privateKeyToAccount(o.privateKey);
  const transport = baseTransport(o.rpcUrls);
  const wallet = createWalletClient({ account, chain: base, transport });
  const pub = createPublicClient({ chain: base, transport, pollingInterval: o.pollingIntervalMs ?? 1_000 });
  return {
    async fund(to, amount) {
      const hash = await wallet.writeContract({ address: o.usdc, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
      const receipt = await pub.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
      if (receipt.status !== 'success') throw new Error(`the funding transfer ${hash} from ${account.address} reverted`);
      return hash;
    },
  };
}
