/**
 * How the x402 adapters (relayer, verification, contract-wallet signatures) reach chain 8453:
 * the configured providers in order, the next one on an error, each request bounded in time and
 * never retried on the same provider. The chain reader keeps its own per-provider policy
 * (chain id checked, a budget for the whole look-up).
 */
import { createPublicClient, type Transport } from 'viem';
import { base } from 'viem/chains';
import { rpcTransport } from '../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';

/** A request to one provider gives up after this long and moves to the next. */
const PROVIDER_TIMEOUT_MS = 5_000;

/** With `batch`, requests made in the same tick travel as one JSON-RPC batch (one HTTP request, one round trip). */
export const baseTransport = (rpcUrls: RpcUrls, opts: { batch?: boolean } = {}): Transport =>
  rpcTransport(rpcUrls, { timeout: PROVIDER_TIMEOUT_MS, ...(opts.batch ? { batch: { wait: 0 } } : {}) });

/** A public client on Base over {@link baseTransport}. */
export const basePublicClient = (rpcUrls: RpcUrls, pollingIntervalMs?: number, opts: { batch?: boolean } = {}) =>
  createPublicClient({
    chain: base,
    transport: baseTransport(rpcUrls, opts),
    ...(pollingIntervalMs ? { pollingInterval: pollingIntervalMs } : {}),
  });
