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

export const baseTransport = (rpcUrls: RpcUrls): Transport => rpcTransport(rpcUrls, { timeout: PROVIDER_TIMEOUT_MS });

/** A public client on Base over {@link baseTransport}. */
export const basePublicClient = (rpcUrls: RpcUrls, pollingIntervalMs?: number) =>
  createPublicClient({
    chain: base,
    transport: baseTransport(rpcUrls),
    ...(pollingIntervalMs ? { pollingInterval: pollingIntervalMs } : {}),
  });
