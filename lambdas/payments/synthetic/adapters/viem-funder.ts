/**
 * The operator's funding wallet: a USDC transfer to the run's fresh buyer, signed with the key from
 * the synthetic purchase secret and paid for (gas) by that wallet, over the configured RPC
 * providers; it waits for the receipt, so the buyer's balance is there before the purchase. The
 * transaction is signed for the chain id the providers report (`chain: null`), so the same code
 * funds on Base and on a testnet stage; the providers are the deployment's own.
 */
import { createPublicClient, createWalletClient, erc20Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpcTransport } from '../../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../../platform/rpc-urls';
import type { Funder } from '../ports';

/** A request to one provider gives up after this long and moves to the next. */
const PROVIDER_TIMEOUT_MS = 5_000;

/** Base makes a block every 2 s; a transfer not mined in this long is a failure of the run. */
const RECEIPT_TIMEOUT_MS = 120_000;

export function viemUsdcFunder(o: { privateKey: Hex; usdc: Address; rpcUrls: RpcUrls; pollingIntervalMs?: number }): Funder {
  const account = privateKeyToAccount(o.privateKey);
  const transport = rpcTransport(o.rpcUrls, { timeout: PROVIDER_TIMEOUT_MS });
  const wallet = createWalletClient({ account, transport });
  const pub = createPublicClient({ transport, pollingInterval: o.pollingIntervalMs ?? 1_000 });
  return {
    async fund(to, amount) {
      const hash = await wallet.writeContract({
        address: o.usdc,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, amount],
        chain: null,
      });
      const receipt = await pub.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
      if (receipt.status !== 'success') throw new Error(`the funding transfer ${hash} from ${account.address} reverted`);
      return hash;
    },
  };
}
