/**
 * API Gateway's integration timeout for the local edge: a handler that has not answered in
 * time is answered 503 (`INTERNAL_ERROR`, retry true), as API Gateway gives up on it.
 *
 * One sweep per `sweepMs` over the requests past their deadline instead of a timer per request: arming and
 * clearing a node timer, and racing a second promise, was a measurable part of a warm request
 * (issue 14). The answer therefore comes between `timeoutMs` and `timeoutMs + sweepMs`. The
 * outcome is handed to a callback rather than to a promise of its own, for the same reason.
 */
import { internalError } from '../lambdas/platform/errors';

/** What became of a handler's work: its value, or why there is none (its error, or the timeout's 503). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A request waiting for its handler: a node of a list kept in deadline order. */
interface Waiting {
  deadline: number;
  settled: boolean;
  done: (outcome: Outcome<never>) => void;
  prev: Waiting | undefined;
  next: Waiting | undefined;
}

/**
 * Returns `guard(work, done)`: calls `done` once, with `work`'s outcome, or with the timeout's
 * 503 once `timeoutMs` have passed without one (a later outcome is then ignored).
 *
 * The waiting requests are a linked list, not a Set: adding and removing a node touches two
 * neighbours, where a Set hashed each entry and rehashed itself as it shrank (a Set add and
 * delete per request, about 1 % of the edge's samples). Every deadline is "now + timeoutMs", so
 * appending keeps the list in deadline order and a sweep stops at the first request still in
 * time (a wall clock set back only delays the answer until the sweep after).
 */
export function gatewayTimeout(timeoutMs: number, sweepMs = 1_000): <T>(work: Promise<T>, done: (outcome: Outcome<T>) => void) => void {
  let head: Waiting | undefined;
  let tail: Waiting | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  const unlink = (w: Waiting): void => {
    w.settled = true;
    if (w.prev) w.prev.next = w.next;
    else head = w.next;
    if (w.next) w.next.prev = w.prev;
    else tail = w.prev;
    w.prev = w.next = undefined;
  };
  const sweep = (): void => {
    const now = Date.now();
    while (head && head.deadline <= now) {
      const w = head;
      unlink(w);
      w.done({ ok: false, error: internalError(`The function did not answer within ${timeoutMs / 1000} s.`) });
    }
    if (!head) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  return <T>(work: Promise<T>, done: (outcome: Outcome<T>) => void): void => {
    const entry: Waiting = {
      deadline: Date.now() + timeoutMs,
      settled: false,
      done: done as (outcome: Outcome<never>) => void,
      prev: tail,
      next: undefined,
    };
    if (tail) tail.next = entry;
    else head = entry;
    tail = entry;
    // Never keeps the process alive: a stopped server's last requests do not hold it open.
    sweeper ??= setInterval(sweep, sweepMs).unref();
    // A handler that answers after the timeout is ignored, and its failure is not left unhandled.
    work.then(
      (value) => {
        if (entry.settled) return;
        unlink(entry);
        done({ ok: true, value });
      },
      (error: unknown) => {
        if (entry.settled) return;
        unlink(entry);
        done({ ok: false, error });
      },
    );
  };
}
