/** The JSON Schema of an ESP cycle (GET /api/esp?skill=…), written by the build to /esp/cycle.schema.json. */
import * as z from 'zod';
import { NETWORK_CAIP2S, NETWORK_NAMES } from './networks';

const url = z.string().url();
const row = z.object({
  txHash: z.string(),
  skill: z.string(),
  amount: z.string(),
  amount_usd: z.number(),
  asset: z.enum(['USDC', 'USDbC']),
  asset_contract: z.string(),
  payer: z.string(),
  block: z.number().int(),
  confirmations_at_unlock: z.number().int(),
  time: z.string(),
});

export const EspCycleSchema = z.object({
  ok: z.literal(true),
  protocol: z.literal('ESP'),
  protocol_version: z.string(),
  skill_id: z.string(),
  name: z.string(),
  evaluate: z.object({
    cost: z.literal('free'),
    outline: url,
    sample: url,
    pack: z.object({
      file_count: z.number().int().positive(),
      total_bytes: z.number().int().positive(),
      files: z.array(z.object({ path: z.string(), bytes: z.number().int(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
      seal: z.string().regex(/^[0-9a-f]{64}$/),
      metadata: url,
    }),
    challenge_shape: z.record(z.string(), z.unknown()).nullable(),
  }),
  settle: z.object({
    cost: z.string(),
    amount: z.string().regex(/^[1-9][0-9]*$/),
    price_usd: z.number(),
    regular_price_usd: z.number(),
    pay_to: z.string().nullable(),
    asset: z.literal('USDC'),
    asset_contract: z.string().nullable(),
    also_accepted: z.array(z.object({ asset: z.literal('USDbC'), asset_contract: z.string() })),
    network: z.enum(NETWORK_NAMES),
    network_caip2: z.enum(NETWORK_CAIP2S),
    min_confirmations: z.number().int().min(1),
    challenge: url,
    how: z.string(),
  }),
  prove: z.object({
    cost: z.literal('free'),
    source_of_truth: url,
    confirmed_unlocks: z.number().int().min(0),
    recent_unlocks: z.array(row),
  }),
});

export const espCycleJsonSchema = (id: string) => ({
  $id: id,
  title: 'ESP cycle of a skill (market-esp-protocol-v1)',
  ...z.toJSONSchema(EspCycleSchema),
});
