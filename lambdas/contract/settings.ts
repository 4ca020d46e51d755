/**
 * Deployment configuration: one list of settings shared by the CDK app (from context,
 * validated strictly at synth) and the Lambdas and local runtime (from environment
 * variables, read by platform/config.ts and validated leniently so that /api/ready can report
 * what is wrong). The rules (`readMarketConfig`, `configToEnv`) are pure functions of their
 * arguments, the EIP-55 codec included, and stay here because lib/ (which may import only the
 * contract) validates the CDK context with the same rules the Lambdas use at run time.
 */
import {
  AUTH_CAPTURE_DEPLOYMENTS,
  chainLabel,
  NETWORK_NAMES,
  NETWORKS,
  networkAssets,
  STAGE_NAMES,
  type AuthCaptureDeployment,
  type Network,
  type Stage,
} from './networks';

export type Address = `0x${string}`;

/**
 * EIP-55 address handling, which needs keccak-256: the caller supplies it (viem in the
 * Lambdas' platform adapter and in the CDK app), so this module stays free of libraries.
 */
export interface AddressCodec {
  /** 0x + 40 hex digits and, if mixed-case, a correct EIP-55 checksum. */
  isValid(value: string): boolean;
  /** The EIP-55 checksummed form of a valid address. */
  checksum(value: string): Address;
}

/** One configurable setting: its CDK context key, its environment variable and what it means. */
export interface SettingSpec {
  context: string;
  env: string;
  description: string;
  cloudDefault?: string;
}

/** The most keys the relayer pool may hold: each is a KMS key (a monthly fee) and an address to fund. */
export const MAX_RELAYER_KEYS = 32;

/** Every setting, in the order the README's configuration table shows them. */
export const SETTINGS = {
  treasury: {
    context: 'treasury',
    env: 'TREASURY_ADDRESS',
    description: 'Receiver of every payment (`payTo` in the 402 challenge). Required for `cdk deploy`.',
  },
  legacyTreasury: {
    context: 'legacyTreasury',
    env: 'LEGACY_TREASURY_ADDRESS',
    description: 'Banned former treasury: a transfer to it never unlocks, and it may never be the treasury.',
  },
  rpcUrls: {
    context: 'rpcUrls',
    env: 'RPC_URLS',
    description:
      "Comma-separated JSON-RPC URLs for the `network`'s chain, tried in order during verification. Default: the network's public RPC (`https://mainnet.base.org`, `https://sepolia.base.org`).",
  },
  minConfirmations: {
    context: 'minConfirmations',
    env: 'MIN_CONFIRMATIONS',
    description: 'Blocks a transfer must have (its own block counts as 1) before it unlocks.',
    cloudDefault: '1',
  },
  usdc: {
    context: 'usdcAddress',
    env: 'USDC_ADDRESS',
    description: "USDC contract on the `network`'s chain. Default: Circle's USDC on that network.",
  },
  usdbc: {
    context: 'usdbcAddress',
    env: 'USDBC_ADDRESS',
    description:
      "USDbC (bridged USDC) contract, also accepted. Default: Base's USDbC; Base Sepolia has none, so a staging challenge offers USDC only.",
  },
  paymentsEnabled: {
    context: 'paymentsEnabled',
    env: 'PAYMENTS_ENABLED',
    description: 'Set to `false` to switch payments off (503 `PAYMENTS_DISABLED`).',
    cloudDefault: 'true',
  },
  requirePayerProof: {
    context: 'requirePayerProof',
    env: 'REQUIRE_PAYER_PROOF',
    description:
      '`true`: a first claim must carry a signature by the paying wallet (SIGN-IN-WITH-X), so nobody who merely saw the transfer can claim it. Off by default because spec clients do not sign.',
    cloudDefault: 'false',
  },
  maxTransferAgeSeconds: {
    context: 'maxTransferAgeSeconds',
    env: 'MAX_TRANSFER_AGE_SECONDS',
    description: 'A transfer whose block is older than this (by block timestamp) cannot make a first claim.',
    cloudDefault: '86400',
  },
  retryWindowSeconds: {
    context: 'retryWindowSeconds',
    env: 'RETRY_WINDOW_SECONDS',
    description:
      'How long after a first claim the same caller (source address) may fetch the pack again without a license or signature: the lost-response retry.',
    cloudDefault: '600',
  },
  reorgWindowSeconds: {
    context: 'reorgWindowSeconds',
    env: 'REORG_WINDOW_SECONDS',
    description:
      'Claims younger than this are re-checked on chain when replayed; every claim is re-verified once after it (finality check).',
    cloudDefault: '128',
  },
  relayerMinBalanceEth: {
    context: 'relayerMinBalanceEth',
    env: 'RELAYER_MIN_BALANCE_ETH',
    description:
      'ETH the x402 relayer must hold for `GET /api/ready` to say ready: it pays the gas of every signed authorization it settles.',
    cloudDefault: '0.002',
  },
  relayerKeys: {
    context: 'relayerKeys',
    env: 'RELAYER_KEYS',
    description:
      'How many keys the x402 relayer pool holds (1 to 32): KMS keys in AWS, anvil test accounts locally. Each key signs for one function instance at a time (a lease), so about this many settlements are signed at once; fund every key (docs/OPERATIONS.md).',
    cloudDefault: '4',
  },
  relayerRevertCooldownSeconds: {
    context: 'relayerRevertCooldownSeconds',
    env: 'RELAYER_REVERT_COOLDOWN_SECONDS',
    description:
      'After a transfer the x402 relayer submitted for a payer reverts (its funds left first), the relayer settles nothing more for that payer for this long.',
    cloudDefault: '3600',
  },
  relayerRevertBudgetEth: {
    context: 'relayerRevertBudgetEth',
    env: 'RELAYER_REVERT_BUDGET_ETH',
    description:
      'ETH the x402 relayer may lose to reverted transfers in one UTC hour before the `RelayerRevertedGas` alarm fires. It refuses nobody: a refusal for everyone would be an off switch any attacker could flip (issue 50, I3); each payer whose transfer reverted cools down instead.',
    cloudDefault: '0.001',
  },
  authCaptureEscrow: {
    context: 'authCaptureEscrow',
    env: 'AUTH_CAPTURE_ESCROW_ADDRESS',
    description:
      "base/commerce-payments' AuthCaptureEscrow that x402 `auth-capture` payments are held in until the pack is delivered (docs/PAYMENTS.md). Default: the v1.0 deployment on the `network` (0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff on Base and Base Sepolia; locally the same address, placed by `npm start`). Only a deployment x402's stock client knows and the service speaks is accepted; its ERC-3009 token collector follows from it.",
  },
  escrowCaptureSeconds: {
    context: 'escrowCaptureSeconds',
    env: 'ESCROW_CAPTURE_SECONDS',
    description:
      "How long after a challenge an `auth-capture` payment may still be captured (its `captureDeadline`, beyond the challenge's own minute and `maxTimeoutSeconds`): the service captures once the pack is delivered, and the confirmation loop retries a capture until then. After it the buyer can reclaim an uncaptured payment from the escrow without the service. 900 to 604800.",
    cloudDefault: '3600',
  },
  escrowRefundDays: {
    context: 'escrowRefundDays',
    env: 'ESCROW_REFUND_DAYS',
    description:
      "How long after its capture deadline an `auth-capture` sale can be refunded through the escrow (its `refundDeadline`): `npm run refund` uses the escrow's `refund` until then, a plain transfer after. 0 to 365.",
    cloudDefault: '30',
  },
  identityRegistry: {
    context: 'identityRegistry',
    env: 'IDENTITY_REGISTRY_ADDRESS',
    description:
      "ERC-8004 Identity Registry on the `network`'s chain that `GET /api/agent-identity?agent_id=` checks. Default: the registry's deterministic address on that network. Locally, the one `npm start` deploys.",
  },
  ethUsdFeed: {
    context: 'ethUsdFeed',
    env: 'ETH_USD_FEED_ADDRESS',
    description:
      "Chainlink ETH / USD feed (AggregatorV3Interface) on the `network`'s chain, read at each relayed settlement's block to record the relayer's gas in US dollars. Default: Chainlink's ETH / USD proxy on that network; locally, the test feed `npm start` places at Base's address.",
  },
  stripeApiBase: {
    context: 'stripeApiBase',
    env: 'STRIPE_API_BASE',
    description:
      "Where the Stripe SDK sends its requests, `http(s)://host:port` (tests point it at a stand-in). Default: Stripe's API. The keys are secrets: see `STRIPE_SECRET_KEY` and `STRIPE_WEBHOOK_SECRET` below.",
  },
  explorerUrl: {
    context: 'explorerUrl',
    env: 'EXPLORER_URL',
    description:
      "Block explorer for the `network`'s chain that the proof ledger links each row to (`<url>/tx/<hash>`, `<url>/address/<payer>`), as `explorer_url` on `/api/proof`. Default: the network's (`https://basescan.org`, `https://sepolia.basescan.org`). Empty: no links (the local chain has none).",
  },
  network: {
    context: 'network',
    env: 'SETTLEMENT_NETWORK',
    description:
      'The chain payments settle on: `base` (Base mainnet, chain 8453) or `base-sepolia` (Base Sepolia, chain 84532, for a staging stage). Sets the chain id, the advertised network, the default token, feed, explorer and RPC.',
    cloudDefault: 'base',
  },
  stage: {
    context: 'stage',
    env: 'DEPLOY_STAGE',
    description:
      '`production` (real money: refuses a testnet `network`) or `staging` (a rehearsal: refuses mainnet, so it can never take real money).',
    cloudDefault: 'production',
  },
  transparencyLogUrl: {
    context: 'transparencyLogUrl',
    env: 'TRANSPARENCY_LOG_URL',
    description:
      "A Rekor transparency log's base URL (e.g. `https://rekor.sigstore.dev`): each pack version's signed provenance is then logged there, and its Sigstore bundle carries the log entry. Default: none; the bundles verify offline with the service key alone (docs/PROVENANCE.md).",
  },
  publicBaseUrl: {
    context: 'publicBaseUrl',
    env: 'PUBLIC_BASE_URL',
    description: 'Base URL to advertise (a custom domain). Default: the CloudFront domain, which the stack writes to SSM at deploy.',
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;

export interface MarketConfig {
  /** The chain payments settle on, with its facts (contract/networks.ts). */
  network: Network;
  stage: Stage;
  treasury: Address | undefined;
  legacyTreasury: Address | undefined;
  rpcUrls: string[];
  minConfirmations: number;
  assets: { USDC: Address | undefined; USDbC: Address | undefined };
  paymentsEnabled: boolean;
  publicBaseUrl: string | undefined;
  requirePayerProof: boolean;
  maxTransferAgeSeconds: number;
  retryWindowSeconds: number;
  reorgWindowSeconds: number;
  /** The relayer's ETH balance below which /api/ready is not ready, in wei (a decimal string). */
  relayerMinBalanceWei: string;
  /** How many keys the relayer pool holds. */
  relayerKeys: number;
  /** How long a payer whose relayed transfer reverted gets no further settlement, in seconds. */
  relayerRevertCooldownSeconds: number;
  /** Wei the relayer may lose to reverted transfers in one UTC hour (a decimal string). */
  relayerRevertBudgetWei: string;
  identityRegistry: Address | undefined;
  /** The escrow deployment `auth-capture` pays into (AUTH_CAPTURE_DEPLOYMENTS); undefined when the setting names an unknown one. */
  authCapture: AuthCaptureDeployment | undefined;
  /** `escrowCaptureSeconds`: how long a challenge's escrowed payment may still be captured. */
  escrowCaptureSeconds: number;
  /** `escrowRefundDays`: how long after its capture deadline an escrowed sale can be refunded through the escrow. */
  escrowRefundDays: number;
  /** The ETH / USD feed the relayer's gas is priced with at settlement. */
  ethUsdFeed: Address | undefined;
  /** The Stripe API's origin when it is not Stripe's own (tests); undefined for api.stripe.com. */
  stripeApiBase: string | undefined;
  /** The block explorer the ledger links rows to, without a trailing slash; undefined for none. */
  explorerUrl: string | undefined;
  /** The Rekor transparency log the provenance bundles are logged in, without a trailing slash; undefined for none. */
  transparencyLogUrl: string | undefined;
}

/**
 * Secrets: never CDK context, never in the template. Locally they are environment variables;
 * in AWS they are the fields of the same names in one Secrets Manager secret the stack creates
 * (`INFRA_ENV.stripeSecretArn`), read once per cold start. Card checkout is on when both are set.
 */
export const SECRET_SETTINGS = {
  stripeSecretKey: {
    env: 'STRIPE_SECRET_KEY',
    description:
      'Stripe secret key (`sk_live_…`, `sk_test_…` or a restricted `rk_…` key with Checkout Sessions write). Turns card checkout on.',
  },
  stripeWebhookSecret: {
    env: 'STRIPE_WEBHOOK_SECRET',
    description:
      'Signing secret (`whsec_…`) of the Stripe webhook endpoint `/api/checkout/stripe-webhook`; without it card checkout stays off, since nothing could confirm a payment.',
  },
} as const;

/** `http(s)://host` with an optional port and nothing else: what the Stripe SDK's host, port and protocol options can express. */
export const API_ORIGIN = /^(https?):\/\/([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?\/?$/;

export interface ConfigReading {
  config: MarketConfig;
  /** Human-readable problems, each naming the setting; empty when the configuration is sound. */
  problems: string[];
}

/** The longest `escrowCaptureSeconds`: a week (the confirmation loop's state machine waits up to it). */
export const ESCROW_CAPTURE_SECONDS_MAX = 7 * 86400;

/** An http(s) base URL: scheme, host, optional path; no spaces. */
export const BASE_URL = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;

const blank = (v: string | undefined): v is undefined => v === undefined || v.trim() === '';

/** A JSON-RPC provider's URL: http(s), no spaces. */
const RPC_URL = /^https?:\/\/[^\s]+$/;

/**
 * A comma-separated list of JSON-RPC URLs (the `rpcUrls` setting, or the RPC secret's field of
 * the same name): the valid ones in order, and the ones that are not URLs.
 */
export function parseRpcUrls(text: string): { urls: string[]; invalid: string[] } {
  const items = text
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  return { urls: items.filter((u) => RPC_URL.test(u)), invalid: items.filter((u) => !RPC_URL.test(u)) };
}

function readAddress(
  codec: AddressCodec,
  name: SettingName,
  raw: string | undefined,
  problems: string[],
  required: boolean,
): Address | undefined {
  const spec = SETTINGS[name];
  if (blank(raw)) {
    if (required) problems.push(`${spec.context} (${spec.env}) is required: ${spec.description}`);
    return undefined;
  }
  const value = raw.trim();
  // isAddress with strict checksum rejects a mixed-case address whose EIP-55 checksum is wrong (a likely typo).
  if (!codec.isValid(value)) {
    problems.push(
      `${spec.context} (${spec.env}) is not a valid address: "${value}" (expected 0x followed by 40 hex digits, correct EIP-55 checksum if mixed case)`,
    );
    return undefined;
  }
  return codec.checksum(value);
}

/**
 * Reads the configuration from a map of setting name to raw string (from env or CDK context).
 * Never throws: problems are collected so callers can decide (synth fails, runtime reports).
 */
export function readMarketConfig(
  raw: Partial<Record<SettingName, string>>,
  opts: { requireTreasury: boolean },
  codec: AddressCodec,
): ConfigReading {
  const problems: string[] = [];
  const choice = <T extends string>(name: 'network' | 'stage', allowed: readonly T[]): T => {
    const spec = SETTINGS[name];
    const v = blank(raw[name]) ? spec.cloudDefault : raw[name].trim();
    if ((allowed as readonly string[]).includes(v)) return v as T;
    problems.push(`${spec.context} (${spec.env}) must be one of ${allowed.join(', ')}, got "${v}"`);
    return spec.cloudDefault as T;
  };
  const networkName = choice('network', NETWORK_NAMES);
  const network = NETWORKS[networkName];
  const stage = choice('stage', STAGE_NAMES);
  // A production stack takes real money: a testnet there would sell packs for coins of no value.
  // A staging stack rehearses: on mainnet it could take real money from a buyer who found it.
  if (stage === 'production' && network.testnet)
    problems.push(
      `network ${network.name} is a testnet and stage is production: a production stack settles on mainnet (network base). Use -c stage=staging to rehearse on ${network.label}.`,
    );
  if (stage === 'staging' && !network.testnet)
    problems.push(
      `network ${network.name} is mainnet and stage is staging: a staging stack must never take real money. Use -c network=base-sepolia.`,
    );

  const treasury = readAddress(codec, 'treasury', raw.treasury, problems, opts.requireTreasury);
  const legacyTreasury = readAddress(codec, 'legacyTreasury', raw.legacyTreasury, problems, false);
  if (treasury !== undefined && legacyTreasury !== undefined && treasury === legacyTreasury) {
    problems.push(
      `treasury (TREASURY_ADDRESS) equals the banned legacy treasury ${legacyTreasury}: payments to it never unlock. Set a different treasury.`,
    );
  }

  const { urls: rpcUrls, invalid: badRpcUrls } = parseRpcUrls(raw.rpcUrls ?? network.publicRpcUrl);
  if (rpcUrls.length + badRpcUrls.length === 0)
    problems.push(`rpcUrls (RPC_URLS) is empty: give at least one JSON-RPC URL for ${chainLabel(network)}.`);
  for (const url of badRpcUrls) problems.push(`rpcUrls (RPC_URLS) has an invalid URL: "${url}"`);

  const confRaw = blank(raw.minConfirmations) ? SETTINGS.minConfirmations.cloudDefault : raw.minConfirmations.trim();
  const minConfirmations = Number(confRaw);
  if (!Number.isInteger(minConfirmations) || minConfirmations < 1 || minConfirmations > 64) {
    problems.push(`minConfirmations (MIN_CONFIRMATIONS) must be an integer from 1 to 64, got "${confRaw}"`);
  }

  const usdc = readAddress(codec, 'usdc', blank(raw.usdc) ? network.assets.USDC.address : raw.usdc, problems, true);
  // USDbC is accepted where the network has it (Base); Base Sepolia has none, so nothing to configure there.
  const usdbc = network.assets.USDbC
    ? readAddress(codec, 'usdbc', blank(raw.usdbc) ? network.assets.USDbC.address : raw.usdbc, problems, true)
    : undefined;
  if (!network.assets.USDbC && !blank(raw.usdbc))
    problems.push(`usdbcAddress (USDBC_ADDRESS) is set, but ${network.label} has no USDbC: its challenge offers USDC only. Remove it.`);
  if (usdc !== undefined && usdc === usdbc) problems.push('usdcAddress and usdbcAddress must differ.');
  for (const [label, asset] of [
    ['usdcAddress', usdc],
    ['usdbcAddress', usdbc],
  ] as const) {
    if (asset !== undefined && (asset === treasury || asset === legacyTreasury)) {
      problems.push(`${label} ${asset} is also configured as a treasury address.`);
    }
  }

  const flag = (name: 'paymentsEnabled' | 'requirePayerProof'): boolean => {
    const spec = SETTINGS[name];
    const v = (raw[name] ?? spec.cloudDefault).trim().toLowerCase();
    if (!['true', 'false'].includes(v)) problems.push(`${spec.context} (${spec.env}) must be true or false, got "${v}"`);
    return v === 'true' || (v !== 'false' && spec.cloudDefault === 'true');
  };
  const paymentsEnabled = flag('paymentsEnabled');
  const requirePayerProof = flag('requirePayerProof');
  const seconds = (
    name: 'maxTransferAgeSeconds' | 'retryWindowSeconds' | 'reorgWindowSeconds' | 'relayerRevertCooldownSeconds' | 'escrowCaptureSeconds',
    min: number,
    max: number,
  ): number => {
    const spec = SETTINGS[name];
    const v = blank(raw[name]) ? spec.cloudDefault : raw[name].trim();
    const n = Number(v);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    problems.push(`${spec.context} (${spec.env}) must be a whole number of seconds from ${min} to ${max}, got "${v}"`);
    return Number(spec.cloudDefault);
  };

  const wholeNumber = (name: 'escrowRefundDays', min: number, max: number): number => {
    const spec = SETTINGS[name];
    const v = blank(raw[name]) ? spec.cloudDefault : raw[name].trim();
    const n = Number(v);
    if (/^\d+$/.test(v) && n >= min && n <= max) return n;
    problems.push(`${spec.context} (${spec.env}) must be a whole number from ${min} to ${max}, got "${v}"`);
    return Number(spec.cloudDefault);
  };

  const weiOf = (m: RegExpExecArray): string => (BigInt(m[1]!) * 10n ** 18n + BigInt((m[2] ?? '').padEnd(18, '0'))).toString();
  const ether = (name: 'relayerMinBalanceEth' | 'relayerRevertBudgetEth'): string => {
    const spec = SETTINGS[name];
    const v = blank(raw[name]) ? spec.cloudDefault : raw[name].trim();
    const m = /^(\d{1,9})(?:\.(\d{1,18}))?$/.exec(v);
    if (!m) problems.push(`${spec.context} (${spec.env}) must be an amount of ETH such as ${spec.cloudDefault}, got "${v}"`);
    return weiOf(m ?? /^(\d+)(?:\.(\d+))?$/.exec(spec.cloudDefault)!);
  };
  const relayerMinBalanceWei = ether('relayerMinBalanceEth');
  const relayerRevertBudgetWei = ether('relayerRevertBudgetEth');
  const keysRead = readRelayerKeys(raw.relayerKeys);
  if (keysRead.problem) problems.push(keysRead.problem);
  const relayerKeys = keysRead.keys;

  const identityRegistry = readAddress(
    codec,
    'identityRegistry',
    blank(raw.identityRegistry) ? network.identityRegistry : raw.identityRegistry,
    problems,
    false,
  );

  const escrowAddress = readAddress(
    codec,
    'authCaptureEscrow',
    blank(raw.authCaptureEscrow) ? network.authCapture.escrow : raw.authCaptureEscrow,
    problems,
    false,
  );
  const authCapture = escrowAddress && AUTH_CAPTURE_DEPLOYMENTS.find((d) => d.escrow.toLowerCase() === escrowAddress.toLowerCase());
  if (escrowAddress && !authCapture)
    problems.push(
      `authCaptureEscrow (AUTH_CAPTURE_ESCROW_ADDRESS) is ${escrowAddress}, which is no deployment x402's auth-capture client and this service both know: use ${AUTH_CAPTURE_DEPLOYMENTS.map((d) => `${d.escrow} (${d.version})`).join(' or ')}`,
    );

  const ethUsdFeed = readAddress(codec, 'ethUsdFeed', blank(raw.ethUsdFeed) ? network.ethUsdFeed : raw.ethUsdFeed, problems, false);

  let stripeApiBase: string | undefined;
  if (!blank(raw.stripeApiBase)) {
    const v = raw.stripeApiBase.trim().replace(/\/+$/, '');
    if (API_ORIGIN.test(v)) stripeApiBase = v;
    else problems.push(`stripeApiBase (STRIPE_API_BASE) must be http(s)://host[:port] with no path, got "${raw.stripeApiBase}"`);
  }

  // Unset: the cloud default; set but empty: no explorer (the local chain).
  let explorerUrl: string | undefined;
  const explorerRaw = raw.explorerUrl ?? network.explorerUrl;
  if (!blank(explorerRaw)) {
    const v = explorerRaw.trim().replace(/\/+$/, '');
    if (BASE_URL.test(v)) explorerUrl = v;
    else problems.push(`explorerUrl (EXPLORER_URL) is not an http(s) URL: "${explorerRaw}"`);
  }

  let transparencyLogUrl: string | undefined;
  if (!blank(raw.transparencyLogUrl)) {
    const v = raw.transparencyLogUrl.trim().replace(/\/+$/, '');
    if (BASE_URL.test(v)) transparencyLogUrl = v;
    else problems.push(`transparencyLogUrl (TRANSPARENCY_LOG_URL) is not an http(s) URL: "${raw.transparencyLogUrl}"`);
  }

  let publicBaseUrl: string | undefined;
  if (!blank(raw.publicBaseUrl)) {
    const v = raw.publicBaseUrl.trim().replace(/\/+$/, '');
    if (BASE_URL.test(v)) publicBaseUrl = v;
    else problems.push(`publicBaseUrl (PUBLIC_BASE_URL) is not an http(s) URL: "${raw.publicBaseUrl}"`);
  }

  return {
    config: {
      network,
      stage,
      treasury,
      legacyTreasury,
      rpcUrls,
      minConfirmations: Number.isInteger(minConfirmations) && minConfirmations >= 1 ? minConfirmations : 1,
      assets: { USDC: usdc, USDbC: usdbc },
      paymentsEnabled,
      publicBaseUrl,
      requirePayerProof,
      maxTransferAgeSeconds: seconds('maxTransferAgeSeconds', 60, 30 * 86400),
      retryWindowSeconds: seconds('retryWindowSeconds', 0, 86400),
      reorgWindowSeconds: seconds('reorgWindowSeconds', 1, 3600),
      relayerMinBalanceWei,
      relayerKeys,
      relayerRevertCooldownSeconds: seconds('relayerRevertCooldownSeconds', 0, 30 * 86400),
      relayerRevertBudgetWei,
      identityRegistry,
      authCapture: authCapture || undefined,
      escrowCaptureSeconds: seconds('escrowCaptureSeconds', 900, ESCROW_CAPTURE_SECONDS_MAX),
      escrowRefundDays: wholeNumber('escrowRefundDays', 0, 365),
      ethUsdFeed,
      stripeApiBase,
      explorerUrl,
      transparencyLogUrl,
    },
    problems,
  };
}

/** Wei (a decimal string) as an exact ETH amount, e.g. "2000000000000000" → "0.002". */
function weiToEth(wei: string): string {
  const v = BigInt(wei);
  const frac = (v % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return `${v / 10n ** 18n}${frac ? `.${frac}` : ''}`;
}

/** Whether a challenge can be built: a treasury to pay, and every asset the network accepts configured. */
export const challengeable = (config: Pick<MarketConfig, 'treasury' | 'network' | 'assets'>): boolean =>
  config.treasury !== undefined && networkAssets(config.network).every((a) => config.assets[a] !== undefined);

/**
 * The relayer pool's size from its raw setting: the default when unset; an invalid value is a
 * problem, and the default stands in for it (what the Lambdas and the local run's funding both use).
 */
export function readRelayerKeys(raw: string | undefined): { keys: number; problem?: string } {
  const spec = SETTINGS.relayerKeys;
  const v = blank(raw) ? spec.cloudDefault : raw.trim();
  const n = Number(v);
  if (Number.isInteger(n) && n >= 1 && n <= MAX_RELAYER_KEYS) return { keys: n };
  return {
    keys: Number(spec.cloudDefault),
    problem: `${spec.context} (${spec.env}) must be a whole number from 1 to ${MAX_RELAYER_KEYS}, got "${v}"`,
  };
}

/** The environment variables that carry a validated configuration to a Lambda. */
export function configToEnv(config: MarketConfig): Record<string, string> {
  const env: Record<string, string> = {
    [SETTINGS.network.env]: config.network.name,
    [SETTINGS.stage.env]: config.stage,
    [SETTINGS.rpcUrls.env]: config.rpcUrls.join(','),
    [SETTINGS.minConfirmations.env]: String(config.minConfirmations),
    [SETTINGS.paymentsEnabled.env]: String(config.paymentsEnabled),
    [SETTINGS.requirePayerProof.env]: String(config.requirePayerProof),
    [SETTINGS.maxTransferAgeSeconds.env]: String(config.maxTransferAgeSeconds),
    [SETTINGS.retryWindowSeconds.env]: String(config.retryWindowSeconds),
    [SETTINGS.reorgWindowSeconds.env]: String(config.reorgWindowSeconds),
    [SETTINGS.relayerMinBalanceEth.env]: weiToEth(config.relayerMinBalanceWei),
    [SETTINGS.relayerKeys.env]: String(config.relayerKeys),
    [SETTINGS.relayerRevertCooldownSeconds.env]: String(config.relayerRevertCooldownSeconds),
    [SETTINGS.relayerRevertBudgetEth.env]: weiToEth(config.relayerRevertBudgetWei),
    [SETTINGS.escrowCaptureSeconds.env]: String(config.escrowCaptureSeconds),
    [SETTINGS.escrowRefundDays.env]: String(config.escrowRefundDays),
  };
  if (config.treasury) env[SETTINGS.treasury.env] = config.treasury;
  if (config.legacyTreasury) env[SETTINGS.legacyTreasury.env] = config.legacyTreasury;
  if (config.assets.USDC) env[SETTINGS.usdc.env] = config.assets.USDC;
  if (config.assets.USDbC) env[SETTINGS.usdbc.env] = config.assets.USDbC;
  if (config.publicBaseUrl) env[SETTINGS.publicBaseUrl.env] = config.publicBaseUrl;
  if (config.identityRegistry) env[SETTINGS.identityRegistry.env] = config.identityRegistry;
  if (config.authCapture) env[SETTINGS.authCaptureEscrow.env] = config.authCapture.escrow;
  if (config.ethUsdFeed) env[SETTINGS.ethUsdFeed.env] = config.ethUsdFeed;
  if (config.stripeApiBase) env[SETTINGS.stripeApiBase.env] = config.stripeApiBase;
  env[SETTINGS.explorerUrl.env] = config.explorerUrl ?? '';
  if (config.transparencyLogUrl) env[SETTINGS.transparencyLogUrl.env] = config.transparencyLogUrl;
  return env;
}
