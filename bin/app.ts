/**
 * The CDK app. Settings come from context (`-c treasury=0x…`, see README); the stack
 * validates them at synth. The public static tree is built first so CDK deploys what the
 * local server serves, with the operator settings from the same context (the terms, privacy,
 * refund and contact pages; the stack refuses a deploy while any is a placeholder). The region
 * (and account) at synth are the CLI's (CDK_DEFAULT_REGION, CDK_DEFAULT_ACCOUNT); they decide
 * where the CloudFront web ACL goes (lib/marketplace-app.ts). With `-c pipeline=on` the app is the
 * release pipeline instead (lib/pipeline-stack.ts), whose stages hold the same stacks.
 */
import { App } from 'aws-cdk-lib';
import { buildSite } from '../catalog/build';
import { DeployConfigError, readOperatorConfig, readPipelineConfig, wantsPipeline } from '../lib/deploy-config';
import { addMarketplace } from '../lib/marketplace-app';
import { PipelineStack } from '../lib/pipeline-stack';

// CDK's built-in CloudFormation validation runs in npm test, strict (an error fails), over both
// shapes of the stack (test/cdk/nag.test.ts, beside cdk-nag). `cdk synth` skips it unless
// CDK_VALIDATION=true: it is a third of a synth (32 s → 21.5 s on two cores).
const app = new App({ builtinCloudFormationValidation: process.env['CDK_VALIDATION'] === 'true' });
try {
  await buildSite({ operator: readOperatorConfig(app) });
  const where = { account: process.env['CDK_DEFAULT_ACCOUNT'], region: process.env['CDK_DEFAULT_REGION'] };
  // `-c pipeline=on`: the release pipeline alone, whose stages hold the marketplace (docs/OPERATIONS.md, "The pipeline").
  if (wantsPipeline(app)) {
    new PipelineStack(app, `${app.node.tryGetContext('stackName') ?? 'SkillMarket'}Pipeline`, {
      config: readPipelineConfig(app, where.account),
      description: 'Agent skill marketplace: the release pipeline (staging on base-sepolia, a purchase, approval, production)',
      ...(where.region ? { env: { ...(where.account ? { account: where.account } : {}), region: where.region } } : {}),
    });
  } else addMarketplace(app, where);
} catch (e) {
  if (e instanceof DeployConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
