/** The caches the handlers share: a lazily started promise, bounded LRU maps, a short-lived answer. */

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
 * A map of at most `max` keys that forgets the least recently used first: a Map iterates in
 * insertion order, so a hit is moved to the end and the first key is the oldest. Not lru-cache:
 * these maps are loaded at every cold start, where lru-cache's 18 KiB cost 4 ms of import
 * (bench/cold.ts); lru-cache stays where its TTLs are used, in the adapters' chunk.
 */
/** No key at all (a key may be any value, `undefined` included). */
const NONE: unique symbol = Symbol('none');

export class BoundedLru<K, V> {
  readonly #entries = new Map<K, V>();
  /**
   * The most recently used key: reading it again moves nothing. A hot key (one catalog page,
   * one skill's challenge) was otherwise deleted and re-inserted on every hit, and deleting a key
   * can make V8 rehash the Map as it shrinks: `get` was 1.8 % of a warm GET /api/pay's samples
   * under `perf`, 0.7 % now.
   */
  #newest: K | typeof NONE = NONE;

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError(`BoundedLru needs max >= 1, got ${max}`);
  }

  get(key: K): V | undefined {
    if (key === this.#newest) return this.#entries.get(key);
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    return value;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    if (key === this.#newest) this.#newest = NONE;
    return this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * A bounded LRU per owner (e.g. per ports instance, whose configuration and catalog are fixed
 * for its life), dropped with the owner.
 */
export function lruPerOwner<Owner extends object, V>(max: number): (owner: Owner) => BoundedLru<string, V> {
  const caches = new WeakMap<Owner, BoundedLru<string, V>>();
  return (owner) => {
    let cache = caches.get(owner);
    if (!cache) caches.set(owner, (cache = new BoundedLru<string, V>(max)));
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
