/**
 * AP2 open payment mandates (vct `mandate.payment.open.1`) as this service reads and enforces
 * them. Pure: the schema, the id, and the check of one verified purchase against the
 * constraints. The spend itself is one conditional write in the store.
 *
 * AP2's rule holds: a constraint this service does not understand makes the mandate fail. The
 * accepted set is AP2's `payment.amount_range`, `payment.budget`, `payment.agent_recurrence`,
 * `payment.allowed_payees` and `payment.execution_date`, plus `skill_market.scope` (skills or
 * categories), this service's own.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import * as z from 'zod/mini';
import { safeParse } from '../../platform/validation';
import { ADDRESS, ATOMIC_PER_USD, formatAtomic } from '../../contract/chain';
import type { CatalogEntry } from '../../contract/catalog-data';
import type { MandateConstraint, MandateDocument, MandateRecord } from '../ports';

export const MANDATE_VCT = 'mandate.payment.open.1';
/** `mnd_` and 32 hex digits of the mandate's sha256. */
export const MANDATE_ID = /^mnd_[0-9a-f]{32}$/;
/** A transfer is counted against a mandate at most this many times (its store keeps each txHash). */
export const MANDATE_MAX_OCCURRENCES = 1_000;

/** AP2's recurrence frequencies, with the least time between two uses; ON_DEMAND has none. */
export const RECURRENCE_SECONDS = {
  ON_DEMAND: 0,
  DAILY: 86_400,
  WEEKLY: 7 * 86_400,
  BIWEEKLY: 14 * 86_400,
  MONTHLY: 28 * 86_400,
  QUARTERLY: 89 * 86_400,
  ANNUALLY: 365 * 86_400,
} as const;

const atomic = z.pipe(
  z.union([z.int().check(z.positive(), z.maximum(Number.MAX_SAFE_INTEGER)), z.string().check(z.regex(/^[1-9][0-9]{0,17}$/))]),
  z.transform(String),
);
const usdc = z.literal('USDC', { message: 'currency must be USDC (atomic units of 6 decimals)' });
const isoTime = z.string().check(z.refine((v) => Number.isFinite(Date.parse(v)), 'must be an ISO 8601 time'));
const id = z.string().check(z.minLength(1), z.maxLength(100));
const hexAddress = z.string().check(z.regex(ADDRESS, 'must be 0x followed by 40 hex digits'));

const CONSTRAINTS = [
  z.strictObject({ type: z.literal('payment.amount_range'), currency: usdc, max: atomic, min: z.optional(atomic) }),
  z.strictObject({
    type: z.literal('payment.budget'),
    currency: usdc,
    // AP2: the budget is in the currency's major unit (USDC), unlike amount_range.
    max: z.number().check(
      z.positive(),
      z.maximum(1e12),
      z.refine((v) => Math.abs(v * 1e6 - Math.round(v * 1e6)) < 1e-6, 'has more than 6 decimals'),
    ),
  }),
  z.strictObject({
    type: z.literal('payment.agent_recurrence'),
    frequency: z.enum(Object.keys(RECURRENCE_SECONDS) as [keyof typeof RECURRENCE_SECONDS]),
    max_occurrences: z.optional(z.int().check(z.minimum(1), z.maximum(MANDATE_MAX_OCCURRENCES))),
  }),
  z.strictObject({
    type: z.literal('payment.allowed_payees'),
    allowed: z
      .array(
        z.looseObject({ id: z.string().check(z.minLength(1), z.maxLength(200)), name: z.optional(z.string().check(z.maxLength(200))) }),
      )
      .check(z.minLength(1), z.maxLength(20)),
  }),
  z.strictObject({ type: z.literal('payment.execution_date'), not_before: z.optional(isoTime), not_after: z.optional(isoTime) }),
  z
    .strictObject({
      type: z.literal('skill_market.scope'),
      skills: z.optional(z.array(id).check(z.minLength(1), z.maxLength(250))),
      categories: z.optional(z.array(id).check(z.minLength(1), z.maxLength(50))),
    })
    .check(z.refine((c) => c.skills !== undefined || c.categories !== undefined, 'names skills or categories')),
] as const;
const ConstraintSchema = z.discriminatedUnion('type', [...CONSTRAINTS]);
/** The constraint types this service understands; any other makes the mandate fail (AP2). */
const KNOWN_CONSTRAINT_TYPES: ReadonlySet<unknown> = new Set(CONSTRAINTS.map((c) => c.shape.type.def.values[0]));

/** The mandate a wallet signs. Unknown top-level fields and unknown constraint types fail. */
export const MandateSchema = z.strictObject({
  vct: z.literal(MANDATE_VCT),
  wallet: hexAddress,
  cnf: z.strictObject({ address: hexAddress }),
  constraints: z.pipe(
    z.array(z.unknown()).check(z.minLength(1), z.maxLength(10)),
    z.transform((items, ctx) => {
      const out: MandateConstraint[] = [];
      const seen = new Set<string>();
      items.forEach((item, i) => {
        const type = (item as { type?: unknown } | null)?.type;
        const parsed = safeParse(ConstraintSchema, item);
        if (!parsed.success) {
          ctx.issues.push({
            code: 'custom',
            path: [i],
            input: item,
            message: KNOWN_CONSTRAINT_TYPES.has(type)
              ? `${String(type)}: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}`
              : `unknown constraint type ${JSON.stringify(type)}: AP2 requires a mandate with a constraint the merchant does not understand to fail`,
          });
          return;
        }
        if (seen.has(parsed.data.type))
          ctx.issues.push({ code: 'custom', path: [i], input: item, message: `${parsed.data.type} appears twice` });
        seen.add(parsed.data.type);
        out.push(parsed.data as MandateConstraint);
      });
      return out;
    }),
  ),
  iat: z.optional(z.int().check(z.positive())),
  exp: z.optional(z.int().check(z.positive())),
});

/** The mandate's id: its content, canonical (RFC 8785), hashed; the same mandate signed twice is one mandate. */
export function mandateId(doc: MandateDocument): string {
  return `mnd_${createHash('sha256').update(mandateText(doc)).digest('hex').slice(0, 32)}`;
}

/** What the wallet signs as CreateMandate's `mandate`: the document as RFC 8785 canonical JSON. */
export const mandateText = (doc: MandateDocument): string => canonicalize(doc);

const constraint = <T extends MandateConstraint['type']>(doc: MandateDocument, type: T) =>
  doc.constraints.find((c): c is Extract<MandateConstraint, { type: T }> => c.type === type);

/** Atomic USDC of a major-unit amount (AP2 budgets), exact to 6 decimals. */
export const majorToAtomic = (usd: number): bigint => BigInt(Math.round(usd * 1e6)) * (ATOMIC_PER_USD / 1_000_000n);

/** The limits the store enforces with its one conditional update. */
export function spendLimits(doc: MandateDocument): { budget?: bigint; maxOccurrences?: number; minSecondsBetween: number } {
  const budget = constraint(doc, 'payment.budget');
  const recurrence = constraint(doc, 'payment.agent_recurrence');
  return {
    ...(budget ? { budget: majorToAtomic(budget.max) } : {}),
    maxOccurrences: recurrence?.max_occurrences ?? MANDATE_MAX_OCCURRENCES,
    minSecondsBetween: recurrence ? RECURRENCE_SECONDS[recurrence.frequency as keyof typeof RECURRENCE_SECONDS] : 0,
  };
}

/** A purchase as the mandate sees it: verified on chain, never the client's word. */
export interface MandatedPurchase {
  txHash: string;
  payer: string;
  amount: bigint;
  skill: CatalogEntry;
  treasury: string;
  /** The CAIP-2 chain the service settles on: a payee may be named as `<chain>:<address>` (CAIP-10). */
  chain: string;
  now: Date;
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Why the mandate does not allow this purchase, or undefined when every constraint holds.
 * Budget and occurrences are checked here against the stored spend and again, atomically, by
 * the store's conditional update (two parallel purchases cannot both take the last of it).
 */
export function mandateProblem(record: MandateRecord, p: MandatedPurchase): string | undefined {
  const doc = record.mandate;
  if (record.status !== 'active') return `mandate ${record.id} is revoked`;
  if (!same(doc.wallet, p.payer)) return `the transfer was paid by ${p.payer}, not by the mandate's wallet ${doc.wallet}`;
  const now = p.now.getTime();
  if (doc.exp !== undefined && now >= doc.exp * 1000) return `mandate ${record.id} expired at ${new Date(doc.exp * 1000).toISOString()}`;
  const range = constraint(doc, 'payment.amount_range');
  if (range && p.amount > BigInt(range.max)) {
    return `payment.amount_range: ${formatAtomic(p.amount)} USDC is over the maximum of ${formatAtomic(BigInt(range.max))} per purchase`;
  }
  if (range?.min !== undefined && p.amount < BigInt(range.min)) {
    return `payment.amount_range: ${formatAtomic(p.amount)} USDC is under the minimum of ${formatAtomic(BigInt(range.min))}`;
  }
  const payees = constraint(doc, 'payment.allowed_payees');
  if (payees && !payees.allowed.some((m) => same(m.id, p.treasury) || same(m.id, `${p.chain}:${p.treasury}`))) {
    return `payment.allowed_payees does not list this service's treasury ${p.treasury}`;
  }
  const dates = constraint(doc, 'payment.execution_date');
  if (dates?.not_before !== undefined && now < Date.parse(dates.not_before))
    return `payment.execution_date: not before ${dates.not_before}`;
  if (dates?.not_after !== undefined && now > Date.parse(dates.not_after)) return `payment.execution_date: not after ${dates.not_after}`;
  const scope = constraint(doc, 'skill_market.scope');
  if (scope && !(scope.skills?.includes(p.skill.id) || scope.categories?.includes(p.skill.category))) {
    return `skill_market.scope does not cover ${p.skill.id} (category ${p.skill.category})`;
  }
  // A transfer already counted is being delivered again: its spend is in the figures already.
  if (record.transfers.includes(p.txHash.toLowerCase())) return undefined;
  const limits = spendLimits(doc);
  if (limits.budget !== undefined && record.spent + p.amount > limits.budget) {
    return `payment.budget: ${formatAtomic(record.spent)} of ${formatAtomic(limits.budget)} USDC spent; ${formatAtomic(p.amount)} more is over it`;
  }
  if (limits.maxOccurrences !== undefined && record.occurrences >= limits.maxOccurrences) {
    return `payment.agent_recurrence: all ${limits.maxOccurrences} occurrences are used`;
  }
  if (
    limits.minSecondsBetween > 0 &&
    record.lastSpentAt !== undefined &&
    now - Date.parse(record.lastSpentAt) < limits.minSecondsBetween * 1000
  ) {
    return `payment.agent_recurrence: the last use was at ${record.lastSpentAt}; the frequency allows one per ${limits.minSecondsBetween / 86_400} days`;
  }
  return undefined;
}

/** The mandate as GET /api/mandates shows it: the document, its state and what it has spent, from the stored row. */
export function mandateView(record: MandateRecord) {
  const limits = spendLimits(record.mandate);
  return {
    id: record.id,
    status: record.status,
    mandate: record.mandate,
    created_at: record.createdAt,
    ...(record.revokedAt ? { revoked_at: record.revokedAt } : {}),
    spent: {
      atomic: record.spent.toString(),
      usdc: formatAtomic(record.spent),
      occurrences: record.occurrences,
      ...(limits.budget !== undefined ? { budget_left_atomic: (limits.budget - record.spent).toString() } : {}),
      ...(limits.maxOccurrences !== undefined ? { occurrences_left: limits.maxOccurrences - record.occurrences } : {}),
    },
  };
}
