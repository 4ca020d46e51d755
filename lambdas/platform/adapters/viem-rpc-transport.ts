/**
 * A viem transport over providers that are known only when the first request is made (the RPC
 * secret is read then, not at init: platform/rpc-urls.ts). Each request goes to viem's
 * `fallback` over `http` transports for the current list: the providers in order, the next one
 * on an error; the list is rebuilt only when it changes.
 */
import { custom, fallback, http, type HttpTransportConfig, type Transport } from 'viem';
import type { RpcUrls } from '../rpc-urls';

/**
 * A transport over `urls`, each provider with `perProvider` (timeout, batching). Nothing is
 * retried here or on the same provider (`retryCount: 0` throughout): the callers bound their
 * own time and decide what a failure means.
 */
export function rpcTransport(urls: RpcUrls, perProvider: HttpTransportConfig = {}): Transport {
  return (params) => {
    let current: { key: string; request: ReturnType<Transport>['request'] } | undefined;
    const request = async (args: { method: string; params?: unknown }) => {
      const list = await urls();
      if (list.length === 0) throw new Error('no JSON-RPC provider is configured');
      const key = list.join(' ');
      if (current?.key !== key) {
        const inner = fallback(
          list.map((url) => http(url, { ...perProvider, retryCount: 0 })),
          { retryCount: 0 },
        )({ ...params, retryCount: 0 });
        current = { key, request: inner.request };
      }
      return current.request(args as never);
    };
    return custom({ request }, { key: 'rpc', name: 'JSON-RPC providers', retryCount: 0 })(params);
  };
}

/**
 * The "no" of a contract-wallet signature check (EIP-1271, ERC-6492), trusted only from a chain
 * that answers now: viem's verifyHash answers false also when its eth_call could not be made.
 * Asks for the head and throws when no provider answers (a fault: 503, retry), else false.
 */
export async function chainSaysNo(client: { getBlockNumber: (args: { cacheTime: number }) => Promise<bigint> }): Promise<false> {
  await client.getBlockNumber({ cacheTime: 0 });
  return false;
}
