/**
 * How the x402 adapters (relayer, verification, contract-wallet signatures) reach chain 8453:
 * the configured providers in order, the next one on an error, each request bounded in time and
 * never retried on the same provider. The chain reader keeps its own per-provider policy
 * (chain id checked, a budget for the whole look-up).
 */
import { createPublicClient, fallback, http, type Transport } from 'viem';
import { base } from 'viem/chains';

/** A request to one provider gives up after this long and moves to the next. */
const PROVIDER_TIMEOUT_MS = 5_000;

export const baseTransport = (rpcUrls: readonly string[]): Transport =>
  fallback(rpcUrls.map((url) => http(url, { timeout: PROVIDER_TIMEOUT_MS, retryCount: 0 })));

/** A public client on Base over {@link baseTransport}. */
export const basePublicClient = (rpcUrls: readonly string[], pollingIntervalMs?: number) =>
  createPublicClient({
    chain: base,
    transport: baseTransport(rpcUrls),
    ...(pollingIntervalMs ? { pollingInterval: pollingIntervalMs } : {}),
  });
