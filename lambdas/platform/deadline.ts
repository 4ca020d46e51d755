/**
 * Answers before Lambda cuts a function off: a route still waiting `marginMs` before the
 * invocation's time runs out is failed, so the caller gets the spec's 503 INTERNAL_ERROR with
 * retry true instead of API Gateway's bare 500. What middy's `timeoutEarlyInMillis` does, without
 * arming and clearing a timer for every request: one timer per function instance, set for the
 * earliest deadline waiting. Under load (the local server runs many invocations of one handler
 * at once) it is re-armed about once per timeout; middy's per-request timer was 15 % of the local
 * server's CPU per request (issue 14, A/B on bench/edge-layers.ts).
 */
import type { Context } from 'aws-lambda';

/** Middy's default margin: answer 5 ms before Lambda would stop the function. */
export const EARLY_ANSWER_MS = 5;

/** Thrown into a route's place when its time is up; the error handler answers it 503 INTERNAL_ERROR. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('The route did not answer before the function would have been stopped.');
    this.name = 'DeadlineExceeded';
  }
}

interface Waiting {
  deadline: number;
  fail: () => void;
}

/** Fails waiting work at its invocation's deadline. */
export interface DeadlineGuard {
  /** `work`, or a {@link DeadlineExceeded} rejection if it is still pending `marginMs` before the context's time runs out. */
  within<T>(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined, work: Promise<T>): Promise<T>;
}

/** Creates the guard of one function instance. */
export function deadlineGuard(marginMs = EARLY_ANSWER_MS, now: () => number = Date.now): DeadlineGuard {
  const waiting = new Set<Waiting>();
  let timer: NodeJS.Timeout | undefined;
  let armedFor = Infinity;

  const arm = (at: number): void => {
    if (timer) clearTimeout(timer);
    armedFor = at;
    // Unref'd: a guard never keeps a process alive on its own.
    timer = setTimeout(expire, Math.max(0, at - now())).unref();
  };
  function expire(): void {
    timer = undefined;
    armedFor = Infinity;
    const t = now();
    let next = Infinity;
    for (const w of waiting) {
      if (w.deadline <= t) {
        waiting.delete(w);
        w.fail();
      } else if (w.deadline < next) next = w.deadline;
    }
    if (next !== Infinity) arm(next);
  }

  return {
    within(context, work) {
      // Tests and local tools may pass a context without a clock: nothing to guard then.
      if (typeof context?.getRemainingTimeInMillis !== 'function') return work;
      const deadline = now() + context.getRemainingTimeInMillis() - marginMs;
      return new Promise((resolve, reject) => {
        const entry: Waiting = { deadline, fail: () => reject(new DeadlineExceeded()) };
        waiting.add(entry);
        // Deadlines mostly come in order: only an earlier one than the timer's moves it.
        if (deadline < armedFor) arm(deadline);
        work.then(
          (value) => {
            waiting.delete(entry);
            resolve(value);
          },
          (error: unknown) => {
            waiting.delete(entry);
            reject(error);
          },
        );
      });
    },
  };
}
