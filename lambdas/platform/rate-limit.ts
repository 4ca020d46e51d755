/**
 * Per-caller rate limits, as the route table declares them (`RouteDefinition.rateLimit`), enforced
 * by `createDomainHandler` before a route runs. A sliding-window log per caller: it admits exactly
 * `requests` in any rolling window of `perSeconds`, so the 121st of "120 per 60 s" inside any minute
 * is refused, and it says how long until a slot frees. Chosen over a refilling token bucket because
 * the limit it enforces is the one it states.
 *
 * The state lives in the function instance ("per isolate", as the spec puts it): a new instance
 * starts with empty windows, and N instances admit up to N times the limit. It stops one caller
 * from spending the budget of everyone else; it is not a global quota.
 */
import { lru } from './memo';
import type { RateLimitRule } from '../contract/routes';
import { PLATFORM_ERRORS, type AppError } from './errors';
import { METRICS } from '../contract/metrics';
import { countMetric } from './metrics';

/** Admits a request or says how long to wait. */
export interface RateLimiter {
  /** Undefined when admitted (and counted); otherwise the whole seconds, at least 1, until a slot frees. */
  take(nowMs: number): number | undefined;
}

/** A {@link RateLimiter} per key (e.g. per source address). */
export interface KeyedRateLimiter {
  /** Undefined when `key` is admitted (and counted); otherwise the seconds until its next slot frees. */
  take(key: string, nowMs: number): number | undefined;
}

/**
 * Callers remembered per scope. Each keeps at most `requests` timestamps, so memory is bounded
 * (5000 × 300 stamps at worst); past it the least recently seen caller is forgotten and starts
 * with an empty window, which fails open for that caller rather than refusing anyone.
 */
export const MAX_CALLERS_PER_SCOPE = 5000;

/** Exactly `limit` admissions in any rolling window of `windowMs`. */
export function slidingWindowLimiter(limit: number, windowMs: number): RateLimiter {
  // Admitted requests still inside the window, oldest first; never longer than `limit`.
  const stamps: number[] = [];
  return {
    take(now) {
      let expired = 0;
      while (expired < stamps.length && stamps[expired]! <= now - windowMs) expired++;
      if (expired > 0) stamps.splice(0, expired);
      if (stamps.length >= limit) return Math.max(1, Math.ceil((stamps[0]! + windowMs - now) / 1000));
      stamps.push(now);
      return undefined;
    },
  };
}

/** One {@link slidingWindowLimiter} per key, for at most `maxKeys` keys (least recently seen forgotten first). */
export function keyedSlidingWindowLimiter(limit: number, windowMs: number, maxKeys = MAX_CALLERS_PER_SCOPE): KeyedRateLimiter {
  const byKey = lru<RateLimiter>(maxKeys);
  return {
    take(key, now) {
      let limiter = byKey.get(key);
      if (!limiter) byKey.set(key, (limiter = slidingWindowLimiter(limit, windowMs)));
      return limiter.take(now);
    },
  };
}

/** The limiters of one function instance, one budget per scope, keyed by caller within it. */
export interface ScopedRateLimiters {
  /** Counts a request of `caller` against the rule's scope: undefined when admitted, else seconds to wait. */
  take(rule: RateLimitRule, caller: string, nowMs: number): number | undefined;
}

/** Creates the per-instance limiters; a scope is created on first use with its rule's numbers. */
export function scopedRateLimiters(maxCallersPerScope = MAX_CALLERS_PER_SCOPE): ScopedRateLimiters {
  const scopes = new Map<string, { rule: RateLimitRule; limiter: KeyedRateLimiter }>();
  return {
    take(rule, caller, now) {
      let scope = scopes.get(rule.scope);
      if (!scope) {
        scope = { rule, limiter: keyedSlidingWindowLimiter(rule.requests, rule.perSeconds * 1000, maxCallersPerScope) };
        scopes.set(rule.scope, scope);
      } else if (scope.rule.requests !== rule.requests || scope.rule.perSeconds !== rule.perSeconds) {
        // Routes sharing a scope share one budget; two sizes for one budget is a route-table mistake.
        throw new Error(`Rate-limit scope ${rule.scope} is declared with two different limits.`);
      }
      return scope.limiter.take(caller, now);
    },
  };
}

/** The spec's failure body for a limited caller: 429 RATE_LIMITED, retry true, with Retry-After. */
export function rateLimited(retryAfterSeconds: number, rule: RateLimitRule): AppError {
  countMetric(METRICS.rateLimited, { Scope: rule.scope });
  return PLATFORM_ERRORS.RATE_LIMITED({
    message: `Too many requests from this address: at most ${rule.requests} per ${rule.perSeconds} s (${rule.scope}).`,
    tip: `Retry after ${retryAfterSeconds} s (the Retry-After header), then back off exponentially (2 s, 4 s, 8 s, 16 s).`,
    details: { retry_after_seconds: retryAfterSeconds, limit: rule.requests, window_seconds: rule.perSeconds, scope: rule.scope },
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
