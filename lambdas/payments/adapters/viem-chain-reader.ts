/**
 * The chain reader on viem. For each provider in order: its chain id is checked once per
 * process (it must be 8453); then the receipt and the current head are fetched in one
 * batched JSON-RPC request. A provider error, a wrong chain, or a `null` receipt moves on
 * to the next provider; the whole look-up is bounded in time.
 */
import { createPublicClient, http, TransactionReceiptNotFoundError, type PublicClient } from 'viem';
import { cacheUntilFailure } from '../../platform/memo';
import { PROVIDER_TIMEOUT_MS, VERIFICATION_BUDGET_MS } from '../../contract/confirmation-policy';
import { redactUrl } from '../../platform/redact';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { ChainReader } from '../ports';
import { receiptView } from '../../platform/adapters/viem-receipt-view';
import { METRICS } from '../../contract/metrics';
import { countMetric, durationMetric } from '../../platform/metrics';

interface Provider {
  url: string;
  client: PublicClient;
  /** Resolves to an error message if the provider is on the wrong chain; cached once it answered, asked again if unreachable. */
  checkChain: () => Promise<string | undefined>;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

export function viemChainReader(urls: RpcUrls, chainId: number, opts: { budgetMs?: number; providerTimeoutMs?: number } = {}): ChainReader {
  const budget = opts.budgetMs ?? VERIFICATION_BUDGET_MS;
  const perProvider = opts.providerTimeoutMs ?? PROVIDER_TIMEOUT_MS;
  // One client per URL for the life of the process (its chain-id check is cached); the list itself
  // may change when the RPC secret is rewritten.
  const known = new Map<string, Provider>();
  const providerFor = (url: string): Provider => {
    let p = known.get(url);
    if (p) return p;
    // batch: requests made in the same tick (receipt + head) travel as one JSON-RPC batch.
    const client = createPublicClient({ transport: http(url, { batch: { wait: 0 }, timeout: perProvider, retryCount: 0 }) });
    const checkChain = cacheUntilFailure(async () => {
      const id = await client.getChainId();
      return id === chainId ? undefined : `chain id ${id}, not ${chainId}`;
    });
    known.set(url, (p = { url, client, checkChain }));
    return p;
  };

  return {
    async readTransfer(hash, opts = {}) {
      const deadline = Date.now() + budget;
      const errors: string[] = [];
      let answered = 0;
      let lowestHead: bigint | undefined;
      const providers = (await urls()).map(providerFor);
      for (const p of providers) {
        const left = deadline - Date.now();
        if (left <= 0) {
          errors.push(`${redactUrl(p.url)}: verification budget spent`);
          break;
        }
        const started = Date.now();
        const host = redactUrl(p.url);
        try {
          const wrongChain = await withTimeout(p.checkChain(), Math.min(left, perProvider));
          if (wrongChain) {
            errors.push(`${redactUrl(p.url)}: ${wrongChain}`);
            continue;
          }
          const [receipt, head] = await withTimeout(
            Promise.all([
              p.client.getTransactionReceipt({ hash }).catch((e: unknown) => {
                if (e instanceof TransactionReceiptNotFoundError) return null;
                throw e;
              }),
              p.client.getBlockNumber({ cacheTime: 0 }),
            ]),
            Math.min(deadline - Date.now(), perProvider),
          );
          answered++;
          durationMetric(METRICS.rpcLatency, Date.now() - started, { Provider: host });
          if (!receipt) {
            lowestHead = lowestHead === undefined || head < lowestHead ? head : lowestHead;
            continue;
          }
          // The block's own timestamp, when asked: a first claim's age is judged by the chain, not by our clock.
          const block = opts.blockTime
            ? await withTimeout(
                p.client.getBlock({ blockHash: receipt.blockHash, includeTransactions: false }),
                Math.max(1, Math.min(deadline - Date.now(), perProvider)),
              )
            : undefined;
          return {
            kind: 'found',
            receipt: receiptView(receipt),
            head,
            provider: redactUrl(p.url),
            ...(block ? { blockTimestamp: block.timestamp } : {}),
          };
        } catch (e) {
          countMetric(METRICS.rpcProviderFailures, { Provider: host });
          errors.push(`${host}: ${(e as Error).name || 'error'}`);
        }
      }
      return answered > 0 ? { kind: 'not_found', answered, head: lowestHead } : { kind: 'unavailable', errors };
    },
  };
}
