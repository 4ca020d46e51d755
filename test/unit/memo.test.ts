import { describe, expect, it } from 'vitest';
import { cacheFor, lru, yesKept } from '../../lambdas/platform/memo';

describe('cacheFor', () => {
  it('shares one answer per key for the time given, forgets failures, and asks again after', async () => {
    let clock = 0;
    let calls = 0;
    const probe = cacheFor(
      5_000,
      async (url: string) => `${url}:${++calls}`,
      () => clock,
    );
    expect(await probe('a')).toBe('a:1');
    expect(await probe('a')).toBe('a:1');
    expect(await probe('b')).toBe('b:2');
    clock = 5_000;
    expect(await probe('a')).toBe('a:3');

    let fail = true;
    const flaky = cacheFor(5_000, async () => {
      if (fail) throw new Error('down');
      return 'up';
    });
    await expect(flaky()).rejects.toThrow('down');
    fail = false;
    expect(await flaky()).toBe('up');
  });
});

describe('lru', () => {
  it('keeps at most max keys and forgets the least recently used first, a read counting as a use', () => {
    const cache = lru<number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('d', 4); // b goes
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    cache.set('c', 30); // setting again is a use, and replaces
    cache.set('e', 5); // a goes (c, d were used after it)
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('c'), cache.get('d'), cache.get('e')]).toEqual([30, 4, 5]);
    cache.delete('d');
    expect(cache.get('d')).toBeUndefined();
  });

  it('refuses a size under one', () => {
    expect(() => lru(0)).toThrow(RangeError);
  });
});

describe('yesKept', () => {
  it('keeps a yes for good, reads a no again only after its time, and keeps no failed read', async () => {
    let clock = 0;
    const answers: Array<boolean | Error> = [false, new Error('provider down'), true, false];
    let reads = 0;
    const kept = yesKept(
      async () => {
        const next = answers[reads++]!;
        if (next instanceof Error) throw next;
        return next;
      },
      60_000,
      () => clock,
    );
    expect(await kept.read()).toBe(false);
    expect(reads).toBe(1);
    // A no stands its minute: no read, whichever way it is asked.
    clock = 59_999;
    expect(kept.current()).toBe(false);
    expect(await kept.read()).toBe(false);
    expect(reads).toBe(1);
    // Due: a failed read rejects and is not kept; the next use reads again.
    clock = 60_000;
    await expect(kept.read()).rejects.toThrow('provider down');
    expect(reads).toBe(2);
    // current() answers at once with what is known, and starts the read that is due.
    expect(kept.current()).toBe(false);
    expect(reads).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(kept.current()).toBe(true);
    // A yes is never read again, however long after.
    clock = 10 ** 12;
    expect(await kept.read()).toBe(true);
    expect(kept.current()).toBe(true);
    expect(reads).toBe(3);
  });

  it('shares one read among callers while it is pending', async () => {
    let reads = 0;
    let answer!: (v: boolean) => void;
    const kept = yesKept(
      () => (reads++, new Promise<boolean>((resolve) => (answer = resolve))),
      1_000,
      () => 0,
    );
    const both = Promise.all([kept.read(), kept.read()]);
    kept.current();
    answer(true);
    expect(await both).toEqual([true, true]);
    expect(reads).toBe(1);
  });
});
