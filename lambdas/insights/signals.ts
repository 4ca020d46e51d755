/**
 * GET /api/signals: confirmed demand only. Paid unlocks, subscription periods, meter top-ups
 * and card sales per product over the last 7 and 30 days (from the day tallies) and all time
 * (the `TOTAL` tally), and the newest intent bounties with their success criteria. No views,
 * searches or clicks: nothing that was not paid for or posted.
 */
import { addDays, dayOf } from '../contract/days';
import { links } from '../contract/links';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { revenueLines, type Counters } from '../payments';
import type { InsightsPorts } from './ports';

/** The newest bounties shown; the rest are a page away at /api/intent?list=1. */
const INTENTS_SHOWN = 10;
const WINDOWS = [
  { id: '7d', days: 7 },
  { id: '30d', days: 30 },
] as const;

type Windowed = Record<'7d' | '30d' | 'all', number>;

export async function getSignals(req: ApiRequest, ports: InsightsPorts): Promise<ApiResponse> {
  const today = dayOf(ports.now());
  const from30 = addDays(today, -29);
  const [totals, days, intents] = await Promise.all([
    ports.figures.totals(),
    ports.figures.days(from30, today),
    ports.intents.list(INTENTS_SHOWN, undefined),
  ]);
  const base = links(req.baseUrl);
  const demand = new Map<string, { channel: string; product: string; confirmed: Windowed }>();
  const add = (counters: Counters, key: keyof Windowed) => {
    for (const l of revenueLines(counters)) {
      const id = `${l.channel}|${l.product}`;
      const d = demand.get(id) ?? { channel: l.channel, product: l.product, confirmed: { '7d': 0, '30d': 0, all: 0 } };
      d.confirmed[key] += Number(l.count);
      demand.set(id, d);
    }
  };
  add(totals, 'all');
  for (const [day, counters] of days) for (const w of WINDOWS) if (day >= addDays(today, -(w.days - 1))) add(counters, w.id);
  const rows = [...demand.values()]
    .sort((a, b) => b.confirmed['30d'] - a.confirmed['30d'] || b.confirmed.all - a.confirmed.all || a.product.localeCompare(b.product))
    .map((d) => ({
      ...d,
      ...(ports.catalog.get(d.product) ? { name: ports.catalog.get(d.product)!.name } : {}),
      // On-chain channels are on the public proof ledger; card sales are Stripe-confirmed and listed only in the tallies.
      source:
        d.channel === 'card'
          ? 'card sales Stripe reported paid (tallies)'
          : d.channel === 'x402'
            ? base.skill(d.product).proof
            : base.proof,
    }));
  return json(200, {
    ok: true,
    source: 'tallies and intent bounties',
    basis: 'Confirmed demand only: paid and confirmed purchases, and bounties agents posted. No page views, searches or estimates.',
    as_of: today,
    windows: [...WINDOWS.map((w) => ({ id: w.id, from: addDays(today, -(w.days - 1)), to: today })), { id: 'all', from: null, to: today }],
    demand: rows,
    intents: {
      newest: intents.items.map((i) => ({
        id: i.id,
        posted_at: i.created_at,
        ...(i.title ? { title: i.title } : {}),
        success_criteria: i.success_criteria,
        ...(i.budget_usd !== undefined ? { budget_usd: i.budget_usd } : {}),
        suggested_skills: i.suggested_skills.map((s) => s.skill_id),
        source: base.intent_by_id(i.id),
      })),
      more: base.intent_list,
      post: base.intent_post,
    },
    honesty:
      'Counts are tally counters the reconcile job checks against a recount of the rows; an empty list means no confirmed demand yet.',
  });
}
