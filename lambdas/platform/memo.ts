/** The caches the handlers share: a lazily started promise, bounded LRU maps, a short-lived answer. */

/** A map of at most `max` keys that forgets the least recently used first. */
export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
}

/**
 * The one LRU: a plain Map, which keeps keys in insertion order, so a use moves its key to the end
 * and the first key is the least recently used. Written here rather than taken from lru-cache,
 * whose 18 KiB every function parsed at each cold start for the two methods used
 * (docs/PERFORMANCE.md, cold start).
 */
export function lru<V>(max: number): Lru<V> {
  if (!(max >= 1)) throw new RangeError(`an LRU holds at least one key, not ${max}`);
  const map = new Map<string, V>();
  return {
    get(key) {
      const value = map.get(key);
      if (value !== undefined) {
        map.delete(key);
        map.set(key, value);
      }
      return value;
    },
    set(key, value) {
      map.delete(key);
      map.set(key, value);
      if (map.size > max) map.delete(map.keys().next().value!);
    },
    delete(key) {
      map.delete(key);
    },
  };
}

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
export function lruPerOwner<Owner extends object, V extends NonNullable<unknown>>(max: number): (owner: Owner) => Lru<V> {
  const caches = new WeakMap<Owner, Lru<V>>();
  return (owner) => {
    let cache = caches.get(owner);
    if (!cache) caches.set(owner, (cache = lru<V>(max)));
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

/** A yes/no fact read from outside and kept as `yesKept` keeps it. */
export interface KeptYes {
  /** The last reading at once (no before the first), starting a read when one is due. */
  current(): boolean;
  /** A reading: the kept yes, or a fresh read when one is due (a failed read is a rejection). */
  read(): Promise<boolean>;
}

/**
 * A fact that, once true, stays true for the process (an account's delegation, which only its own
 * key could undo): a yes is kept for good; a no stands `noForMs` and is read again on the next use
 * after that; a failed read is kept as nothing (read again on the next use). One read at a time.
 */
export function yesKept(read: () => Promise<boolean>, noForMs: number, now: () => number = Date.now): KeptYes {
  let yes = false;
  let noUntil = -Infinity;
  let pending: Promise<boolean> | undefined;
  const fresh = (): Promise<boolean> =>
    (pending ??= read()
      .then((value) => {
        yes = value;
        if (!value) noUntil = now() + noForMs;
        return value;
      })
      .finally(() => {
        pending = undefined;
      }));
  const due = () => !yes && now() >= noUntil;
  return {
    current() {
      if (due()) fresh().catch(() => undefined);
      return yes;
    },
    read: () => (due() ? fresh() : Promise.resolve(yes)),
  };
}
