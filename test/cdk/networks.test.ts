import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../lambdas/contract/settings';
import { NETWORKS } from '../../lambdas/contract/networks';
import { DeployConfigError } from '../../lib/deploy-config';
import { MarketplaceStack } from '../../lib/marketplace-stack';

const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const stack = (context: Record<string, unknown>) =>
  new MarketplaceStack(new App({ context: { 'aws:cdk:bundling-stacks': [], treasury: TREASURY, ...context } }), 'Test');

describe('network and stage', () => {
  it('refuses a testnet in production and mainnet in staging, at synth', () => {
    expect(() => stack({ network: 'base-sepolia' })).toThrow(DeployConfigError);
    expect(() => stack({ network: 'base-sepolia', stage: 'production' })).toThrow(/base-sepolia is a testnet and stage is production/);
    expect(() => stack({ stage: 'staging' })).toThrow(DeployConfigError);
    expect(() => stack({ network: 'base', stage: 'staging' })).toThrow(/base is mainnet and stage is staging/);
    expect(() => stack({ network: 'sepolia', stage: 'staging' })).toThrow(
      /network \(SETTLEMENT_NETWORK\) must be one of base, base-sepolia/,
    );
  });

  it('gives every payment-reading function the staging network on base-sepolia', { timeout: 240_000 }, () => {
    const template = Template.fromStack(stack({ network: 'base-sepolia', stage: 'staging' }));
    const envs = Object.values(template.findResources('AWS::Lambda::Function'))
      .map((f) => (f as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties.Environment?.Variables)
      .filter((v): v is Record<string, unknown> => v?.[SETTINGS.network.env] !== undefined);
    expect(envs.length).toBeGreaterThan(3);
    const sepolia = NETWORKS['base-sepolia'];
    for (const env of envs) {
      expect(env[SETTINGS.network.env]).toBe('base-sepolia');
      expect(env[SETTINGS.stage.env]).toBe('staging');
      expect(env[SETTINGS.usdc.env]).toBe(sepolia.assets.USDC.address);
      expect(env[SETTINGS.usdbc.env]).toBeUndefined();
      expect(env[SETTINGS.rpcUrls.env]).toBe(sepolia.publicRpcUrl);
      expect(env[SETTINGS.explorerUrl.env]).toBe(sepolia.explorerUrl);
      expect(env[SETTINGS.ethUsdFeed.env]).toBe(sepolia.ethUsdFeed);
    }
  });
});
