import { describe, expect, it } from 'vitest';
import { cacheFor } from '../../lambdas/platform/memo';

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
