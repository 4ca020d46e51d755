/**
 * The base URL this deployment advertises (challenges, the agent card, ESP links). It never
 * comes from a request header in AWS: a caller reaching API Gateway directly could otherwise
 * make the service sign an agent card, or build a challenge, naming a host of the caller's
 * choice. Sources, in order: PUBLIC_BASE_URL (a configured custom domain); the SSM parameter
 * named by PUBLIC_BASE_URL_PARAMETER, which CloudFormation sets to the CloudFront domain once
 * the distribution exists. With neither, requests are refused (503 naming the setting): the
 * local run sets PUBLIC_BASE_URL to the address it listens on, and a request header never chooses it.
 */
import { INFRA_ENV } from '../contract/env';
import { BASE_URL, SETTINGS } from '../contract/settings';

export type ParameterReader = (name: string) => Promise<string | undefined>;

/**
 * The SSM client is loaded on first use, from its own chunk of the bundle: it is needed once per
 * cold start and only where no PUBLIC_BASE_URL is configured, and it weighs ~120 KiB of parse.
 */
const ssmParameter: ParameterReader = (name) => import('./adapters/ssm-parameter').then((m) => m.ssmParameter(name));

export async function resolvePublicBaseUrl(
  env: NodeJS.ProcessEnv = process.env,
  read: ParameterReader = ssmParameter,
): Promise<string | undefined> {
  const configured = env[SETTINGS.publicBaseUrl.env]?.trim();
  if (configured) {
    if (!BASE_URL.test(configured)) throw new Error(`PUBLIC_BASE_URL is not an http(s) URL: "${configured}"`);
    return configured.replace(/\/+$/, '');
  }
  const parameter = env[INFRA_ENV.publicBaseUrlParameter];
  if (!parameter) return undefined;
  const value = (await read(parameter))?.trim();
  if (!value || !BASE_URL.test(value)) throw new Error(`SSM parameter ${parameter} holds no http(s) URL`);
  return value.replace(/\/+$/, '');
}
