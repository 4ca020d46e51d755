/**
 * GET /api/signals: confirmed demand only. Paid unlocks, subscription periods, meter top-ups
 * and card sales per product over the last 7 and 30 days (from the day tallies) and all time
 * (the `TOTAL` tally), less the sales refunded in full: the money went back and the sale gives
 * no access, so it confirms no demand (issue 50, finding 10). They are the tallies' `f`, kept on
 * the same items by the fold, so leaving them out costs no read. A sale refunded in part still
 * counts: the buyer kept the skill and paid for some of it. A product whose every sale was
 * refunded in full is not listed. No views, searches or clicks, and no intent bounties: anyone may post one
 * without paying, so neither their text nor their number is confirmed demand (issue 31). Their
 * text, written by whoever posted it, would also reach every agent that reads signals as if it
 * were a fact. The answer names where bounties are, labelled as unconfirmed requests.
 */
import { addDays, dayOf } from '../contract/days';
import { links } from '../contract/links';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { refundedLines, revenueLines, type Counters } from '../ledger';
import type { InsightsPorts } from './ports';

const WINDOWS = [
  { id: '7d', days: 7 },
  { id: '30d', days: 30 },
] as const;

type Windowed = Record<'7d' | '30d' | 'all', number>;

export async function getSignals(req: ApiRequest, ports: InsightsPorts): Promise<ApiResponse> {
  const today = dayOf(ports.now());
  const from30 = addDays(today, -29);
  const [totals, days] = await Promise.all([ports.figures.totals(), ports.figures.days(from30, today)]);
  const base = links(req.baseUrl);
  const demand = new Map<string, { channel: string; product: string; confirmed: Windowed }>();
  const count = (l: { channel: string; product: string }, key: keyof Windowed, by: number) => {
    const id = `${l.channel}|${l.product}`;
    const d = demand.get(id) ?? { channel: l.channel, product: l.product, confirmed: { '7d': 0, '30d': 0, all: 0 } };
    d.confirmed[key] += by;
    demand.set(id, d);
  };
  const add = (counters: Counters, key: keyof Windowed) => {
    for (const l of revenueLines(counters)) count(l, key, Number(l.count));
    for (const l of refundedLines(counters)) count(l, key, -Number(l.count));
  };
  add(totals, 'all');
  for (const [day, counters] of days) for (const w of WINDOWS) if (day >= addDays(today, -(w.days - 1))) add(counters, w.id);
  const rows = [...demand.values()]
    // Every sale in a window is in the all-time count too, so a product with none left there has none in any window.
    .filter((d) => d.confirmed.all > 0)
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
    source: 'tallies',
    basis:
      'Confirmed demand only: paid and confirmed purchases, less those refunded in full (one refunded in part still counts). No page views, searches, posted requests or estimates.',
    as_of: today,
    windows: [...WINDOWS.map((w) => ({ id: w.id, from: addDays(today, -(w.days - 1)), to: today })), { id: 'all', from: null, to: today }],
    demand: rows,
    not_included: {
      intent_bounties: {
        confirmed: false,
        why: 'Intent bounties are requests anyone may post without paying, in their own words: not confirmed demand, so neither their text nor their number is a signal.',
        list: base.intent_list,
      },
    },
    honesty:
      'Counts are tally counters the reconcile job checks against a recount of the rows; an empty list means no confirmed demand yet.',
  });
}
