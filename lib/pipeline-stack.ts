import { readFileSync } from 'node:fs';
import { ArnFormat, Duration, Stack, Stage, Validations, type CfnElement, type StackProps, type StageProps } from 'aws-cdk-lib';
import { ComputeType, LinuxBuildImage, Project } from 'aws-cdk-lib/aws-codebuild';
import { PipelineType } from 'aws-cdk-lib/aws-codepipeline';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CodeBuildStep, CodePipeline, CodePipelineSource, ManualApprovalStep, type IFileSetProducer } from 'aws-cdk-lib/pipelines';
import type { Construct, IConstruct } from 'constructs';
import { PIPELINE_CONTEXT_KEYS, PIPELINE_STAGES, type PipelineConfig, type PipelineStageName } from './deploy-config';
import { addMarketplace } from './marketplace-app';
import type { MarketplaceStack } from './marketplace-stack';

/**
 * The build image of the synth step: Debian with Node 20, the project's machine. Debian gives the
 * two things the suite needs beyond npm: Java 17 for DynamoDB Local, and Chromium for the browser
 * tests (test/support/browser.ts looks for /usr/bin/chromium, Debian's; CodeBuild's Ubuntu images
 * carry Java but their Chromium is a snap, which does not run in a container).
 */
export const SYNTH_IMAGE = 'public.ecr.aws/docker/library/node:20-bookworm';
/** What the synth step installs on that image before `npm ci` (then checks that the browser is there). */
export const SYNTH_INSTALL_COMMANDS = [
  'apt-get update -qq',
  'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless chromium',
  'java -version && test -x /usr/bin/chromium',
];
/**
 * The suite takes about 10 minutes on two cores (CI allows it 15); the synth step runs it on
 * four (MEDIUM: 4 vCPU, 7 GB), then `npm ci` and two stages' Lambda bundles around it. Twice the
 * suite's limit leaves room for a slow `npm ci`.
 */
export const SYNTH_TIMEOUT = Duration.minutes(30);
export const SYNTH_COMPUTE = ComputeType.MEDIUM;
/** The post-deploy purchase waits for the function (its own timeout bounds it), not for the CLI's 60 s default. */
const POST_DEPLOY_TIMEOUT = Duration.minutes(15);

/** The CDK CLI the pipeline's own steps (self-update, asset publishing) install: the one the project tests with. */
const CDK_CLI_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies['aws-cdk'];

/** A single-quoted shell word: the synth command passes JSON objects of settings through `sh`. */
const shellWord = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * One stage of the pipeline: what `cdk deploy --all` makes today (lib/marketplace-app.ts), with
 * the stage's own context set before any of its stacks exists (so every stack reads it):
 * `stage` and `network` from PIPELINE_STAGES, then the operator's settings for that stage.
 */
export class MarketplaceStage extends Stage {
  public readonly marketplace: MarketplaceStack;

  constructor(scope: Construct, id: string, props: StageProps & { context: Readonly<Record<string, unknown>> }) {
    super(scope, id, props);
    for (const [key, value] of Object.entries(props.context)) this.node.setContext(key, value);
    this.marketplace = addMarketplace(this, { account: props.env?.account, region: props.env?.region }).marketplace;
  }
}

export interface PipelineStackProps extends StackProps {
  readonly config: PipelineConfig;
}

/**
 * The release pipeline (`-c pipeline=on`, docs/OPERATIONS.md "The pipeline"): the repository's
 * branch through a CodeConnections connection; a synth step that runs `npm ci`, `npm test` and
 * `cdk synth`; the pipeline's update of itself; the assets; Staging (base-sepolia) and a
 * purchase against it; a manual approval; Production (base).
 */
export class PipelineStack extends Stack {
  public readonly pipeline: CodePipeline;
  public readonly staging: MarketplaceStage;
  public readonly production: MarketplaceStage;
  /** What the post-deploy purchase may invoke: the staging stack's functions. */
  private stagingFunctions = '';

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { config } = props;
    const pipelineAccount = props.env?.account;

    // The synth step rebuilds the pipeline from the repository: it gets the pipeline's own
    // context again, so a key given on the first `cdk deploy`'s command line is not lost.
    const repeated = PIPELINE_CONTEXT_KEYS.flatMap((key) => {
      const v: unknown = this.node.tryGetContext(key);
      if (v === undefined || v === null) return [];
      return [`-c ${shellWord(`${key}=${typeof v === 'string' ? v : JSON.stringify(v)}`)}`];
    });
    const crossAccount = config.stages.production.account !== undefined && config.stages.production.account !== pipelineAccount;

    this.pipeline = new CodePipeline(this, 'Pipeline', {
      pipelineType: PipelineType.V2,
      // Production in another account: the artifacts bucket gets a KMS key that account can use.
      crossAccountKeys: crossAccount,
      enableKeyRotation: crossAccount,
      // One CodeBuild project publishes every asset, rather than one project per Lambda bundle.
      publishAssetsInParallel: false,
      ...(CDK_CLI_VERSION ? { cliVersion: CDK_CLI_VERSION } : {}),
      // `as IFileSetProducer`: the library's interface declares `primaryOutput?: FileSet` and its steps a getter of
      // `FileSet | undefined`, which differ only under this project's exactOptionalPropertyTypes.
      synth: new CodeBuildStep('Synth', {
        input: CodePipelineSource.connection(config.repo, config.branch, { connectionArn: config.connectionArn }) as IFileSetProducer,
        installCommands: SYNTH_INSTALL_COMMANDS,
        commands: ['npm ci', 'npm test', ['npx cdk synth -q -c pipeline=on', ...repeated].join(' ')],
        buildEnvironment: { buildImage: LinuxBuildImage.fromDockerRegistry(SYNTH_IMAGE), computeType: SYNTH_COMPUTE },
        timeout: SYNTH_TIMEOUT,
      }) as IFileSetProducer,
    });

    this.staging = this.stage('staging', config, props.env);
    this.pipeline.addStage(this.staging, { post: [this.postDeployPurchase(this.staging, config.stages.staging.region)] });
    this.production = this.stage('production', config, props.env);
    this.pipeline.addStage(this.production, {
      pre: [
        new ManualApprovalStep('PromoteToProduction', {
          comment: 'Staging deployed and bought the canary on base-sepolia. Approve to deploy the same build to production (base).',
        }),
      ],
    });
    // Built now rather than at synth, so the acknowledgments below can name what it made.
    this.pipeline.buildPipeline();
    this.acknowledgeFindings();
  }

  /**
   * cdk-nag's findings on what CDK Pipelines makes (test/cdk/nag.test.ts), each acknowledged
   * by the exact finding it is, with why. The post step's Lambda grant is acknowledged where it
   * is made (postDeployPurchase).
   */
  private acknowledgeFindings(): void {
    const ack = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });
    const logicalId = (c: IConstruct) => this.getLogicalId(c.node.defaultChild as CfnElement);
    const bucket = this.pipeline.pipeline.artifactBucket;
    ack(
      bucket,
      'AwsSolutions-S1',
      "The pipeline's artifact store (source archives, cdk.out): only the pipeline's own roles read and write it, and CloudTrail records those calls; server access logs would add a log of the pipeline copying its own files.",
    );
    const bucketGrant =
      "CDK Pipelines' grant to read (or, for the steps that write artifacts, read and write) the objects of the pipeline's own artifact bucket: the wildcards are S3's action groups and the bucket's keys, on that one bucket.";
    for (const action of ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'])
      ack(this.pipeline, `AwsSolutions-IAM5[Action::${action}]`, bucketGrant);
    ack(this.pipeline, `AwsSolutions-IAM5[Resource::<${logicalId(bucket)}.Arn>/*]`, bucketGrant);

    const projects = this.pipeline.node.findAll().filter((c): c is Project => c instanceof Project);
    for (const project of projects) {
      const name = logicalId(project);
      const own =
        "CodeBuild names a build's log stream and test reports only when the build runs: the wildcard stays under this project's own log group and report-group prefix.";
      ack(
        project,
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/codebuild/<${name}>:*]`,
        own,
      );
      ack(
        project,
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codebuild:<AWS::Region>:<AWS::AccountId>:report-group/<${name}>-*]`,
        own,
      );
      ack(
        project,
        'AwsSolutions-CB4',
        "The build's artifacts are the pipeline's, encrypted at rest in its artifact bucket with the AWS managed key (SSE-KMS); a customer managed key per project adds a monthly cost and protects nothing more, as no other account reads them.",
      );
    }
    ack(
      this.pipeline.synthProject,
      'AwsSolutions-CB5',
      'The synth step runs the whole test suite, which needs Java 17 (DynamoDB Local) and Chromium (the browser tests): the official Node 20 image on Debian (from ECR Public) has both from apt; the AWS images are Ubuntu, whose Chromium is a snap that does not run in a container.',
    );

    const selfUpdate = this.node.findChild('Pipeline').node.findChild('UpdatePipeline');
    ack(
      selfUpdate,
      'AwsSolutions-IAM5[Resource::arn:*:iam::<AWS::AccountId>:role/*]',
      "The pipeline's update of itself runs `cdk deploy`, which assumes the CDK bootstrap roles: the grant is conditioned on their bootstrap tag (iam:ResourceTag/aws-cdk:bootstrap-role), whose names the bootstrap chose.",
    );
    ack(
      selfUpdate,
      'AwsSolutions-IAM5[Resource::*]',
      "`cdk deploy` reads the bootstrap stack (cloudformation:DescribeStacks) and lists its bucket (s3:ListBucket) before it assumes the bootstrap roles; CDK Pipelines grants both on any resource, as the bootstrap's names are the account's.",
    );
    ack(
      this.pipeline,
      `AwsSolutions-IAM5[Resource::${this.nagForm(this.stagingFunctions)}]`,
      "The post-deploy purchase invokes the staging stack's synthetic purchase function, whose name CloudFormation generates at deploy (the step reads it from the stack's output): lambda:InvokeFunction only, on the functions whose names start with the staging stack's, in its account and region.",
    );
    const assets = this.node.findChild('Pipeline').node.findChild('Assets');
    const assetsWhy =
      "The asset publishing role (CDK Pipelines) is shared by the asset projects, which it starts and watches (codebuild:StartBuild, BatchGetBuilds, StopBuild on any project) and whose logs and reports it writes under CodeBuild's own prefixes; it publishes only through the bootstrap's file-publishing role.";
    ack(assets, 'AwsSolutions-IAM5[Resource::*]', assetsWhy);
    ack(
      assets,
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/codebuild/*]',
      assetsWhy,
    );
    ack(assets, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codebuild:<AWS::Region>:<AWS::AccountId>:report-group/*]', assetsWhy);
  }

  private stage(name: PipelineStageName, config: PipelineConfig, pipelineEnv: StackProps['env']): MarketplaceStage {
    const { id, stage, network } = PIPELINE_STAGES[name];
    const { context, account, region } = config.stages[name];
    // Where the stage deploys: its own account and region if given, else the pipeline's (when known at synth).
    const where = { account: account ?? pipelineEnv?.account, region: region ?? pipelineEnv?.region };
    return new MarketplaceStage(this, id, {
      env: { ...(where.account ? { account: where.account } : {}), ...(where.region ? { region: where.region } : {}) },
      context: { stage, network, ...context },
    });
  }

  /** A value as cdk-nag prints it in a finding: a reference as `<LogicalId>`, an attribute as `<LogicalId.Attr>`. */
  private nagForm(value: string): string {
    const resolved = this.resolve(value) as string | { 'Fn::Join': [string, unknown[]] };
    if (typeof resolved === 'string') return resolved;
    return resolved['Fn::Join'][1]
      .map((p) => {
        if (typeof p === 'string') return p;
        const ref = p as { Ref?: string; 'Fn::GetAtt'?: string[] };
        return ref.Ref !== undefined ? `<${ref.Ref}>` : `<${(ref['Fn::GetAtt'] ?? []).join('.')}>`;
      })
      .join(resolved['Fn::Join'][0]);
  }

  /**
   * After the staging deploy: invoke the staging stack's synthetic purchase (it buys the canary
   * on base-sepolia and checks the seal and the ledger row) and fail the pipeline when it throws.
   * `aws lambda invoke` exits 0 even then: the invocation's `FunctionError` says so. The step's
   * role may invoke the staging stack's functions only (their generated names start with the
   * stack's name), in the staging stack's account and region.
   */
  private postDeployPurchase(staging: MarketplaceStage, region: string | undefined): CodeBuildStep {
    const stack = staging.marketplace;
    const functions = this.formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: `${stack.stackName}-*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      ...(region ? { region } : {}),
    });
    this.stagingFunctions = functions;
    return new CodeBuildStep('PurchaseOnStaging', {
      envFromCfnOutputs: { SYNTHETIC_PURCHASE_FUNCTION: stack.syntheticPurchaseFunctionName },
      buildEnvironment: { buildImage: LinuxBuildImage.STANDARD_7_0 },
      timeout: POST_DEPLOY_TIMEOUT,
      rolePolicyStatements: [new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [functions] })],
      commands: [
        [
          `error=$(aws lambda invoke --function-name "$SYNTHETIC_PURCHASE_FUNCTION"${region ? ` --region ${region}` : ''} --cli-read-timeout 0 --query FunctionError --output text result.json)`,
          'cat result.json; echo',
          'if [ "$error" != "None" ]; then echo "The synthetic purchase failed on staging ($error): production is not deployed."; exit 1; fi',
        ].join('\n'),
      ],
    });
  }
}
