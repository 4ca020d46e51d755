/**
 * cdk-nag over the synthesized stack: the AwsSolutions and Serverless packs, through CDK's
 * policy validation (`Validations.of(app).addPlugins`), with CDK's own CloudFormation rules
 * (errors fail; `cdk synth` skips them, bin/app.ts). Every finding must be fixed in the stack
 * or acknowledged beside the construct it concerns, with a reason; this fails on any other.
 */
import { App, CfnResource, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MarketplaceStack } from '../../lib/marketplace-stack';
import { addMarketplace } from '../../lib/marketplace-app';
import { readPipelineConfig } from '../../lib/deploy-config';
import { PipelineStack } from '../../lib/pipeline-stack';

const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';

interface Report {
  pluginReports: { violations: { ruleName: string; violatingResources: { constructPath: string }[] }[] }[];
}

/**
 * Synthesizes with both packs; `build` makes the app's stacks (by default the region-agnostic
 * marketplace stack, `Nag`), and may add to them. The findings, as "rule at path".
 */
function findings(build: (app: App) => void = (app) => new MarketplaceStack(app, 'Nag')): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'nag-'));
  try {
    const app = new App({
      outdir,
      // CDK's CloudFormation rules too, strict: bin/app.ts leaves them to this test.
      context: { treasury: TREASURY, '@aws-cdk/core:validationReportJson': true, '@aws-cdk/core:validateAgainstDefaultRules': true },
    });
    build(app);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
    try {
      app.synth();
      return [];
    } catch {
      // Validation failed: the report lists what is neither fixed nor acknowledged.
      const report = JSON.parse(readFileSync(join(outdir, 'policy-validation-report.json'), 'utf8')) as Report;
      return report.pluginReports.flatMap((p) =>
        p.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`)),
      );
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('cdk-nag (AwsSolutions, Serverless)', () => {
  it('finds nothing that is neither fixed nor acknowledged with a reason', () => {
    expect(findings()).toEqual([]);
  }, 120_000);

  it("finds nothing either with the synthetic purchase's schedule on (its scheduler role, its alarm)", () => {
    expect(
      findings((app) => {
        app.node.setContext('syntheticPurchase', 'on');
        new MarketplaceStack(app, 'Nag');
      }),
    ).toEqual([]);
  }, 120_000);

  it('finds nothing either for a deploy with an account and a region outside us-east-1 (the us-east-1 edge stack, the cross-region reference)', () => {
    expect(findings((app) => addMarketplace(app, { account: '111111111111', region: 'eu-west-1' }))).toEqual([]);
  }, 120_000);

  it("finds nothing either in the release pipeline's stack (-c pipeline=on; its stages hold the marketplace stack checked above)", () => {
    const found = findings((app) => {
      const context = {
        // The stages' stacks are the marketplace stack checked above; their bundles are not what is checked here.
        'aws:cdk:bundling-stacks': [],
        pipelineRepo: 'acme/skill-market',
        pipelineConnectionArn: 'arn:aws:codeconnections:eu-west-1:111111111111:connection/12345678-1234-1234-1234-123456789012',
        staging: { treasury: TREASURY },
        production: { treasury: TREASURY },
      };
      for (const [key, value] of Object.entries(context)) app.node.setContext(key, value);
      new PipelineStack(app, 'NagPipeline', { config: readPipelineConfig(app, undefined) });
    });
    expect(found).toEqual([]);
  }, 120_000);

  it('fails when a finding is introduced: a bucket without access logs or TLS-only access, a property CloudFormation does not know', () => {
    const found = findings((app) => {
      const stack = new MarketplaceStack(app, 'Nag');
      new Bucket(stack, 'Careless');
      new CfnResource(stack, 'Misspelt', { type: 'AWS::SQS::Queue', properties: { MessageRetentionPeriods: 60 } });
    });
    expect(found).toEqual(
      expect.arrayContaining(['AwsSolutions-S1 at Nag/Careless/Resource', 'AwsSolutions-S10 at Nag/Careless/Resource']),
    );
    // CloudFormation's own rule (cfn-lint's F3002/E3002: an unknown property), not a cdk-nag one.
    expect(found.filter((f) => f.endsWith(' at Nag/Misspelt'))).toEqual([expect.stringMatching(/^[EF]3002 at Nag\/Misspelt$/)]);
  }, 120_000);
});
