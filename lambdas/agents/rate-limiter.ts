/**
 * "About 120 requests per 60 seconds per isolate" (the spec's A2A limit): a sliding-window
 * log in the function instance. It admits exactly `limit` requests in any rolling window,
 * so the 121st within a minute is refused, and says how long until a slot frees.
 */
import type { RateLimiter } from './ports';

export function slidingWindowLimiter(limit = 120, windowMs = 60_000): RateLimiter {
  const stamps: number[] = [];
  let head = 0;
  return {
    take(now) {
      while (head < stamps.length && stamps[head]! <= now - windowMs) head++;
      // Drop the expired prefix now and then, so the log stays bounded without shifting on every call.
      if (head > 1024) {
        stamps.splice(0, head);
        head = 0;
      }
      if (stamps.length - head >= limit) return Math.max(1, Math.ceil((stamps[head]! + windowMs - now) / 1000));
      stamps.push(now);
      return undefined;
    },
  };
}
