/**
 * The synthetic purchase's composition: its one place that names adapters. In AWS the public base
 * URL, the RPC providers and USDC come from the settings (as every payments function reads them)
 * and the funding wallet's key from the synthetic purchase secret; a test composes the same ports
 * with the local stack's values (`syntheticPurchasePorts`).
 */
import { INFRA_ENV, SYNTHETIC_FUNDER_KEY_FIELD } from '../../contract/env';
import { secretsManagerJson } from '../../platform/adapters/secret-json';
import { readConfigFromEnv } from '../../platform/config';
import { resolvePublicBaseUrl } from '../../platform/public-base-url';
import { fixedRpcUrls, rpcUrlsFromEnv, type RpcUrls } from '../../platform/rpc-urls';
import { httpStorefront } from './adapters/http-storefront';
import { viemUsdcFunder } from './adapters/viem-funder';
import { x402FreshBuyer } from './adapters/x402-buyer';
import type { SyntheticPurchasePorts } from './ports';

export interface SyntheticPurchaseSetup {
  /** The public base URL (the deployment's BaseUrl: CloudFront). */
  baseUrl: string;
  rpcUrls: RpcUrls | readonly string[];
  usdc: `0x${string}`;
  /** The operator's funding wallet. */
  funderKey: `0x${string}`;
  /** How often the funder polls for its transfer's receipt (Base makes a block every 2 s). */
  pollingIntervalMs?: number;
}

export function syntheticPurchasePorts(s: SyntheticPurchaseSetup): SyntheticPurchasePorts {
  const rpcUrls = typeof s.rpcUrls === 'function' ? s.rpcUrls : fixedRpcUrls(s.rpcUrls);
  return {
    storefront: httpStorefront(s.baseUrl),
    funder: viemUsdcFunder({
      privateKey: s.funderKey,
      usdc: s.usdc,
      rpcUrls,
      ...(s.pollingIntervalMs ? { pollingIntervalMs: s.pollingIntervalMs } : {}),
    }),
    freshBuyer: () => x402FreshBuyer(),
    ledgerPatience: { attempts: 5, delayMs: 2_000 },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: Date.now,
  };
}

/** The deployed function's ports; throws (a `setup` failure) when a setting or the funding key is missing. */
export async function syntheticPurchaseFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<SyntheticPurchasePorts> {
  const { config } = readConfigFromEnv(env);
  const baseUrl = await resolvePublicBaseUrl(env);
  if (!baseUrl) throw new Error('no public base URL is configured (PUBLIC_BASE_URL or its SSM parameter)');
  if (!config.assets.USDC) throw new Error('no USDC address is configured');
  const arn = env[INFRA_ENV.syntheticFunderSecretArn];
  if (!arn) throw new Error(`${INFRA_ENV.syntheticFunderSecretArn} is not set: this function has no funding wallet`);
  const key = (await secretsManagerJson(arn, 'the synthetic purchase secret')) as Record<string, unknown>;
  const funderKey = key[SYNTHETIC_FUNDER_KEY_FIELD];
  if (typeof funderKey !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(funderKey))
    throw new Error(
      `the synthetic purchase secret's ${SYNTHETIC_FUNDER_KEY_FIELD} is not a private key (0x and 64 hex digits): put a funded Base wallet's key there (docs/OPERATIONS.md, "Synthetic purchase")`,
    );
  return syntheticPurchasePorts({
    baseUrl,
    rpcUrls: rpcUrlsFromEnv(env, config.rpcUrls),
    usdc: config.assets.USDC,
    funderKey: funderKey as `0x${string}`,
  });
}
