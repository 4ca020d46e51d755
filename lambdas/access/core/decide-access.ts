/**
 * The one answer to "may this wallet use this skill, and why". GET /api/access, POST /api/pay
 * (for a wallet that signs instead of paying again), POST /api/meter's draw, MCP and A2A all
 * call `decideAccess`; no other code holds these rules.
 *
 * In order: the wallet owns the skill (a confirmed purchase it paid, or an earlier meter draw);
 * a subscription covers it until the period's end; its meter can pay for it now (a signed draw
 * charges the price); or nothing, with what to do next.
 */
import type { CatalogEntry, SubscriptionPlan } from '../../contract/catalog-data';
import type { PaymentRef } from '../../ledger';
import type { AccessPorts, MeterRecord, SubscriptionRecord } from '../ports';

export type AccessDecision =
  | { granted: true; via: 'one-time'; source: 'transfer'; txHash: string; since: string; until: null }
  | { granted: true; via: 'one-time'; source: 'meter'; until: null }
  /** `since`: when the covering subscription started; it covers the versions published from then on (docs/ACCESS.md, "Versions"). */
  | { granted: true; via: 'subscription'; plan: string; since: string; until: string; cancelled: boolean }
  /** The meter can pay: a signed draw (POST /api/meter) charges `price` and the skill is the wallet's. */
  | { granted: true; via: 'meter'; price: string; balance: string; until: null }
  | { granted: false; via: 'none'; reason: 'no_access' | 'meter_balance' | 'meter_cap'; price: string; until: null };

/** What the decision is made from: stored rows only. */
export interface AccessFacts {
  /** The wallet's first confirmed unlock of this skill, if it has one (what it owns). */
  purchase: PaymentRef | undefined;
  subscriptions: readonly SubscriptionRecord[];
  meter: MeterRecord | undefined;
}

/** Whether a plan's scope covers a skill. */
export const covers = (plan: SubscriptionPlan, skill: CatalogEntry): boolean =>
  plan.scope.kind === 'all' || plan.scope.category === skill.category;

/** `YYYY-MM` (UTC): the meter's cap period. */
export const meterPeriod = (now: Date): string => now.toISOString().slice(0, 7);

/** What the meter can still spend this month, or undefined without a cap. */
export function meterHeadroom(meter: MeterRecord, now: Date): bigint | undefined {
  if (meter.cap === undefined) return undefined;
  const spent = meter.period === meterPeriod(now) ? meter.spentInPeriod : 0n;
  return meter.cap > spent ? meter.cap - spent : 0n;
}

/** The rules, pure: the same facts and time always give the same answer. */
export function decide(facts: AccessFacts, skill: CatalogEntry, plans: readonly SubscriptionPlan[], now: Date): AccessDecision {
  const price = BigInt(skill.x402.amount);
  const bought = facts.purchase;
  if (bought) return { granted: true, via: 'one-time', source: 'transfer', txHash: bought.txHash, since: bought.recordedAt, until: null };
  if (facts.meter?.drawn.includes(skill.id)) return { granted: true, via: 'one-time', source: 'meter', until: null };

  // The covering subscription that runs longest; a cancelled one still runs to its period's end.
  const active = facts.subscriptions
    .filter((s) => Date.parse(s.periodEnd) > now.getTime())
    .filter((s) => {
      const plan = plans.find((p) => p.id === s.plan);
      return plan !== undefined && covers(plan, skill);
    })
    .sort((a, b) => (a.periodEnd > b.periodEnd ? -1 : 1))[0];
  if (active)
    return {
      granted: true,
      via: 'subscription',
      plan: active.plan,
      since: active.startedAt,
      until: active.periodEnd,
      cancelled: active.status === 'cancelled',
    };

  const meter = facts.meter;
  if (meter) {
    if (meter.balance < price) return { granted: false, via: 'none', reason: 'meter_balance', price: price.toString(), until: null };
    const headroom = meterHeadroom(meter, now);
    if (headroom !== undefined && headroom < price)
      return { granted: false, via: 'none', reason: 'meter_cap', price: price.toString(), until: null };
    return { granted: true, via: 'meter', price: price.toString(), balance: meter.balance.toString(), until: null };
  }
  return { granted: false, via: 'none', reason: 'no_access', price: price.toString(), until: null };
}

/** Gathers a wallet's facts for one skill from the ledger (1 read) and the access table (2 reads), then decides. */
export async function decideAccess(
  wallet: string,
  skill: CatalogEntry,
  now: Date,
  ports: Pick<AccessPorts, 'ledger' | 'subscriptions' | 'meters' | 'catalog'>,
): Promise<AccessDecision> {
  // What the wallet owns is one Query of the ledger's `owned` index, whatever its history.
  const [purchase, subscriptions, meter] = await Promise.all([
    ports.ledger.owned(wallet, skill.id, 'first'),
    ports.subscriptions.list(wallet),
    ports.meters.get(wallet),
  ]);
  return decide({ purchase, subscriptions, meter }, skill, ports.catalog.pricing.plans, now);
}
