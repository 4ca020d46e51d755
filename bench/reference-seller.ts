/**
 * The x402 reference seller that bench/x402-reference.ts measures the marketplace beside, in a
 * process of its own: the published packages set up as coinbase/x402's TypeScript examples set
 * them up. An express app with `paymentMiddleware` from @x402/express, an `x402ResourceServer`
 * with @x402/evm's exact scheme (server side), and a facilitator in the same process: an
 * `x402Facilitator` with @x402/evm's exact scheme (facilitator side) signing with a viem wallet
 * client extended with public actions, as the facilitator example's signer. The resource server
 * reaches the facilitator through the `FacilitatorClient` interface instead of HTTP, so the
 * comparison has no extra hop on the reference's side.
 *
 * Environment (set by the bench): RPC_URL (the chain, through the bench's counting proxy),
 * PAY_TO, ASSET, AMOUNT (atomic units), ASSET_NAME and ASSET_VERSION (the token's EIP-712
 * domain), FACILITATOR_KEY (the facilitator's private key, funded with ETH by the bench),
 * NONCE_MANAGER=1 to give the facilitator's account viem's `nonceManager`. Prints
 * `reference seller listening on <url>`; the paid resource is GET <url>/resource.
 */
import express from 'express';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { x402Facilitator } from '@x402/core/facilitator';
import type { FacilitatorClient } from '@x402/core/server';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { createWalletClient, http, nonceManager, publicActions, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { base } from 'viem/chains';
import type { AddressInfo } from 'node:net';

/** anvil runs with Base's chain id. */
const NETWORK = 'eip155:8453';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const account = privateKeyToAccount(need('FACILITATOR_KEY') as Hex, process.env['NONCE_MANAGER'] === '1' ? { nonceManager } : {});
const wallet = createWalletClient({ account, chain: base, transport: http(need('RPC_URL')) }).extend(publicActions);

type WriteArgs = Parameters<typeof wallet.writeContract>[0];
const signer = toFacilitatorEvmSigner({
  address: account.address,
  getCode: (args) => wallet.getCode(args),
  readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] } as Parameters<typeof wallet.readContract>[0]),
  verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
  writeContract: (args) => wallet.writeContract({ ...args, args: args.args ?? [] } as WriteArgs),
  sendTransaction: (args) => wallet.sendTransaction(args),
  waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
});

const facilitator = new x402Facilitator().register(NETWORK, new ExactEvmFacilitatorScheme(signer));
/** The facilitator in this process, behind the interface the resource server talks to. */
const local: FacilitatorClient = {
  verify: (payload, requirements) => facilitator.verify(payload, requirements),
  settle: (payload, requirements) => facilitator.settle(payload, requirements),
  // The facilitator answers its kinds' networks as plain strings; they are the ones registered above.
  getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
};
const server = new x402ResourceServer(local).register(NETWORK, new ExactEvmScheme());

const app = express();
app.use(
  paymentMiddleware(
    {
      'GET /resource': {
        accepts: {
          scheme: 'exact',
          network: NETWORK,
          payTo: need('PAY_TO') as Address,
          price: { asset: need('ASSET'), amount: need('AMOUNT'), extra: { name: need('ASSET_NAME'), version: need('ASSET_VERSION') } },
        },
        description: 'The bench resource',
        mimeType: 'application/json',
      },
    },
    server,
  ),
);
app.get('/resource', (_req, res) => {
  res.json({ delivered: true });
});

const listener = app.listen(0, '127.0.0.1', () => {
  console.log(`reference seller listening on http://127.0.0.1:${(listener.address() as AddressInfo).port}`);
});
process.on('SIGINT', () => listener.close(() => process.exit(0)));
