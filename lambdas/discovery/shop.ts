import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { skillCard } from '../catalog';
import { confirmedActivity, espRoot, moneySafety, SEED_JUDGES } from './esp';
import { links } from '../contract/links';
import type { DiscoveryPorts } from './ports';

/** GET /api/shop: the unified agent entry — the contract, shelves, and the exact next request. */
export async function getShop(req: ApiRequest, ports: DiscoveryPorts): Promise<ApiResponse> {
  const base = req.baseUrl;
  const l = links(base);
  const { catalog } = ports;
  const canary = catalog.get(catalog.pricing.canary)!;
  const known = await confirmedActivity(ports, base);
  const { per_skill: perSkill, ...activity } = known;
  const root = await espRoot(ports, base, known);
  const cheapest = [...catalog.entries].sort((a, b) => a.price_usd - b.price_usd || (a.id < b.id ? -1 : 1)).slice(0, 5);
  const mostUnlocked = Object.entries(perSkill)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, 5)
    .map(([id, n]) => ({ ...skillCard(catalog.get(id)!, base), confirmed_unlocks: n }));
  return json(200, {
    ok: true,
    name: 'Agent Skill Marketplace',
    contract: {
      invariants: root.invariants,
      philosophy: root.philosophy,
      money_safety: moneySafety(ports),
      rules: [
        'Evaluation (outline, sample, pack metadata) is free and comes first.',
        'The 402 challenge from GET /api/pay is authoritative for amount, receiver and asset.',
        'One transfer unlocks one skill, once; a replay of the same (txHash, skill) returns the same pack at no charge.',
        'Success figures come only from the proof ledger.',
      ],
    },
    shelves: {
      canary: { ...skillCard(canary, base), why: 'The cheapest live path: buy it first to prove your payment rails.' },
      judges: SEED_JUDGES.map((id) => skillCard(catalog.get(id)!, base)),
      categories: catalog.categories.map((id) => ({
        id,
        count: catalog.entries.filter((e) => e.category === id).length,
        url: `${l.catalog}?category=${id}`,
      })),
      cheapest: cheapest.map((e) => skillCard(e, base)),
      most_unlocked: mostUnlocked,
      most_unlocked_source: l.proof,
    },
    confirmed_activity: activity,
    next_action: {
      method: 'GET',
      url: l.skill(canary.id).outline,
      why: `Evaluate the canary (${canary.price_label}) for free; then GET ${l.skill(canary.id).challenge} for its 402 challenge.`,
    },
    discovery: root.discovery,
  });
}
