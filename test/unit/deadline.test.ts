import { describe, expect, it } from 'vitest';
import { DeadlineExceeded, deadlineGuard } from '../../lambdas/platform/deadline';

/** A context whose time runs out `ms` from now, as Lambda's does. */
const remaining = (ms: number) => {
  const end = Date.now() + ms;
  return { getRemainingTimeInMillis: () => end - Date.now() };
};
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value, at: Date.now() }),
    (error: unknown) => ({ error, at: Date.now() }),
  );

describe('deadlineGuard', () => {
  it('passes an answer or a failure through unchanged', async () => {
    const guard = deadlineGuard();
    await expect(guard.within(remaining(1_000), Promise.resolve('answer'))).resolves.toBe('answer');
    await expect(guard.within(remaining(1_000), Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });

  it('fails work still pending at its deadline, each at its own, whatever order they came in', async () => {
    const guard = deadlineGuard(5);
    const start = Date.now();
    // The later one first: the guard's one timer must move to the earlier deadline.
    const late = settled(guard.within(remaining(150), never()));
    const early = settled(guard.within(remaining(40), never()));
    const answered = settled(guard.within(remaining(60), new Promise((r) => setTimeout(() => r('in time'), 10))));
    const [l, e, a] = await Promise.all([late, early, answered]);
    expect(a).toMatchObject({ value: 'in time' });
    expect(e).toMatchObject({ error: expect.any(DeadlineExceeded) });
    expect(l).toMatchObject({ error: expect.any(DeadlineExceeded) });
    expect(e.at - start).toBeGreaterThanOrEqual(30);
    expect(e.at - start).toBeLessThan(100);
    expect(l.at - start).toBeGreaterThanOrEqual(140);
  });

  it('keeps guarding after a quiet spell, and ignores a failure that comes after the deadline', async () => {
    const guard = deadlineGuard(5);
    let fail: (e: Error) => void = () => undefined;
    await expect(guard.within(remaining(20), new Promise((_, reject) => (fail = reject)))).rejects.toBeInstanceOf(DeadlineExceeded);
    fail(new Error('too late')); // no unhandled rejection
    await new Promise((r) => setTimeout(r, 30));
    await expect(guard.within(remaining(20), never())).rejects.toBeInstanceOf(DeadlineExceeded);
  });

  it('leaves work alone when the context has no clock', async () => {
    const work = Promise.resolve(1);
    expect(deadlineGuard().within(undefined, work)).toBe(work);
  });
});
