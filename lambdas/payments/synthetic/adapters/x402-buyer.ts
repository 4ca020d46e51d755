/**
 * A buyer made for one run: a random private key that lives in memory only, and x402 v2's stock
 * client (@x402/fetch with the exact EVM scheme, nothing configured) signing as it, so the
 * service's relayer settles the authorization and pays the gas, as for any agent.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { BuyerWallet } from '../ports';

const field = (o: unknown, key: string): unknown => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined);

export function x402FreshBuyer(fetchImpl: typeof fetch = fetch): BuyerWallet {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  return {
    address: account.address,
    async buy(payUrl) {
      const res = await wrapFetchWithPayment(fetchImpl, client)(payUrl);
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = undefined;
      }
      const header = res.headers.get('payment-response');
      const settled = header ? decodePaymentResponseHeader(header).transaction : undefined;
      const txHash = field(field(body, 'payment'), 'txHash');
      return {
        status: res.status,
        txHash: typeof txHash === 'string' ? txHash : settled || undefined,
        files: field(field(body, 'sealed_pack'), 'files'),
        seal: field(body, 'seal'),
        summary: text.slice(0, 300),
      };
    },
  };
}
