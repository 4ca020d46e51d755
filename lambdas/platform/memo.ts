/** The caches the handlers share: a lazily started promise, bounded LRU maps (lru-cache), a short-lived answer. */
import { LRUCache } from 'lru-cache';

/**
 * Runs `start` on first use and shares its promise; a rejected promise is forgotten, so the
 * next caller tries again (a cold-start failure must not poison the instance).
 */
export function cacheUntilFailure<T>(start: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= start().catch((e: unknown) => {
      pending = undefined;
      throw e;
    });
    return pending;
  };
}

/**
 * A bounded LRU per owner (e.g. per ports instance, whose configuration and catalog are fixed
 * for its life), dropped with the owner.
 */
export function lruPerOwner<Owner extends object, V extends NonNullable<unknown>>(max: number): (owner: Owner) => LRUCache<string, V> {
  const caches = new WeakMap<Owner, LRUCache<string, V>>();
  return (owner) => {
    let cache = caches.get(owner);
    if (!cache) caches.set(owner, (cache = new LRUCache<string, V>({ max })));
    return cache;
  };
}

/**
 * Shares one answer for `ttlMs` (per key): a probe that costs a paid RPC call or a table
 * describe is not repeated for every caller that asks within a few seconds. A failed call is
 * not kept.
 */
export function cacheFor<A extends readonly unknown[], T>(ttlMs: number, fn: (...args: A) => Promise<T>, now: () => number = Date.now) {
  const hits = new Map<string, { at: number; value: Promise<T> }>();
  return (...args: A): Promise<T> => {
    const key = JSON.stringify(args);
    const hit = hits.get(key);
    if (hit && now() - hit.at < ttlMs) return hit.value;
    const value = fn(...args);
    hits.set(key, { at: now(), value });
    value.catch(() => hits.delete(key));
    return value;
  };
}
