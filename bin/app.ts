/**
 * The CDK app. Settings come from context (`-c treasury=0x…`, see README); the stack
 * validates them at synth. The public static tree is built first so CDK deploys what the
 * local server serves.
 */
import { App } from 'aws-cdk-lib';
import { buildSite } from '../catalog/build';
import { DeployConfigError } from '../lib/deploy-config';
import { MarketplaceStack } from '../lib/marketplace-stack';

await buildSite();
const app = new App();
try {
  new MarketplaceStack(app, app.node.tryGetContext('stackName') ?? 'SkillMarket', {
    description: 'Agent skill marketplace: sealed capability packs sold over x402 (USDC on Base)',
  });
} catch (e) {
  if (e instanceof DeployConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
