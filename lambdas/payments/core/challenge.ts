/**
 * The x402 challenge (HTTP 402) for a skill. Everything in it comes from the server's own
 * catalog and configuration: amount from the price source, payTo from the treasury setting,
 * assets from the configured contracts.
 */
import { CAIP2, CHAIN_ID, NETWORK } from '../../contract/chain';
import { links } from '../../contract/links';
import type { CatalogEntry } from '../../contract/catalog-data';
import type { MarketConfig } from '../../contract/settings';

/** x402 protocol version of the challenge format. */
export const X402_VERSION = 1;
/** How long an unlock POST may take, confirmation wait included (x402 `maxTimeoutSeconds`). */
export const MAX_TIMEOUT_SECONDS = 60;

export interface PaymentOption {
  scheme: 'exact';
  network: string;
  network_caip2: string;
  chainId: number;
  maxAmountRequired: string;
  amount: string;
  payTo: string;
  asset: 'USDC' | 'USDbC';
  assetContract: string;
  decimals: 6;
  resource: string;
  description: string;
  mimeType: 'application/json';
  maxTimeoutSeconds: number;
  skill: string;
  skill_id: string;
  outline: string;
  sample: string;
  extra: { minConfirmations: number; legacyTreasuryBanned: string | null; gas: string };
}

export type Challenge = Omit<PaymentOption, 'asset' | 'assetContract'> & {
  ok: false;
  error: 'payment_required';
  error_code: 'PAYMENT_REQUIRED';
  message: string;
  retry: false;
  tip: string;
  x402Version: number;
  asset: 'USDC';
  assetContract: string;
  accepts: PaymentOption[];
};

/** Builds the challenge; the configuration must be sound (treasury and both assets set). */
export function buildChallenge(entry: CatalogEntry, config: MarketConfig, baseUrl: string): Challenge {
  const option = (asset: 'USDC' | 'USDbC', contract: string): PaymentOption => ({
    scheme: 'exact',
    network: NETWORK,
    network_caip2: CAIP2,
    chainId: CHAIN_ID,
    maxAmountRequired: entry.x402.amount,
    amount: entry.x402.amount,
    payTo: config.treasury!,
    asset,
    assetContract: contract,
    decimals: 6,
    resource: links(baseUrl).skill(entry.id).challenge,
    description: `${entry.name}: ${entry.summary}`,
    mimeType: 'application/json',
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    skill: entry.id,
    skill_id: entry.id,
    outline: `${baseUrl}${entry.outline}`,
    sample: `${baseUrl}${entry.sample}`,
    extra: {
      minConfirmations: config.minConfirmations,
      legacyTreasuryBanned: config.legacyTreasury ?? null,
      gas: 'Gas is paid in ETH on Base (chain 8453); USDC alone cannot pay for the transfer.',
    },
  });
  const usdc = option('USDC', config.assets.USDC!);
  const { asset: _a, assetContract: _c, ...common } = usdc;
  return {
    ok: false,
    error: 'payment_required',
    error_code: 'PAYMENT_REQUIRED',
    message: `${entry.name} costs ${entry.price_label} (${entry.x402.amount} atomic USDC on Base). Transfer it to payTo, then POST /api/pay with X-PAYMENT: {"txHash","skill"}.`,
    retry: false,
    tip: 'Evaluate first (outline, sample). Pay exactly maxAmountRequired of USDC (or USDbC) to payTo on chain 8453, wait for 1 confirmation, then POST /api/pay.',
    x402Version: X402_VERSION,
    ...common,
    asset: 'USDC',
    assetContract: usdc.assetContract,
    accepts: [usdc, option('USDbC', config.assets.USDbC!)],
  };
}

/**
 * The x402 payment options for what is not a skill (a subscription plan, a meter top-up): the
 * same network, receiver and assets as every challenge, the amount from the price source, and
 * the resource the proof is then POSTed to.
 */
export function productChallenge(
  product: { amount: string; resource: string; description: string; extra?: Record<string, unknown> },
  config: MarketConfig,
) {
  const option = (asset: 'USDC' | 'USDbC', contract: string) => ({
    scheme: 'exact' as const,
    network: NETWORK,
    network_caip2: CAIP2,
    chainId: CHAIN_ID,
    maxAmountRequired: product.amount,
    amount: product.amount,
    payTo: config.treasury!,
    asset,
    assetContract: contract,
    decimals: 6 as const,
    resource: product.resource,
    description: product.description,
    mimeType: 'application/json' as const,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { minConfirmations: config.minConfirmations, legacyTreasuryBanned: config.legacyTreasury ?? null, ...product.extra },
  });
  return { x402Version: X402_VERSION, accepts: [option('USDC', config.assets.USDC!), option('USDbC', config.assets.USDbC!)] };
}
