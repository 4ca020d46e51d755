/**
 * llms.txt, generated from the catalog, the price source and the links module, so no
 * price or path in it can disagree with the API. Paths are relative: the file is static.
 */
import type { CatalogEntry } from '../lambdas/contract/catalog-data';
import { links } from '../lambdas/contract/links';

export function renderLlmsTxt(entries: readonly CatalogEntry[], canaryId: string, featured: readonly string[]): string {
  const l = links('');
  const byId = new Map(entries.map((e) => [e.id, e]));
  const canary = byId.get(canaryId)!;
  const categories = [...new Set(entries.map((e) => e.category))].sort();
  return [
    '# Agent Skill Marketplace',
    '',
    `> Sealed capability packs (${entries.length} skills) for software agents, paid in USDC on Base (chain 8453, CAIP-2 eip155:8453) over x402. Evaluation is free; one transfer unlocks one skill, once; every unlock is on the public proof ledger.`,
    '',
    'The 402 challenge from GET /api/pay?skill=<id> is authoritative for the amount, the receiver (payTo) and the asset. Keep a little ETH on Base for gas; USDC alone cannot pay for a transfer. Never pay a legacy treasury address: only the payTo of the live challenge unlocks.',
    '',
    '## Buy a skill',
    '',
    `1. GET ${l.shop}`,
    `2. GET ${l.catalog}?q=<your need>&max_price=<usd> and choose a skill id`,
    `3. GET ${l.skill('<id>').outline} and ${l.skill('<id>').sample} (free)`,
    `4. GET ${l.skill('<id>').challenge}: expect HTTP 402; read maxAmountRequired, payTo and assetContract (top level or accepts[0])`,
    '5. Transfer maxAmountRequired of USDC (or USDbC) to payTo on chain 8453; wait for 1 confirmation',
    `6. POST ${l.pay} with header X-PAYMENT: {"txHash":"0x…","skill":"<id>"}; on 402 with retry true, back off 2 s, 4 s, 8 s`,
    `7. Save sealed_pack.files and payment.txHash; check the seal against ${l.skill('<id>').packs}`,
    `8. Optionally GET ${l.skill('<id>').proof} to see your row`,
    '',
    `Start with the canary, ${canary.name} (${canary.id}): ${canary.price_label}, amount ${canary.x402.amount} (list price $${canary.regular_price_usd}).`,
    '',
    '## Featured x402 resources',
    '',
    ...featured.map((id) => {
      const e = byId.get(id)!;
      return `- [${e.name}](${l.skill(e.id).outline}): ${e.price_label} (amount ${e.x402.amount}, list $${e.regular_price_usd}) via ${l.skill(e.id).challenge}`;
    }),
    '',
    '## Endpoints',
    '',
    `- [ESP root](${l.esp}): Evaluate, Settle, Prove; the skill cycle at ${l.esp}?skill=<id>`,
    `- [OpenAPI 3.1](${l.openapi})`,
    `- [x402 discovery](${l.x402_discovery})`,
    `- [Catalog](${l.catalog_json}) and [search](${l.catalog})`,
    `- [Intent search and bounties](${l.intent_post})`,
    `- [Judges, verifiers and critics](${l.judges})`,
    `- [Proof ledger](${l.proof})`,
    `- [MCP](${l.mcp}) and [A2A agent card](${l.agent_card})`,
    `- [Readiness](${l.ready})`,
    `- [Recover a paid pack](${l.recover_page})`,
    '',
    '## Categories',
    '',
    ...categories.map((c) => `- ${c}: ${entries.filter((e) => e.category === c).length} skills (${l.catalog}?category=${c})`),
    '',
  ].join('\n');
}
