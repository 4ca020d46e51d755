/**
 * API Gateway's integration timeout for the local edge: a handler that has not answered in
 * time is answered 503 (`INTERNAL_ERROR`, retry true), as API Gateway gives up on it.
 *
 * One sweep per `sweepMs` over the waiting requests instead of a timer per request: arming and
 * clearing a node timer, and racing a second promise, was a measurable part of a warm request
 * (issue 14). The answer therefore comes between `timeoutMs` and `timeoutMs + sweepMs`. The
 * outcome is handed to a callback rather than to a promise of its own, for the same reason.
 */
import { internalError } from '../lambdas/platform/errors';

/** What became of a handler's work: its value, or why there is none (its error, or the timeout's 503). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Waiting {
  deadline: number;
  settled: boolean;
  done: (outcome: Outcome<never>) => void;
}

/**
 * Returns `guard(work, done)`: calls `done` once, with `work`'s outcome, or with the timeout's
 * 503 once `timeoutMs` have passed without one (a later outcome is then ignored).
 */
export function gatewayTimeout(timeoutMs: number, sweepMs = 1_000): <T>(work: Promise<T>, done: (outcome: Outcome<T>) => void) => void {
  const waiting = new Set<Waiting>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const w of waiting)
      if (w.deadline <= now) {
        waiting.delete(w);
        w.settled = true;
        w.done({ ok: false, error: internalError(`The function did not answer within ${timeoutMs / 1000} s.`) });
      }
    if (waiting.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  return <T>(work: Promise<T>, done: (outcome: Outcome<T>) => void): void => {
    const entry: Waiting = { deadline: Date.now() + timeoutMs, settled: false, done: done as (outcome: Outcome<never>) => void };
    waiting.add(entry);
    // Never keeps the process alive: a stopped server's last requests do not hold it open.
    sweeper ??= setInterval(sweep, sweepMs).unref();
    // A handler that answers after the timeout is ignored, and its failure is not left unhandled.
    work.then(
      (value) => {
        if (entry.settled) return;
        waiting.delete(entry);
        entry.settled = true;
        done({ ok: true, value });
      },
      (error: unknown) => {
        if (entry.settled) return;
        waiting.delete(entry);
        entry.settled = true;
        done({ ok: false, error });
      },
    );
  };
}
