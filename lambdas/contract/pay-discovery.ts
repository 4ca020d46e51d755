/**
 * What x402's Bazaar discovery extension says of GET /api/pay?skill=: how to call it (the one
 * query parameter) and what the paid answer is (a short example of the unlock answer for the
 * skill). Pure data, published in every 402 (`extensions.bazaar`, built by payments'
 * adapter with @x402/extensions' `declareDiscoveryExtension`). The unlock answer is
 * lambdas/payments/unlock-response.ts's: a new purchase carries `license`, `payment` and
 * `receipt`; a wallet that already owns the skill gets the pack with `access` instead.
 */
import type { CatalogEntry, PackMeta } from './catalog-data';

/** The inputs of the skill's discovery declaration: the query, its schema, and a short example of the paid answer. */
export function payDiscovery(entry: CatalogEntry, meta: PackMeta | undefined) {
  return {
    input: { skill: entry.id },
    inputSchema: {
      // Any catalog id: a facilitator catalogues GET /api/pay once, without its query, for every skill.
      properties: { skill: { type: 'string', description: 'The catalog id of the skill to buy (/catalog.json lists them)' } },
      required: ['skill'],
    },
    // Kept short: a stock x402 client echoes the whole extension back in PAYMENT-SIGNATURE, and API
    // Gateway's HTTP API takes at most 10,240 bytes of request line and headers (the fields of the
    // answer are in the OpenAPI document and docs/PAYMENTS.md).
    output: {
      example: {
        ok: true,
        skill_id: entry.id,
        name: entry.name,
        sealed_pack: { files: { 'SKILL.md': '<text>' }, file_count: meta?.file_count ?? 0, seal: meta?.seal ?? '' },
        license: { token: '<keep: X-LICENSE gets the pack again>' },
        receipt: '<compact JWS>',
      },
    },
  };
}
