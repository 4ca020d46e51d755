/**
 * "Pay with wallet" for a wallet without ETH for gas: the standard x402 v2 way. x402's own client
 * (@x402/fetch with the exact EVM scheme, chosen so the page pays exactly as any x402 client
 * does) reads PAYMENT-REQUIRED, the wallet signs one EIP-3009 authorization (typed data, no
 * transaction), and the shop submits the transfer from its relayer and pays the fee
 * (docs/PAYMENTS.md). Loaded only when a purchase needs it.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import type { Address, Client, Hash } from 'viem';
import { signTypedData } from 'viem/actions';

export interface AuthorizedPurchase {
  status: number;
  body: unknown;
  /** The settlement's transaction, from PAYMENT-RESPONSE, once the shop submitted it. */
  transaction?: Hash;
}

/** Buys `skill` with one signed authorization; `onSigned` runs once the wallet has signed. */
export async function payByAuthorization(
  skill: string,
  client: Client,
  account: Address,
  onSigned: () => void,
): Promise<AuthorizedPurchase> {
  const x402 = new x402Client();
  registerExactEvmScheme(x402, {
    signer: {
      address: account,
      signTypedData: (typed) => signTypedData(client, { ...(typed as Parameters<typeof signTypedData>[1]), account }),
    },
  });
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
