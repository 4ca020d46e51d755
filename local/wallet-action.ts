/**
 * The client's side of a wallet action (docs/ACCESS.md): the EIP-712 signature a wallet puts on
 * creating or revoking a mandate, cancelling a subscription, setting a meter cap or drawing on
 * it, with the fields a POST body carries beside the action's own. The typed data comes from
 * lambdas/contract/wallet-actions.ts, the same definition the service verifies against.
 */
import { randomBytes } from 'node:crypto';
import type { LocalAccount } from 'viem';
import { walletActionTypedData, type WalletActionMessages, type WalletActionType } from '../lambdas/contract/wallet-actions';

/** How long a signature made here stays valid: well inside the service's one-hour limit. */
const LIFETIME_SECONDS = 600;

/** Signs `action` for the service at `baseUrl`; returns `{wallet, nonce, deadline, signature}` to merge into the body. */
export async function signWalletAction<T extends WalletActionType>(
  account: LocalAccount,
  baseUrl: string,
  type: T,
  action: Omit<WalletActionMessages[T], 'wallet' | 'audience' | 'nonce' | 'deadline'>,
): Promise<{ wallet: `0x${string}`; nonce: string; deadline: number; signature: `0x${string}` }> {
  const nonce = randomBytes(12).toString('hex');
  const deadline = BigInt(Math.floor(Date.now() / 1000) + LIFETIME_SECONDS);
  const message = { ...action, wallet: account.address, audience: baseUrl, nonce, deadline } as WalletActionMessages[T];
  // The typed data is generic over the action; viem's signer wants its own literal types.
  const signature = await account.signTypedData(
    walletActionTypedData(type, message) as unknown as Parameters<LocalAccount['signTypedData']>[0],
  );
  return { wallet: account.address, nonce, deadline: Number(deadline), signature };
}
