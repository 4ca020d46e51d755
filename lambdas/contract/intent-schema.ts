/**
 * The body of POST /api/intent (an intent bounty): the catalog validates with it and the OpenAPI
 * document publishes it. In the contract, beside the challenge's schema, so that the discovery
 * function's OpenAPI route loads it, and zod, with its own chunk, not at every cold start.
 */
import * as z from 'zod/mini';

/**
 * How long a bounty lives: listed and served for this long after it is posted, then deleted by
 * DynamoDB's TTL (issue 31: anonymous writes are bounded). Anyone may post one without paying, so
 * nothing posted stays for good; an agent whose need remains posts it again.
 */
export const INTENT_LIFETIME_DAYS = 30;
/** Bounties one caller (one address; one /64 for IPv6) may post per UTC day, counted across every function instance. */
export const INTENTS_PER_CALLER_PER_DAY = 50;
/**
 * The user text of one bounty (title, description, criteria, hints) in UTF-8 bytes. Each field's
 * cap counts characters, which take up to 4 bytes each; this bounds the stored row (about 7 KB
 * with its other fields, 7 DynamoDB write units) whatever the script. A bounty in ASCII at every
 * field's maximum (5,620 bytes) fits.
 */
export const INTENT_MAX_TEXT_BYTES = 6 * 1024;

const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

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
    z.refine(
      (b) =>
        [b.title ?? '', b.description ?? '', ...b.success_criteria, ...(b.skill_hints ?? [])].reduce((n, t) => n + utf8Bytes(t), 0) <=
        INTENT_MAX_TEXT_BYTES,
      {
        message: `title, description, success_criteria and skill_hints hold at most ${INTENT_MAX_TEXT_BYTES} bytes of UTF-8 text together`,
      },
    ),
  );
