/** The authored skill record (catalog/skills/*.json) and the price source, validated by the build. */
import * as z from 'zod';
import { DAY } from '../lambdas/contract/days';

export const LIST_PRICES = [0.05, 0.1, 0.25, 0.49, 0.99, 1.99, 2.99, 4.99] as const;

const text = (min: number, max: number) => z.string().trim().min(min).max(max);

/** Ids of skills and bundles: kebab-case. */
const KEBAB_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export const SkillRecordSchema = z
  .object({
    id: z.string().regex(KEBAB_ID, 'kebab-case').min(3).max(60),
    name: text(3, 60),
    category: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
    summary: text(40, 200),
    tags: z
      .array(z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/))
      .min(3)
      .max(8),
    price_usd: z.number().refine((p) => (LIST_PRICES as readonly number[]).includes(p), `one of ${LIST_PRICES.join(', ')}`),
    audience: text(20, 600),
    outcome: text(20, 600),
    inputs: z.array(text(3, 400)).min(2).max(6),
    steps: z
      .array(z.object({ title: text(3, 120), detail: text(40, 2000) }).strict())
      .min(4)
      .max(9),
    checks: z.array(text(10, 500)).min(3).max(7),
    pitfalls: z.array(text(10, 600)).min(2).max(5),
    example: z.object({ situation: text(20, 1500), walkthrough: text(40, 3000), result: text(10, 1500) }).strict(),
    files: z
      .record(
        z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/)
          .refine((p) => !p.includes('..') && p !== 'SKILL.md', 'no traversal, not SKILL.md'),
        z.string().min(200).max(4000),
      )
      .refine((f) => Object.keys(f).length <= 3, 'at most 3 supporting files')
      .optional(),
  })
  .strict();

export type SkillRecord = z.infer<typeof SkillRecordSchema>;

/** A positive whole number of atomic USDC units (6 decimals), as a string so it never loses precision. */
const ATOMIC_AMOUNT = z.string().regex(/^[1-9][0-9]{0,15}$/);

export const PricingSchema = z
  .object({
    $comment: z.string().optional(),
    canary: z.string(),
    x402_resources: z.array(z.object({ skill_id: z.string(), amount: ATOMIC_AMOUNT }).strict()).length(10),
    card_cents: z.record(z.string(), z.number().int().positive()),
    subscriptions: z
      .object({
        period_days: z.number().int().min(1).max(366),
        all_access: z.object({ amount: ATOMIC_AMOUNT }).strict(),
        per_category: z.object({ amount: ATOMIC_AMOUNT }).strict(),
      })
      .strict(),
    meter: z.object({ min_top_up: ATOMIC_AMOUNT }).strict(),
  })
  .strict();

export type Pricing = z.infer<typeof PricingSchema>;

/** catalog/bundles.json: composable stacks; no prices here (totals come from the price source). */
export const BundlesSchema = z
  .object({
    note: z.string(),
    bundles: z
      .array(
        z
          .object({
            id: z.string().regex(KEBAB_ID, 'kebab-case').max(64),
            name: text(3, 80),
            summary: text(20, 400),
            skills: z.array(z.string()).min(2).max(12),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

/** catalog/listings.json: the UTC day each skill was listed. */
export const ListingsSchema = z
  .object({
    note: z.string(),
    listed_at: z.record(z.string(), z.string().regex(DAY, 'yyyy-mm-dd')),
  })
  .strict();
