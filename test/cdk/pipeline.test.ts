/**
 * The release pipeline (`-c pipeline=on`, lib/pipeline-stack.ts): its stages in order, the synth
 * step's build, the post-deploy purchase and its role, the approval before production, each
 * stage's context; and the pipeline's settings, refused at synth when wrong. Synthesized once: the
 * stages' Lambda bundles are skipped (`aws:cdk:bundling-stacks`: CDK's documented switch, which
 * the stack's local esbuild bundling obeys as any asset bundling does); test/cdk/bundles.test.ts
 * builds those.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DeployConfigError, readPipelineConfig, wantsPipeline } from '../../lib/deploy-config';
import { PipelineStack } from '../../lib/pipeline-stack';

const STAGING_TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const PRODUCTION_TREASURY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CONNECTION = 'arn:aws:codeconnections:eu-west-1:111111111111:connection/12345678-1234-1234-1234-123456789012';
const PIPELINE = {
  pipeline: 'on',
  pipelineRepo: 'acme/skill-market',
  pipelineConnectionArn: CONNECTION,
  // One stage as an object (cdk.json), the other as JSON (`-c production='{…}'`).
  staging: { treasury: STAGING_TREASURY, alarmEmail: 'staging@example.com' },
  production: JSON.stringify({ treasury: PRODUCTION_TREASURY, monthlyBudgetUsd: 200 }),
};

const cdkCliVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies['aws-cdk'];

interface Action {
  Name: string;
  RunOrder: number;
  ActionTypeId: { Category: string; Provider: string };
  Configuration: Record<string, any>;
}
interface PipelineStage {
  Name: string;
  Actions: Action[];
}

let stack: PipelineStack;
let template: Template;
let stages: PipelineStage[];

const newApp = (context: Record<string, unknown>) => new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
const pipelineStack = (app: App) => new PipelineStack(app, 'Release', { config: readPipelineConfig(app, undefined) });
/** The CodeBuild project a pipeline action runs. */
const projectOf = (action: Action) => {
  const ref = action.Configuration['ProjectName'] as { Ref: string };
  return template.toJSON()['Resources'][ref.Ref] as { Properties: Record<string, any> };
};
const action = (stage: string, name: string | RegExp): Action => {
  const found = stages.find((s) => s.Name === stage)?.Actions.find((a) => (typeof name === 'string' ? a.Name === name : name.test(a.Name)));
  if (!found) throw new Error(`no action ${String(name)} in stage ${stage}`);
  return found;
};

beforeAll(() => {
  stack = pipelineStack(newApp(PIPELINE));
  template = Template.fromStack(stack);
  const [pipeline] = Object.values(template.findResources('AWS::CodePipeline::Pipeline')) as { Properties: { Stages: PipelineStage[] } }[];
  stages = pipeline!.Properties.Stages;
}, 120_000);

describe('the release pipeline', () => {
  it('runs source, build, its own update, the assets, staging, then production', () => {
    expect(stages.map((s) => s.Name)).toEqual(['Source', 'Build', 'UpdatePipeline', 'Assets', 'Staging', 'Production']);
    const source = stages[0]!.Actions;
    expect(source).toHaveLength(1);
    expect(source[0]!.ActionTypeId.Provider).toBe('CodeStarSourceConnection');
    expect(source[0]!.Configuration).toMatchObject({
      ConnectionArn: CONNECTION,
      FullRepositoryId: 'acme/skill-market',
      BranchName: 'main',
    });
  });

  it('builds with npm ci, the whole npm test, then cdk synth with the pipeline context, on Debian with Java 17 and Chromium', () => {
    const build = projectOf(action('Build', 'Synth')).Properties;
    const spec = JSON.parse(build['Source'].BuildSpec as string) as { phases: Record<string, { commands: string[] }> };
    expect(spec.phases['install']!.commands.join('\n')).toMatch(/apt-get install .*openjdk-17-jre-headless chromium/);
    expect(spec.phases['install']!.commands).toContain('java -version && test -x /usr/bin/chromium');
    const commands = spec.phases['build']!.commands;
    expect(commands.slice(0, 2)).toEqual(['npm ci', 'npm test']);
    expect(commands[2]).toMatch(/^npx cdk synth -q -c pipeline=on /);
    // The pipeline's own context goes with it, so its self-update rebuilds the same pipeline.
    expect(commands[2]).toContain(`-c 'pipelineRepo=acme/skill-market'`);
    expect(commands[2]).toContain(`-c 'pipelineConnectionArn=${CONNECTION}'`);
    expect(commands[2]).toContain(`-c 'staging=${JSON.stringify(PIPELINE.staging)}'`);
    expect(build['Environment']).toMatchObject({
      Image: 'public.ecr.aws/docker/library/node:20-bookworm',
      ComputeType: 'BUILD_GENERAL1_MEDIUM',
    });
    // The suite alone takes ~10 minutes on two cores.
    expect(build['TimeoutInMinutes']).toBe(30);
  });

  it("updates itself and publishes the assets with the project's CDK CLI", () => {
    const spec = projectOf(action('UpdatePipeline', 'SelfMutate')).Properties['Source'].BuildSpec as string;
    expect(spec).toContain(`npm install -g aws-cdk@${cdkCliVersion}`);
  });

  it('deploys staging, then buys on it, with the synthetic purchase function the staging stack outputs', () => {
    const staging = stages.find((s) => s.Name === 'Staging')!.Actions;
    const deploy = action('Staging', /\.Deploy$/);
    const purchase = action('Staging', 'PurchaseOnStaging');
    expect(deploy.Configuration['StackName']).toBe('Staging-SkillMarket');
    expect(purchase.ActionTypeId.Provider).toBe('CodeBuild');
    expect(purchase.RunOrder).toBeGreaterThan(Math.max(...staging.filter((a) => a !== purchase).map((a) => a.RunOrder)));
    // The function's name comes from the deployed stack's output, through the deploy action's variables.
    const env = JSON.parse(purchase.Configuration['EnvironmentVariables'] as string) as { name: string; value: string }[];
    expect(env).toEqual(
      expect.arrayContaining([
        {
          name: 'SYNTHETIC_PURCHASE_FUNCTION',
          type: 'PLAINTEXT',
          value: expect.stringMatching(/^#\{[^}]+\.SyntheticPurchaseFunctionName\}$/),
        },
      ]),
    );
    expect(deploy.Configuration['StackName']).toBe(stack.staging.marketplace.stackName);
    expect(Object.keys(Template.fromStack(stack.staging.marketplace).findOutputs('SyntheticPurchaseFunctionName'))).toHaveLength(1);
  });

  it('fails the pipeline when the invocation reports a FunctionError', () => {
    const spec = JSON.parse(projectOf(action('Staging', 'PurchaseOnStaging')).Properties['Source'].BuildSpec as string) as {
      phases: { build: { commands: string[] } };
    };
    const script = spec.phases.build.commands.join('\n');
    expect(script).toContain('aws lambda invoke --function-name "$SYNTHETIC_PURCHASE_FUNCTION"');
    expect(script).toContain('--query FunctionError --output text');
    expect(script).toMatch(/if \[ "\$error" != "None" \]; then .*exit 1; fi/);
  });

  it("lets the post step's role invoke the staging stack's functions and nothing else of Lambda", () => {
    const project = projectOf(action('Staging', 'PurchaseOnStaging')).Properties;
    const roleId = (project['ServiceRole'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p: any) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
    ) as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } }[];
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const lambda = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('lambda:')));
    expect(lambda).toHaveLength(1);
    expect(lambda[0]!.Action).toBe('lambda:InvokeFunction');
    const resource = JSON.stringify(stack.resolve(lambda[0]!.Resource));
    expect(resource).toMatch(/:function:Staging-SkillMarket-\*"/);
    // No other stack's functions, and no statement elsewhere in the role reaches Lambda with a wildcard.
    expect(resource).not.toContain('Production');
    for (const s of statements) expect([s.Action].flat()).not.toContain('lambda:*');
  });

  it('waits for a manual approval before anything of production is deployed', () => {
    const production = stages.find((s) => s.Name === 'Production')!.Actions;
    const approval = production.find((a) => a.ActionTypeId.Category === 'Approval');
    expect(approval?.ActionTypeId.Provider).toBe('Manual');
    for (const a of production.filter((x) => x !== approval)) expect(a.RunOrder).toBeGreaterThan(approval!.RunOrder);
    expect(action('Production', /\.Deploy$/).Configuration['StackName']).toBe('Production-SkillMarket');
    // Nowhere else: staging deploys without waiting.
    expect(stages.filter((s) => s.Actions.some((a) => a.ActionTypeId.Category === 'Approval')).map((s) => s.Name)).toEqual(['Production']);
  });

  it('gives each stage its stage and network, and its own settings, before its stacks are made', () => {
    const staging = stack.staging.marketplace;
    const production = stack.production.marketplace;
    expect([staging.node.tryGetContext('stage'), staging.node.tryGetContext('network')]).toEqual(['staging', 'base-sepolia']);
    expect([production.node.tryGetContext('stage'), production.node.tryGetContext('network')]).toEqual(['production', 'base']);
    const treasuries = (s: typeof staging) =>
      new Set(
        Object.values(
          Template.fromStack(s).findResources('AWS::Lambda::Function', {
            Properties: { Description: Match.stringLikeRegexp('^skill-market ') },
          }),
        ).map((f: any) => f.Properties.Environment.Variables.TREASURY_ADDRESS as string),
      );
    expect(treasuries(staging)).toEqual(new Set([STAGING_TREASURY]));
    expect(treasuries(production)).toEqual(new Set([PRODUCTION_TREASURY]));
    Template.fromStack(staging).hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'staging@example.com' });
    Template.fromStack(production).resourceCountIs('AWS::SNS::Subscription', 0);
    Template.fromStack(production).hasResourceProperties('AWS::Budgets::Budget', { Budget: { BudgetLimit: { Amount: 200 } } });
  });
});

describe('the release pipeline with a region outside us-east-1 and production in another account', () => {
  it("deploys each stage's us-east-1 edge stack before its marketplace, each in its own account, with keys that account can use", () => {
    const app = newApp({ ...PIPELINE, production: { treasury: PRODUCTION_TREASURY, account: '222222222222' } });
    const release = new PipelineStack(app, 'Release', {
      env: { account: '111111111111', region: 'eu-west-1' },
      config: readPipelineConfig(app, '111111111111'),
    });
    const t = Template.fromStack(release);
    const [pipeline] = Object.values(t.findResources('AWS::CodePipeline::Pipeline')) as { Properties: { Stages: PipelineStage[] } }[];
    const deploys = (name: string) =>
      pipeline!.Properties.Stages.find((s) => s.Name === name)!
        .Actions.filter((a) => a.Name.endsWith('.Deploy'))
        .sort((a, b) => a.RunOrder - b.RunOrder)
        .map((a) => [
          a.Name,
          (a as Action & { Region?: string }).Region ?? 'eu-west-1',
          JSON.stringify((a as Action & { RoleArn?: unknown }).RoleArn).match(/iam::(\d{12})/)?.[1],
        ]);
    expect(deploys('Staging')).toEqual([
      ['SkillMarketEdge.Deploy', 'us-east-1', '111111111111'],
      ['SkillMarket.Deploy', 'eu-west-1', '111111111111'],
    ]);
    expect(deploys('Production')).toEqual([
      ['SkillMarketEdge.Deploy', 'us-east-1', '222222222222'],
      ['SkillMarket.Deploy', 'eu-west-1', '222222222222'],
    ]);
    // Another account reads the artifacts: they are encrypted with a key of the pipeline's, which rotates.
    t.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    // The purchase may invoke staging's functions in staging's account and region.
    const invoke = Object.values(t.findResources('AWS::IAM::Policy'))
      .flatMap((p: any) => p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[])
      .filter((st) => st.Action === 'lambda:InvokeFunction');
    expect(invoke.map((st) => JSON.stringify(st.Resource))).toEqual([
      expect.stringContaining(':lambda:eu-west-1:111111111111:function:Staging-SkillMarket-*'),
    ]);
  }, 120_000);
});

describe('the pipeline settings', () => {
  const problems = (context: Record<string, unknown>, account?: string): string => {
    try {
      readPipelineConfig(newApp(context), account);
    } catch (e) {
      if (e instanceof DeployConfigError) return e.message;
      throw e;
    }
    return '';
  };

  it('is off unless asked for, so a plain synth is the app it always was', () => {
    expect(wantsPipeline(newApp({}))).toBe(false);
    expect(wantsPipeline(newApp({ pipelineRepo: 'acme/skill-market' }))).toBe(false);
    expect(wantsPipeline(newApp({ pipeline: 'on' }))).toBe(true);
  });

  it('reads the source, a default branch, and each stage as an object or JSON', () => {
    const config = readPipelineConfig(newApp(PIPELINE), undefined);
    expect(config).toMatchObject({ repo: 'acme/skill-market', branch: 'main', connectionArn: CONNECTION });
    expect(config.stages.staging.context).toEqual(PIPELINE.staging);
    expect(config.stages.production.context).toEqual({ treasury: PRODUCTION_TREASURY, monthlyBudgetUsd: 200 });
  });

  it('refuses a missing or malformed source, every problem at once', () => {
    const message = problems({
      ...PIPELINE,
      pipelineRepo: 'skill-market',
      pipelineBranch: 'a b',
      pipelineConnectionArn: 'arn:aws:iam::1:role/x',
    });
    expect(message).toContain('pipelineRepo must be the repository as owner/name');
    expect(message).toContain('pipelineBranch is not a branch name');
    expect(message).toContain('pipelineConnectionArn must be');
    expect(problems({ pipeline: 'on', staging: PIPELINE.staging, production: PIPELINE.production })).toContain('pipelineRepo');
  });

  it('refuses a stage without a treasury (a pipeline passes no parameters), an unknown key, and the keys the pipeline sets', () => {
    expect(problems({ ...PIPELINE, production: {} })).toContain('production.treasury is required');
    // An app-wide treasury serves both stages.
    expect(problems({ ...PIPELINE, production: {}, treasury: PRODUCTION_TREASURY })).toBe('');
    expect(problems({ ...PIPELINE, staging: { ...PIPELINE.staging, tresury: STAGING_TREASURY } })).toContain(
      'staging.tresury is not a setting',
    );
    expect(problems({ ...PIPELINE, staging: { ...PIPELINE.staging, network: 'base' } })).toContain('staging.network: the pipeline sets it');
    expect(problems({ ...PIPELINE, production: '{"treasury":' })).toContain('production must be a JSON object');
    expect(problems({ ...PIPELINE, production: { treasury: PRODUCTION_TREASURY, operatorLegalName: 'X' } })).toContain(
      'production.operatorLegalName is not a setting',
    );
  });

  it('keeps staging in the pipeline account (the purchase invokes it from there); production may be elsewhere', () => {
    expect(problems({ ...PIPELINE, staging: { ...PIPELINE.staging, account: '222222222222' } }, '111111111111')).toContain(
      "staging.account: staging deploys to the pipeline's account",
    );
    expect(
      problems(
        { ...PIPELINE, production: { treasury: PRODUCTION_TREASURY, account: '222222222222', region: 'eu-west-1' } },
        '111111111111',
      ),
    ).toBe('');
    expect(problems({ ...PIPELINE, production: { treasury: PRODUCTION_TREASURY, account: '2222', region: 'Europe' } })).toMatch(
      /production\.account must be 12 digits[\s\S]*production\.region is not an AWS region/,
    );
  });

  it('refuses a stage setting the marketplace refuses, when the stage is made', () => {
    expect(() => pipelineStack(newApp({ ...PIPELINE, staging: { treasury: '0x1234' } }))).toThrow(DeployConfigError);
  });
});
