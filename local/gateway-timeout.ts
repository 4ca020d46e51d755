/**
 * API Gateway's integration timeout for the local edge: a handler that has not answered in
 * time is answered 503 (`INTERNAL_ERROR`, retry true), as API Gateway gives up on it.
 *
 * One sweep per `sweepMs` over the waiting requests instead of a timer per request: arming and
 * clearing a node timer, and racing a second promise, was a measurable part of a warm request
 * (issue 14). The answer therefore comes between `timeoutMs` and `timeoutMs + sweepMs`.
 */
import { internalError } from '../lambdas/platform/errors';

interface Waiting {
  deadline: number;
  fail: (err: Error) => void;
}

/** Returns `guard(work)`: `work`'s outcome, or the timeout's 503 once `timeoutMs` have passed without one. */
export function gatewayTimeout(timeoutMs: number, sweepMs = 1_000): <T>(work: Promise<T>) => Promise<T> {
  const waiting = new Set<Waiting>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const w of waiting) if (w.deadline <= now) w.fail(internalError(`The function did not answer within ${timeoutMs / 1000} s.`));
    if (waiting.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  return <T>(work: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const entry: Waiting = {
        deadline: Date.now() + timeoutMs,
        fail: (err) => {
          waiting.delete(entry);
          reject(err);
        },
      };
      waiting.add(entry);
      // Never keeps the process alive: a stopped server's last requests do not hold it open.
      sweeper ??= setInterval(sweep, sweepMs).unref();
      // Settling twice is a no-op: a handler that answers after the timeout is ignored, not unhandled.
      work.then(
        (value) => {
          waiting.delete(entry);
          resolve(value);
        },
        (err: unknown) => {
          waiting.delete(entry);
          reject(err);
        },
      );
    });
}
