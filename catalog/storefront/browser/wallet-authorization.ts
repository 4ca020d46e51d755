/**
 * "Pay with wallet" by signature, the standard x402 v2 way, for a wallet without ETH for gas or a
 * buyer who chose "Paid when delivered". x402's own client (@x402/fetch, chosen so the page pays
 * exactly as any x402 client does) reads PAYMENT-REQUIRED and the wallet signs one EIP-3009
 * authorization (typed data, no transaction); the shop pays the fee (docs/PAYMENTS.md). Two
 * schemes are registered, and a policy keeps the one the buyer chose: `exact`, a transfer to the
 * shop that the shop submits, or `auth-capture` (AuthCaptureEvmScheme), where the price goes into
 * Base's public escrow contract and is captured to the shop only once the pack is delivered (a
 * failed delivery voids it, which returns it). Loaded only when a purchase needs it.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import type { Address, Client, Hash } from 'viem';
import { signTypedData } from 'viem/actions';
import { base } from 'viem/chains';

export interface AuthorizedPurchase {
  status: number;
  body: unknown;
  /** The settlement's transaction, from PAYMENT-RESPONSE, once the shop submitted it (for an escrowed payment, its authorize). */
  transaction?: Hash;
}

/** What the page read from the challenge and showed the buyer: the token's contract and the price in its atomic units. */
export interface Price {
  asset: Address;
  amount: string;
}

/**
 * Buys `skill` with one signed authorization of `price`, by escrow when `escrow` is true;
 * `onSigned` runs once the wallet has signed.
 */
export async function payByAuthorization(
  skill: string,
  client: Client,
  account: Address,
  price: Price,
  escrow: boolean,
  onSigned: () => void,
): Promise<AuthorizedPurchase> {
  const signer = {
    address: account,
    signTypedData: (typed: unknown) => signTypedData(client, { ...(typed as Parameters<typeof signTypedData>[1]), account }),
  };
  const network = `eip155:${base.id}` as const;
  const x402 = new x402Client();
  // Both for Base by name: the client looks a network's schemes up under its exact name before the
  // wildcard `eip155:*` (registerExactEvmScheme's default), so `exact` there would go unseen beside auth-capture.
  registerExactEvmScheme(x402, { signer, networks: [network] });
  x402.register(network, new AuthCaptureEvmScheme(signer));
  // The buyer's choice. Without it the client prefers `exact` whenever both are offered.
  const scheme = escrow ? 'auth-capture' : 'exact';
  x402.registerPolicy((_version, offers) => offers.filter((o) => o.scheme === scheme));
  // The wallet signs for no more than the price the page showed (instead of the client's default $1 cap, below some prices here).
  x402.setSpendControls({ allowedAssets: [{ network, asset: price.asset, maxAmountPerPayment: price.amount }] });
  x402.onAfterPaymentCreation(async () => onSigned());
  const res = await wrapFetchWithPayment(fetch, x402)(`/api/pay?skill=${encodeURIComponent(skill)}`);
  const header = res.headers.get('payment-response');
  const settlement = header ? decodePaymentResponseHeader(header) : undefined;
  return {
    status: res.status,
    body: await res.json(),
    ...(settlement?.transaction ? { transaction: settlement.transaction as Hash } : {}),
  };
}
