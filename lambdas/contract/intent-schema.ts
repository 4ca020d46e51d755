/**
 * The body of POST /api/intent (an intent bounty): the catalog validates with it and the OpenAPI
 * document publishes it. In the contract, beside the challenge's schema, so that the discovery
 * function's OpenAPI route loads it, and zod, with its own chunk, not at every cold start.
 */
import * as z from 'zod';

/** Limits on a posted intent bounty; documented in docs/ARCHITECTURE.md. */
export const IntentBodySchema = z
  .object({
    title: z.string().trim().min(3).max(120).optional(),
    description: z.string().trim().min(10).max(2000).optional(),
    success_criteria: z.array(z.string().trim().min(3).max(300)).min(1).max(10),
    budget_usd: z.number().positive().max(10_000).optional(),
    skill_hints: z.array(z.string().trim().min(1).max(100)).max(5).optional(),
  })
  .strict()
  .refine((b) => b.title !== undefined || b.description !== undefined, {
    message: 'give a title or a description (or both)',
    path: ['title'],
  });
