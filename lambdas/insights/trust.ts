/**
 * GET /api/trust: a scorecard per skill from stored facts only: the pack seal, the build's scan
 * and eval results (for that seal), confirmed unlocks and standing reorged claims from the
 * tallies, card sales, and the days since the skill was listed. No composite score: each fact
 * is given as it is, with where it comes from.
 */
import { daysBetween, dayOf } from '../contract/days';
import { links } from '../contract/links';
import type { CatalogEntry } from '../contract/catalog-data';
import { requireSkill } from '../catalog';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { reorgedLines, revenueLines, type Counters } from '../ledger';
import type { InsightsPorts } from './ports';

function scorecards(
  ports: InsightsPorts,
  totals: Counters,
  entries: readonly CatalogEntry[],
  base: ReturnType<typeof links>,
  today: string,
) {
  const security = ports.reports.security();
  const evals = ports.reports.evals();
  const listings = ports.reports.listings();
  const count = new Map<string, number>();
  for (const l of revenueLines(totals))
    if (l.channel === 'x402' || l.channel === 'card')
      count.set(`${l.channel}|${l.product}`, (count.get(`${l.channel}|${l.product}`) ?? 0) + Number(l.count));
  const reorged = new Map(
    reorgedLines(totals)
      .filter((r) => r.channel === 'x402')
      .map((r) => [r.product, Number(r.count)]),
  );
  return entries.map((e) => {
    const seal = ports.catalog.packMeta(e.id)!.seal;
    const scan = security.skills[e.id];
    const ev = evals.skills[e.id];
    const listed = listings[e.id] ?? null;
    return {
      skill_id: e.id,
      name: e.name,
      seal,
      security: scan
        ? { is_safe: scan.is_safe, max_severity: scan.max_severity, counts: scan.counts, scanned_seal_matches: scan.seal === seal }
        : null,
      eval: ev ? { score: ev.score, failed: ev.failed, suite_version: evals.version, evaluated_seal_matches: ev.seal === seal } : null,
      confirmed_unlocks: count.get(`x402|${e.id}`) ?? 0,
      card_sales: count.get(`card|${e.id}`) ?? 0,
      reorged_claims: reorged.get(e.id) ?? 0,
      listed_at: listed,
      age_days: listed ? daysBetween(listed, today) : null,
      sources: {
        pack: base.skill(e.id).packs,
        security: base.skill(e.id).security,
        eval: base.skill(e.id).eval,
        proof: base.skill(e.id).proof,
      },
    };
  });
}

export async function getTrust(req: ApiRequest, ports: InsightsPorts): Promise<ApiResponse> {
  const base = links(req.baseUrl);
  const today = dayOf(ports.now());
  const only = req.query['skill'] !== undefined ? [requireSkill(ports.catalog, req.query['skill'])] : undefined;
  const cards = scorecards(ports, await ports.figures.totals(), only ?? ports.catalog.entries, base, today);
  const rule =
    'Facts only, no composite score: the seal of the pack sold now; the build’s scan and eval results and whether they were computed for that seal; confirmed unlocks, card sales and standing reorged claims from the tallies; days since listing.';
  return only ? json(200, { ok: true, rule, scorecard: cards[0] }) : json(200, { ok: true, rule, count: cards.length, scorecards: cards });
}
