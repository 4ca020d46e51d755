/**
 * Which JSON-RPC providers the chain adapters use, resolved when they first need one. A
 * provider's URL often carries its API key (Alchemy, Infura, QuickNode put it in the path), so
 * in AWS the keyed URLs live in a Secrets Manager secret (`INFRA_ENV.rpcSecretArn`, a JSON
 * object with an `RPC_URLS` field) and are tried first; the `rpcUrls` setting, which travels in
 * the functions' environment and must hold no key, follows as the fallback. Without a secret
 * (the local run, tests) the setting alone is the list.
 */
import { INFRA_ENV } from '../contract/env';
import { parseRpcUrls, SETTINGS } from '../contract/settings';
import { logger } from './logger';
import { redactUrl } from './redact';

/** The providers in the order they are tried; resolved on first use, cheap to ask again. */
export type RpcUrls = () => Promise<readonly string[]>;

/** Reads the RPC secret's `RPC_URLS` field (undefined while it is blank or absent). */
export type RpcSecretReader = (arn: string) => Promise<string | undefined>;

/**
 * The secret is read again at most this often, so an operator who rolls a provider key (writes
 * the new URL to the secret) sees every warm instance take it within minutes, without a deploy.
 */
export const RPC_SECRET_REFRESH_MS = 5 * 60_000;

/** The Secrets Manager client is loaded on first use, from its own chunk, as the SSM client is (public-base-url.ts). */
const secretsManagerRead: RpcSecretReader = (arn) => import('./adapters/rpc-secret').then((m) => m.secretsManagerRpcSecret(arn));

/** A fixed list (tests, tools): no secret behind it. */
export const fixedRpcUrls =
  (urls: readonly string[]): RpcUrls =>
  () =>
    Promise.resolve(urls);

/**
 * The providers for this process: the secret's URLs (when the stack gave one) then the
 * configured ones, without repeats. A secret that cannot be read does not stop payments: the
 * configured providers answer alone, the problem is logged, and the secret is asked again on the
 * next use rather than after the refresh period. A blank one (not filled yet) means the configured
 * providers until the next refresh; an entry that is not a URL is skipped and logged by its host
 * only, never the URL.
 */
export function rpcUrlsFromEnv(
  env: NodeJS.ProcessEnv,
  configured: readonly string[],
  read: RpcSecretReader = secretsManagerRead,
  now: () => number = Date.now,
): RpcUrls {
  const arn = env[INFRA_ENV.rpcSecretArn];
  if (!arn) return fixedRpcUrls(configured);
  let kept: { at: number; urls: Promise<readonly string[]> } | undefined;
  const load = async (): Promise<{ urls: readonly string[]; keep: boolean }> => {
    try {
      const { urls, invalid } = parseRpcUrls((await read(arn)) ?? '');
      for (const url of invalid)
        logger.error('the RPC secret holds an entry that is not an http(s) URL; it is skipped', { host: redactUrl(url) });
      return { urls: [...new Set([...urls, ...configured])], keep: true };
    } catch (e) {
      logger.error(`the RPC secret could not be read; using ${SETTINGS.rpcUrls.env} alone`, { error: (e as Error).name });
      return { urls: configured, keep: false };
    }
  };
  return () => {
    if (kept && now() - kept.at < RPC_SECRET_REFRESH_MS) return kept.urls;
    const at = now();
    const urls = load().then(({ urls, keep }) => {
      if (!keep && kept?.at === at) kept = undefined;
      return urls;
    });
    kept = { at, urls };
    return urls;
  };
}
