/**
 * The x402 challenge (HTTP 402) for a skill. Everything in it comes from the server's own
 * catalog and configuration: amount from the price source, payTo from the treasury setting,
 * assets from the configured contracts.
 */
import { chainLabel, networkAssets, type AssetSymbol, type Network } from '../../contract/networks';
import { links } from '../../contract/links';
import type { CatalogEntry } from '../../contract/catalog-data';
import type { MarketConfig } from '../../contract/settings';
import type { AuthCaptureRequirement, PaymentRequiredV2, PaymentRequirementsV2 } from '../../contract/x402';
import { authCaptureRequirement, escrowDeadlines, type EscrowClock } from '../../contract/auth-capture';

export type { PaymentRequiredV2, PaymentRequirementsV2 } from '../../contract/x402';

/** x402 protocol version of the spec's challenge body (and of `X-PAYMENT-REQUIRED`). */
export const X402_VERSION = 1;
/** x402 protocol version of the `PAYMENT-REQUIRED` header, which stock x402 clients read. */
export const X402_V2 = 2;
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
  /**
   * x402 v1's `asset`: the token contract, which a v1 client signs its EIP-3009 authorization
   * against (`x402-fetch` 1.x refuses a symbol). The spec's `asset: "USDC"` is at top level.
   */
  asset: string;
  /** The same contract, under the spec's name for it. */
  assetContract: string;
  /** The token's symbol (`asset` at top level in the spec's terms). */
  symbol: 'USDC' | 'USDbC';
  decimals: 6;
  resource: string;
  description: string;
  mimeType: 'application/json';
  maxTimeoutSeconds: number;
  skill: string;
  skill_id: string;
  outline: string;
  sample: string;
  extra: { minConfirmations: number; legacyTreasuryBanned: string | null; gas: string; name: string; version: string };
}

export type Challenge = Omit<PaymentOption, 'asset' | 'assetContract' | 'symbol'> & {
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

/** The EIP-712 domain (name, version) of an asset on the network: what an EIP-3009 authorization is signed against. */
const eip712 = (network: Network, asset: AssetSymbol): { name: string; version: string } => {
  const a = network.assets[asset];
  if (!a) throw new Error(`${network.label} has no ${asset}`);
  return { ...a.eip712 };
};

/** How a tip names what may be paid: "USDC (or USDbC)" on Base, "USDC" where USDbC does not exist. */
const assetWords = (network: Network): string => (network.assets.USDbC ? 'USDC (or USDbC)' : 'USDC');

/** Builds the challenge; the configuration must be sound (treasury and both assets set). */
export function buildChallenge(entry: CatalogEntry, config: MarketConfig, baseUrl: string): Challenge {
  const net = config.network;
  const option = (asset: AssetSymbol, contract: string): PaymentOption => ({
    scheme: 'exact',
    network: net.name,
    network_caip2: net.caip2,
    chainId: net.chainId,
    maxAmountRequired: entry.x402.amount,
    amount: entry.x402.amount,
    payTo: config.treasury!,
    asset: contract,
    assetContract: contract,
    symbol: asset,
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
      gas: `A transfer you send yourself needs ETH on ${chainLabel(net)} for gas; an x402 client that signs the payment (PAYMENT-SIGNATURE, or X-PAYMENT v1) needs USDC only: the service sends the transfer and pays its gas.`,
      // The token's EIP-712 domain: what a standard x402 client signs its authorization against.
      ...eip712(net, asset),
    },
  });
  const usdc = option('USDC', config.assets.USDC!);
  // Top level: the spec's fields, where the spec lets its clients find them (`asset` the symbol).
  // accepts[]: x402 v1 `PaymentRequirements` (`asset` the contract), which stock v1 clients read.
  const { asset: _a, assetContract: _c, symbol: _s, ...common } = usdc;
  return {
    ok: false,
    error: 'payment_required',
    error_code: 'PAYMENT_REQUIRED',
    message: `${entry.name} costs ${entry.price_label} (${entry.x402.amount} atomic USDC on ${net.label}). Transfer it to payTo, then POST /api/pay with X-PAYMENT: {"txHash","skill"}.`,
    retry: false,
    tip: `Evaluate first (outline, sample). Pay exactly maxAmountRequired of ${assetWords(net)} to payTo on ${chainLabel(net)}, wait for 1 confirmation, then POST /api/pay.`,
    x402Version: X402_VERSION,
    ...common,
    asset: 'USDC',
    assetContract: usdc.assetContract,
    accepts: [
      usdc,
      ...networkAssets(net)
        .slice(1)
        .map((a) => option(a, config.assets[a]!)),
    ],
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
  const option = (asset: AssetSymbol, contract: string) => ({
    scheme: 'exact' as const,
    network: config.network.name,
    network_caip2: config.network.caip2,
    chainId: config.network.chainId,
    maxAmountRequired: product.amount,
    amount: product.amount,
    payTo: config.treasury!,
    // x402 v1's `asset` is the token contract, as in a skill's challenge; the symbol is `symbol`.
    asset: contract,
    assetContract: contract,
    symbol: asset,
    decimals: 6 as const,
    resource: product.resource,
    description: product.description,
    mimeType: 'application/json' as const,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { minConfirmations: config.minConfirmations, legacyTreasuryBanned: config.legacyTreasury ?? null, ...product.extra },
  });
  return { x402Version: X402_VERSION, accepts: networkAssets(config.network).map((a) => option(a, config.assets[a]!)) };
}

/** How long a sign-in challenge is good for: the freshness the payer-proof checks allow (buyer-proof.ts). */
export const SIGN_IN_CHALLENGE_SECONDS = 300;

/**
 * x402's `sign-in-with-x` extension for a 402: what a wallet that already paid signs to get the
 * pack again without paying (CAIP-122 / EIP-4361 on Base, EIP-191 signatures, which contract
 * wallets answer through EIP-1271 or ERC-6492). `nonce` and `issuedAt` are the caller's, fresh
 * per answer; the service accepts each nonce once, whoever made it.
 */
export function signInExtension(network: Network, resourceUrl: string, baseUrl: string, nonce: string, issuedAt: Date) {
  return {
    'sign-in-with-x': {
      supportedChains: [{ chainId: network.caip2, type: 'eip191' }],
      schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        required: ['domain', 'address', 'uri', 'version', 'chainId', 'type', 'nonce', 'issuedAt', 'signature'],
      },
      info: {
        domain: new URL(baseUrl).host,
        uri: resourceUrl,
        version: '1',
        statement: 'Sign in to get the pack you already paid for.',
        resources: [resourceUrl],
        nonce,
        issuedAt: issuedAt.toISOString(),
        expirationTime: new Date(issuedAt.getTime() + SIGN_IN_CHALLENGE_SECONDS * 1000).toISOString(),
      },
    },
  };
}

/** What an `auth-capture` offer needs beyond the configuration: the operator and the challenge's time (Unix seconds). */
export interface EscrowOffer {
  operator: string;
  nowSeconds: number;
}

/**
 * The skill's challenge as x402 v2: the standard `exact` scheme with EIP-3009, the same price,
 * receiver and assets as {@link buildChallenge}, one entry per asset, in the same order; then,
 * where an escrow operator is configured, x402's `auth-capture` (`paymentFlow: escrow`) in USDC,
 * the escrow's terms made at `nowSeconds` (contract/auth-capture.ts). `exact` stays first, so a
 * client that takes the first option it can pay pays as before.
 */
export function buildPaymentRequired(
  entry: CatalogEntry,
  config: MarketConfig,
  baseUrl: string,
  escrow?: EscrowOffer | undefined,
): PaymentRequiredV2 {
  const option = (asset: AssetSymbol): PaymentRequirementsV2 => ({
    scheme: 'exact',
    network: config.network.caip2,
    amount: entry.x402.amount,
    asset: config.assets[asset]!,
    payTo: config.treasury!,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { ...eip712(config.network, asset) },
  });
  return {
    x402Version: X402_V2,
    resource: {
      url: links(baseUrl).skill(entry.id).challenge,
      description: `${entry.name}: ${entry.summary}`,
      mimeType: 'application/json',
    },
    accepts: [
      ...networkAssets(config.network).map(option),
      ...(escrow && config.authCapture ? [escrowOption(entry.x402.amount, config, escrow)] : []),
    ],
  };
}

/** The `auth-capture` offer for an amount: USDC into the configured escrow, captured to the treasury once delivered. */
export function escrowOption(amount: string, config: MarketConfig, escrow: EscrowOffer): AuthCaptureRequirement {
  return authCaptureRequirement(
    {
      network: config.network.caip2,
      amount,
      asset: config.assets.USDC!,
      payTo: config.treasury!,
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      eip712: eip712(config.network, 'USDC'),
    },
    config.authCapture!,
    escrow.operator,
    escrowDeadlines(escrowClock(config, escrow.nowSeconds)),
  );
}

/** The escrow terms' clock for the configuration at `nowSeconds`. */
export const escrowClock = (config: MarketConfig, nowSeconds: number): EscrowClock => ({
  nowSeconds,
  maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  captureSeconds: config.escrowCaptureSeconds,
  refundDays: config.escrowRefundDays,
});
