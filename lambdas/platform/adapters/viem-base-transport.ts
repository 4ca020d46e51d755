/**
 * How the x402 adapters (relayer, verification, contract-wallet signatures) reach chain 8453:
 * the configured providers in order, the next one on an error, each request bounded in time and
 * never retried on the same provider. The chain reader keeps its own per-provider policy
 * (chain id checked, a budget for the whole look-up).
 */
import { createPublicClient, type Transport } from 'viem';
import { base, baseSepolia } from 'viem/chains';
import type { Network } from '../../contract/networks';
import { rpcTransport } from './viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';

/** A request to one provider gives up after this long and moves to the next. */
const PROVIDER_TIMEOUT_MS = 5_000;

/** With `batch`, requests made in the same tick travel as one JSON-RPC batch (one HTTP request, one round trip). */
export const baseTransport = (rpcUrls: RpcUrls, opts: { batch?: boolean } = {}): Transport =>
  rpcTransport(rpcUrls, { timeout: PROVIDER_TIMEOUT_MS, ...(opts.batch ? { batch: { wait: 0 } } : {}) });

/** viem's definition of the configured network's chain (its id is what a signed transaction commits to). */
export const viemChainOf = (network: Network) => (network.name === 'base-sepolia' ? baseSepolia : base);

/** A public client on the configured network over {@link baseTransport}. */
export const basePublicClient = (rpcUrls: RpcUrls, network: Network, pollingIntervalMs?: number, opts: { batch?: boolean } = {}) =>
  createPublicClient({
    chain: viemChainOf(network),
    transport: baseTransport(rpcUrls, opts),
    ...(pollingIntervalMs ? { pollingInterval: pollingIntervalMs } : {}),
  });
