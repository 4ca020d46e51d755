import type { Construct } from 'constructs';
import { getAddress, isAddress } from 'viem';
import { readMarketConfig, SETTINGS, type AddressCodec, type MarketConfig, type SettingName } from '../lambdas/contract/settings';

/** EIP-55 checks for the synth: the same rules the Lambdas apply (contract/settings.ts). */
const addressCodec: AddressCodec = { isValid: (v) => isAddress(v, { strict: true }), checksum: (v) => getAddress(v) };

/**
 * Reads the deployment settings from CDK context (`-c treasury=0x…` or cdk.json) and
 * validates them with the same rules the Lambdas use. Any problem fails the synth with
 * every problem listed. The treasury alone may be left for deploy time (a CloudFormation
 * parameter), so a plain `cdk synth` gives a deployable template that cannot deploy without it.
 */
/** A configuration the synth refuses; bin/app.ts prints its message without a stack trace. */
export class DeployConfigError extends Error {}

export function readDeployConfig(scope: Construct): MarketConfig {
  const raw: Partial<Record<SettingName, string>> = {};
  for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][]) {
    const v: unknown = scope.node.tryGetContext(spec.context);
    if (v !== undefined && v !== null) raw[name] = Array.isArray(v) ? v.join(',') : String(v);
  }
  const { config, problems } = readMarketConfig(raw, { requireTreasury: false }, addressCodec);
  if (problems.length > 0) {
    throw new DeployConfigError(`Invalid deployment configuration (CDK context):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return config;
}
