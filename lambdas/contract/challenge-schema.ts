/**
 * The 402 challenge's schema (the spec's body): readiness validates the live challenge with it and
 * the OpenAPI document publishes it. In the contract, so that the OpenAPI route's chunk reaches it
 * without the payments domain.
 */
import * as z from 'zod';
import { ADDRESS } from './chain';
import { NETWORK_CAIP2S, NETWORK_CHAIN_IDS, NETWORK_NAMES } from './networks';

const address = z.string().regex(ADDRESS);
const atomic = z.string().regex(/^[1-9][0-9]*$/);

export const PaymentOptionSchema = z.object({
  scheme: z.literal('exact'),
  // One of the networks a deployment can settle on (contract/networks.ts): `base` unless it is a staging stack.
  network: z.enum(NETWORK_NAMES),
  network_caip2: z.enum(NETWORK_CAIP2S),
  chainId: z.literal(NETWORK_CHAIN_IDS),
  maxAmountRequired: atomic,
  amount: atomic,
  payTo: address,
  asset: address.describe('x402 v1: the token contract (the same as assetContract).'),
  assetContract: address,
  symbol: z.enum(['USDC', 'USDbC']),
  decimals: z.literal(6),
  resource: z.string().url(),
  description: z.string(),
  mimeType: z.literal('application/json'),
  maxTimeoutSeconds: z.number().int().positive(),
  skill: z.string(),
  skill_id: z.string(),
  outline: z.string().url(),
  sample: z.string().url(),
  extra: z.object({
    minConfirmations: z.number().int().min(1),
    legacyTreasuryBanned: address.nullable(),
    gas: z.string(),
    name: z.string().describe("The token's EIP-712 domain name (for an EIP-3009 authorization)."),
    version: z.string().describe("The token's EIP-712 domain version."),
  }),
});

export const ChallengeSchema = PaymentOptionSchema.omit({ symbol: true })
  .extend({
    ok: z.literal(false),
    error: z.literal('payment_required'),
    error_code: z.literal('PAYMENT_REQUIRED'),
    message: z.string(),
    retry: z.literal(false),
    tip: z.string(),
    x402Version: z.literal(1),
    asset: z.literal('USDC'),
    accepts: z.array(PaymentOptionSchema).min(1),
  })
  .refine(
    (c) =>
      c.accepts[0]!.symbol === 'USDC' &&
      c.accepts[0]!.asset.toLowerCase() === c.assetContract.toLowerCase() &&
      c.accepts[0]!.maxAmountRequired === c.maxAmountRequired &&
      c.accepts[0]!.payTo === c.payTo,
    {
      message: 'accepts[0] must repeat the top-level USDC option',
    },
  );
