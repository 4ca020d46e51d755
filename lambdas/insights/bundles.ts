/**
 * GET /api/bundles: composable stacks defined in the catalog data (catalog/bundles.json). A
 * bundle has no price of its own: its total is the sum of its skills' current prices from the
 * one price source, and it is bought skill by skill, each against its own 402 challenge (one
 * transfer unlocks one skill, once).
 */
import { formatAtomic } from '../contract/chain';
import { links } from '../contract/links';
import { notFound } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { optionalString } from '../platform/query';
import type { BundleDefinition } from '../contract/catalog-data';
import type { InsightsPorts } from './ports';

function bundleOut(b: BundleDefinition, ports: InsightsPorts, base: ReturnType<typeof links>) {
  const skills = b.skills.map((id) => {
    const e = ports.catalog.get(id)!;
    return {
      skill_id: e.id,
      name: e.name,
      price_usd: e.price_usd,
      price_label: e.price_label,
      amount: e.x402.amount,
      asset: e.x402.asset,
      challenge: base.skill(e.id).challenge,
      outline: base.skill(e.id).outline,
      trust: base.skill(e.id).trust,
    };
  });
  const total = skills.reduce((t, s) => t + BigInt(s.amount), 0n);
  return {
    id: b.id,
    name: b.name,
    summary: b.summary,
    skills,
    total: { amount: total.toString(), asset: 'USDC', price_usd: Number(formatAtomic(total)), purchases: skills.length },
    how_to_buy: [
      'For each skill, GET its challenge (HTTP 402): it names the amount, receiver and asset.',
      'Transfer that amount to payTo on chain 8453, then POST /api/pay with X-PAYMENT {txHash, skill}.',
      'One transfer unlocks one skill, once: a bundle is as many transfers as it has skills; there is no bundle discount.',
    ],
  };
}

export async function getBundles(req: ApiRequest, ports: InsightsPorts): Promise<ApiResponse> {
  const id = optionalString(req, 'bundle', { maxLength: 64 });
  const base = links(req.baseUrl);
  const all = ports.reports.bundles();
  if (id !== undefined) {
    const b = all.find((x) => x.id === id);
    if (!b) throw notFound(`Unknown bundle "${id}".`, `GET ${base.bundles} lists the bundles.`);
    return json(200, { ok: true, bundle: bundleOut(b, ports, base) });
  }
  return json(200, {
    ok: true,
    count: all.length,
    bundles: all.map((b) => bundleOut(b, ports, base)),
    note: 'Totals are sums of the skills’ current prices from the price source; each skill’s 402 challenge is authoritative.',
  });
}
