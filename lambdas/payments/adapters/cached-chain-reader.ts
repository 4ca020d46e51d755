import { lru } from '../../platform/memo';
import type { ChainRead, ChainReader } from '../ports';

/**
 * Remembers for a moment that no provider knows a transaction: the same unknown hash posted
 * again and again costs one paid RPC look-up per `ttlMs`, not one per request. Short, because a
 * real transfer broadcast a moment ago must still be found on the buyer's next retry (2 s later).
 * Only "not found" is kept; a found receipt or an outage always reads the chain again.
 */
export function withNegativeCache(reader: ChainReader, ttlMs = 1_500, max = 10_000): ChainReader {
  const unknown = lru<{ read: Extract<ChainRead, { kind: 'not_found' }>; until: number }>(max);
  return {
    async readTransfer(hash, opts) {
      const key = hash.toLowerCase();
      const hit = unknown.get(key);
      if (hit && Date.now() < hit.until) return hit.read;
      const read = await reader.readTransfer(hash, opts);
      if (read.kind === 'not_found') unknown.set(key, { read, until: Date.now() + ttlMs });
      return read;
    },
  };
}
