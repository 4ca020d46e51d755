/**
 * What x402's Bazaar discovery extension says of GET /api/pay?skill=: how to call it (the one
 * query parameter) and what the paid answer is (a JSON Schema of the unlock answer and an example
 * of it for the skill). Pure data, published in every 402 (`extensions.bazaar`, built by payments'
 * adapter with @x402/extensions' `declareDiscoveryExtension`). The unlock answer is
 * lambdas/payments/unlock-response.ts's: a new purchase carries `license`, `payment` and
 * `receipt`; a wallet that already owns the skill gets the pack with `access` instead.
 */
import type { CatalogEntry, PackMeta } from './catalog-data';

const str = { type: 'string' } as const;

/** The unlock answer (200 of GET /api/pay?skill= with PAYMENT-SIGNATURE, and of POST /api/pay), as JSON Schema. */
export const UNLOCK_ANSWER_SCHEMA = {
  properties: {
    ok: { type: 'boolean', const: true },
    skill_id: str,
    name: str,
    sealed_pack: {
      type: 'object',
      description: 'The pack: files maps each relative path to its text; seal is sha256 over the files, as /api/packs states it',
      properties: { files: { type: 'object', additionalProperties: str }, file_count: { type: 'integer' }, seal: str },
      required: ['files', 'file_count', 'seal'],
    },
    seal: str,
    how_to_use: { type: 'object' },
    license: {
      type: 'object',
      description: 'Keep the token: POST /api/pay with X-LICENSE: <token> gets the pack again',
      properties: { token: str, header: { type: 'string', const: 'X-LICENSE' }, redeem: str },
      required: ['token', 'header'],
    },
    payment: { type: 'object', description: 'The transfer that paid: txHash, network, payer, amount, asset' },
    revenue_ledger: { type: 'object' },
    receipt: { type: 'string', description: "The sale's signed receipt, a compact JWS" },
    access: {
      type: 'object',
      description: 'Present instead of license and payment when the wallet already had access: nothing was charged',
    },
  },
  required: ['ok', 'skill_id', 'name', 'sealed_pack', 'seal'],
} as const;

/** The inputs of the skill's discovery declaration: the query, its schema, and the paid answer's example and schema. */
export function payDiscovery(entry: CatalogEntry, meta: PackMeta | undefined) {
  return {
    input: { skill: entry.id },
    inputSchema: {
      // Any catalog id: a facilitator catalogues GET /api/pay once, without its query, for every skill.
      properties: { skill: { type: 'string', description: 'The catalog id of the skill to buy (/catalog.json lists them)' } },
      required: ['skill'],
    },
    output: {
      example: {
        ok: true,
        skill_id: entry.id,
        name: entry.name,
        sealed_pack: {
          files: Object.fromEntries((meta?.files ?? []).map((f) => [f.path, `<${f.bytes} bytes of text>`])),
          file_count: meta?.file_count ?? 0,
          seal: meta?.seal ?? '',
        },
        seal: meta?.seal ?? '',
        license: { token: '<license token>', header: 'X-LICENSE' },
        receipt: '<compact JWS>',
      },
      schema: UNLOCK_ANSWER_SCHEMA,
    },
  };
}
