/** Builds the discovery ports from the environment, through the catalog's and payments' public faces. */
import { catalogFromEnv } from '../catalog';
import { figuresFromEnv, ledgerFromEnv } from '../ledger';
import { INFRA_ENV } from '../contract/env';
import { readConfigFromEnv } from '../platform/config';
import { originSecretTarget } from '../platform/origin-secret-rotation';
import type { RotationTarget, SecretVersions } from '../platform/secret-rotation';
import type { DiscoveryPorts } from './ports';

export async function discoveryPortsFromEnv(): Promise<DiscoveryPorts> {
  const [catalog, ledger, figures] = await Promise.all([catalogFromEnv(), ledgerFromEnv(), figuresFromEnv()]);
  return {
    config: readConfigFromEnv().config,
    catalog,
    ledger,
    figures,
    now: () => new Date(),
  };
}

/**
 * What the origin secret's rotation steps need (origin-secret-rotation-handler.ts): the secret's
 * versions, and the distribution whose API origin sends it (the stack names it). Its clients load
 * here, on the rotation's first step: the discovery API function, whose ports this file also
 * builds, never parses the CloudFront client.
 */
export async function originRotationPortsFromEnv(secretId: string): Promise<{ secret: SecretVersions; target: RotationTarget }> {
  const distributionId = process.env[INFRA_ENV.originDistributionId];
  if (!distributionId)
    throw new Error(`${INFRA_ENV.originDistributionId} is not set: the rotation does not know which distribution sends the secret`);
  const [{ cloudFrontOriginHeader }, { secretsManagerVersions }] = await Promise.all([
    import('../platform/adapters/cloudfront-origin-header'),
    import('../platform/adapters/secret-versions'),
  ]);
  return {
    secret: secretsManagerVersions(secretId),
    target: originSecretTarget(cloudFrontOriginHeader(distributionId), (ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
}
