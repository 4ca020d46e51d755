/**
 * The body of POST /api/intent (an intent bounty): the catalog validates with it and the OpenAPI
 * document publishes it. In the contract, beside the challenge's schema, so that the discovery
 * function's OpenAPI route loads it, and zod, with its own chunk, not at every cold start.
 */
import * as z from 'zod/mini';

/** A string trimmed, then held to a length (classic zod's `.trim().min().max()`). */
const trimmed = (min: number, max: number) => z.string().check(z.trim(), z.minLength(min), z.maxLength(max));

/** Limits on a posted intent bounty; documented in docs/ARCHITECTURE.md. On zod's mini build, as the hot-path bodies are (platform/validation.ts). */
export const IntentBodySchema = z
  .strictObject({
    title: z.optional(trimmed(3, 120)),
    description: z.optional(trimmed(10, 2000)),
    success_criteria: z.array(trimmed(3, 300)).check(z.minLength(1), z.maxLength(10)),
    budget_usd: z.optional(z.number().check(z.positive(), z.maximum(10_000))),
    skill_hints: z.optional(z.array(trimmed(1, 100)).check(z.maxLength(5))),
  })
  .check(
    z.refine((b) => b.title !== undefined || b.description !== undefined, {
      message: 'give a title or a description (or both)',
      path: ['title'],
    }),
  );
