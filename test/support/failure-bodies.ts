/** The spec's failure body for a 429, as a `toMatchObject` pattern; `details` where a test pins the rule's numbers. */
import { expect } from 'vitest';
export const rateLimitedBody = (details?: Record<string, unknown>) => ({
  ok: false,
  error: 'rate_limited',
  error_code: 'RATE_LIMITED',
  message: expect.any(String),
  retry: true,
  tip: expect.any(String),
  ...(details ? { details } : {}),
});
