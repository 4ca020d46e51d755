import { describe, expect, it } from 'vitest';
import { BoundedLru, cacheFor } from '../../lambdas/platform/memo';

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

describe('BoundedLru', () => {
  it('keeps at most max keys and forgets the least recently used first, a read counting as a use', () => {
    const lru = new BoundedLru<string, number>(2);
    lru.set('a', 1).set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now newer than b
    lru.set('c', 3);
    expect([lru.get('a'), lru.get('b'), lru.get('c'), lru.size]).toEqual([1, undefined, 3, 2]);
    lru.set('a', 10); // rewriting is a use too
    lru.set('d', 4);
    expect([lru.get('a'), lru.get('c'), lru.get('d')]).toEqual([10, undefined, 4]);
    expect(lru.delete('a')).toBe(true);
    expect(lru.get('a')).toBeUndefined();
  });

  it('counts a read of the newest key as a use, and forgets a deleted one', () => {
    const lru = new BoundedLru<string, number>(2);
    lru.set('a', 1).set('b', 2);
    expect(lru.get('b')).toBe(2); // already the newest
    expect(lru.get('b')).toBe(2);
    lru.set('c', 3); // a is the least recently used
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([undefined, 2, 3]);
    expect(lru.delete('c')).toBe(true);
    expect(lru.get('c')).toBeUndefined();
    lru.set('d', 4).set('e', 5); // d, then e: b went first
    expect([lru.get('b'), lru.get('d'), lru.get('e'), lru.size]).toEqual([undefined, 4, 5, 2]);
  });

  it('keeps a falsy value, and refuses a size under one', () => {
    const lru = new BoundedLru<string, number>(1);
    lru.set('zero', 0);
    expect(lru.get('zero')).toBe(0);
    expect(() => new BoundedLru(0)).toThrow(RangeError);
  });
});
