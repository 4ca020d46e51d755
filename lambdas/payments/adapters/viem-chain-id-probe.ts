import { createPublicClient, http } from 'viem';
import type { ProviderChainId } from '../ports';

/** Asks each RPC provider for its chain id, with a short timeout and no retries. */
export function viemChainIdProbe(timeoutMs = 2_000) {
  return async (urls: readonly string[]): Promise<ProviderChainId[]> =>
    Promise.all(
      urls.map(async (url) => {
        try {
          const client = createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) });
          return { url, chainId: await client.getChainId(), error: undefined };
        } catch (e) {
          return { url, chainId: undefined, error: (e as Error).name || 'unreachable' };
        }
      }),
    );
}
