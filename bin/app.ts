/**
 * The CDK app. Settings come from context (`-c treasury=0x…`, see README); the stack
 * validates them at synth. The public static tree is built first so CDK deploys what the
 * local server serves, with the operator settings from the same context (the terms, privacy,
 * refund and contact pages; the stack refuses a deploy while any is a placeholder). The region
 * (and account) at synth are the CLI's (CDK_DEFAULT_REGION, CDK_DEFAULT_ACCOUNT); they decide
 * where the CloudFront web ACL goes (lib/marketplace-app.ts).
 */
import { App } from 'aws-cdk-lib';
import { buildSite } from '../catalog/build';
import { DeployConfigError, readOperatorConfig } from '../lib/deploy-config';
import { addMarketplace } from '../lib/marketplace-app';

// CDK's built-in CloudFormation validation runs in npm test, strict (an error fails), over both
// shapes of the stack (test/cdk/nag.test.ts, beside cdk-nag). `cdk synth` skips it unless
// CDK_VALIDATION=true: it is a third of a synth (32 s → 21.5 s on two cores).
const app = new App({ builtinCloudFormationValidation: process.env['CDK_VALIDATION'] === 'true' });
try {
  await buildSite({ operator: readOperatorConfig(app) });
  addMarketplace(app, { account: process.env['CDK_DEFAULT_ACCOUNT'], region: process.env['CDK_DEFAULT_REGION'] });
} catch (e) {
  if (e instanceof DeployConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
