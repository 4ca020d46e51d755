/** Two caches the handlers share: a lazily started promise, and a bounded cache per owner object. */
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
