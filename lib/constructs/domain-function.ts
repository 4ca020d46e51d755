import { AssetHashType, DockerImage, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Alias,
  Architecture,
  Code,
  Function as LambdaFunction,
  Runtime,
  Tracing,
  type IFunction,
  type IVersion,
} from 'aws-cdk-lib/aws-lambda';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { DATA_ENV, type DataDir } from '../../lambdas/contract/env';
import { DEFAULT_MEMORY_MB } from '../../lambdas/contract/infra';
import type { Domain } from '../../lambdas/contract/routes';
import { bundleLambda } from './lambda-bundle';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The construct id of one of a domain's parts, e.g. `PaymentsFunction`: part of the deployed logical ids, so never renamed. */
export const domainPartId = (domain: Domain, part: string): string => domain.charAt(0).toUpperCase() + domain.slice(1) + part;

export interface DomainFunctionProps {
  domain: Domain;
  /** Entry file under lambdas/<domain>/ (default handler.ts), e.g. a Step Functions task. */
  entryFile?: string;
  environment: Record<string, string>;
  /** Default 15 s: every route answers well inside API Gateway's 30 s integration limit. */
  timeout?: Duration;
  memorySize?: number;
  logRetention?: RetentionDays;
  /** Built data directories (under dist/) copied into the bundle; every domain reads the catalog. */
  data?: readonly DataDir[];
  /**
   * Who invokes it, which decides whether a failed event can be lost: API Gateway and Step
   * Functions call synchronously and see the error (the caller retries, the state machine's retry
   * policy and its failed-execution alarm), so a dead-letter queue would never receive anything;
   * EventBridge Scheduler invokes asynchronously, so a scheduled task gets one. A stream fold is
   * invoked synchronously by its event source mappings, whose own on-failure destination keeps a
   * batch that ran out of retries (stream-folds.ts). CloudFormation runs a custom resource's
   * function at deploy and waits for its answer, so a failure fails the deploy. Default `api`.
   */
  invokedBy?: 'api' | 'state-machine' | 'schedule' | 'secrets-manager' | 'stream' | 'cloudformation';
  /** Lambda's retries of a failed scheduled run (default 2); 0 for a run whose every attempt costs money (the synthetic purchase). */
  asyncRetries?: number;
}

/**
 * One domain's Lambda with the project's defaults: Node.js 22 on ARM64, an ESM bundle with code
 * splitting built by local esbuild at synth (no Docker; see lambda-bundle.ts for why each
 * option), source maps enabled at run time, an explicit log group with retention, and
 * Powertools settings. Entry: `lambdas/<domain>/handler.ts`.
 *
 * Not NodejsFunction: it bundles to one file (`--outfile`), and esbuild splits code only into a
 * directory, which is what lets a cold start leave the adapters for the first request.
 */
export class DomainFunction extends Construct {
  readonly fn: LambdaFunction;
  /**
   * `live`: what API Gateway, the state machine and the scheduler invoke. Each release publishes a
   * version, and CodeDeploy shifts this alias to it (the stack's release groups), rolling back on alarm.
   */
  readonly alias: Alias;
  /** The alias as the IFunction API Gateway, Step Functions and the scheduler take. */
  readonly live: IFunction;
  /** Any unhandled error (a crash, a timeout, a bundle that cannot start) of the live alias in a minute. */
  readonly errors: Alarm;
  readonly domain: Domain;
  /** Where an asynchronous invocation lands after Lambda's retries fail (scheduled tasks only): its on-failure destination. */
  readonly deadLetterQueue: Queue | undefined;

  constructor(scope: Construct, id: string, props: DomainFunctionProps) {
    super(scope, id);
    this.domain = props.domain;
    const data = props.data ?? ['catalog'];
    const dataEnv = Object.fromEntries(data.map((d) => [DATA_ENV[d], `/var/task/${d}`]));
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const entry = `${root}lambdas/${props.domain}/${props.entryFile ?? 'handler.ts'}`;
    // Its own role: writing to its own log group (not AWSLambdaBasicExecutionRole, which allows every
    // log group in the account); the stack adds the grants its manifest asks for.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `skill-market ${props.domain} function`,
    });
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
    const invokedBy = props.invokedBy ?? 'api';
    this.deadLetterQueue =
      invokedBy === 'schedule' ? new Queue(this, 'DeadLetters', { retentionPeriod: Duration.days(14), enforceSSL: true }) : undefined;
    this.fn = new LambdaFunction(this, 'Fn', {
      role,
      // X-Ray: a request's path through API Gateway and the function, with each AWS SDK call (DynamoDB,
      // KMS, Secrets Manager, Step Functions) as a subsegment (Powertools Tracer, lambdas/platform/tracer.ts).
      // Calls to the RPC providers and Stripe are not traced: their URLs may carry a key.
      tracing: Tracing.ACTIVE,
      // A scheduled run that still fails after Lambda's two retries is kept, with its error, for an alarm and a look.
      ...(this.deadLetterQueue ? { onFailure: new SqsDestination(this.deadLetterQueue), retryAttempts: props.asyncRetries ?? 2 } : {}),
      code: Code.fromAsset(root, {
        // Hashed by what is built, as NodejsFunction does: the project directory is not fingerprinted.
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never used: local esbuild always bundles (tryBundle returns true or throws).
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
          // CDK reuses a bundle across assets whose bundling options are equal; the entry and the data make them differ.
          environment: { LAMBDA_ENTRY: entry.slice(root.length), LAMBDA_DATA: data.join(',') },
          local: {
            tryBundle: (outputDir: string) => {
              bundleLambda(
                entry,
                outputDir,
                data.map((d) => ({ dir: d, from: `${root}dist/${d}` })),
              );
              return true;
            },
          },
        },
      }),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
      timeout: props.timeout ?? Duration.seconds(15),
      logGroup,
      description: `skill-market ${props.domain} ${props.entryFile ? props.entryFile.replace(/\.ts$/, '') : 'routes'}`,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: `skill-market-${props.domain}`,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...dataEnv,
        ...props.environment,
      },
    });

    // aws-cdk-lib's Version and Alias declare `role?: IRole` where IVersion and IFunction have
    // `role: IRole | undefined`, which only exactOptionalPropertyTypes notices.
    this.alias = new Alias(this, 'Live', { aliasName: 'live', version: this.fn.currentVersion as unknown as IVersion });
    this.live = this.alias as unknown as IFunction;
    // The handlers turn every fault into a 503 answer, so Errors counts only what escapes them.
    this.errors = new Alarm(this, 'Errors', {
      alarmDescription: `skill-market ${props.domain} ${props.entryFile ?? 'routes'}: an unhandled error (crash, timeout or a bundle that cannot start) in the last minute.`,
      metric: this.alias.metricErrors({ period: Duration.minutes(1), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions (resource "*" is the only form).',
    });
    for (const id of ['AwsSolutions-L1', 'Serverless-LambdaLatestVersion']) {
      Validations.of(this.fn).acknowledge({
        id,
        reason:
          'nodejs22.x on ARM64 is the runtime the bundles target (esbuild node22) and every cold-start and warm-path figure in docs/PERFORMANCE.md was measured for; moving to a newer runtime is a release of its own, measured the same way.',
      });
    }
    if (!this.deadLetterQueue) {
      const reasons: Record<'api' | 'state-machine' | 'secrets-manager' | 'stream' | 'cloudformation', string> = {
        api: 'Invoked synchronously by API Gateway: the caller gets the error (503 with retry: true) and retries; a dead-letter queue or failure destination receives only failed asynchronous invocations, so it would stay empty.',
        'state-machine':
          'Invoked synchronously by the Step Functions confirmation loop: its retry policy handles failures and its failed-execution alarm reports them; a dead-letter queue would stay empty.',
        'secrets-manager':
          "Run by Secrets Manager for each rotation step: a failed step fails the rotation on the secret (the current key stays), and the function's Errors alarm reports it; a dead-letter queue would hold nothing to replay.",
        stream:
          "Invoked synchronously by its DynamoDB Streams event source mappings: a failed batch is retried by the mapping, and one that runs out of retries goes to the mapping's on-failure destination (an SQS queue an alarm watches); a function's dead-letter queue or asynchronous failure destination receives only failed asynchronous invocations, so it would stay empty.",
        cloudformation:
          "Run by CloudFormation as a custom resource during a deploy, which waits for the function's answer at the request's response URL: a failure is answered FAILED and fails (and rolls back) the deploy, and a run that cannot answer fails it at CloudFormation's timeout; the deploy's failure is the record, and a queued event would be a deploy that no longer waits.",
      };
      // No queue means a synchronous caller (the branch above gives a scheduled task one).
      const why = reasons[invokedBy as keyof typeof reasons];
      for (const id of ['Serverless-LambdaDLQ', 'Serverless-LambdaAsyncFailureDestination'])
        Validations.of(this.fn).acknowledge({ id, reason: why });
    } else {
      Validations.of(this.fn).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'Failed asynchronous runs go to an on-failure destination (the SQS queue DeadLetters), which records the error with the event; a dead-letter queue as well would hold the same events twice.',
      });
      for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']) {
        Validations.of(this.deadLetterQueue).acknowledge({
          id,
          reason:
            'This queue is itself where the scheduled task’s failed runs end (its on-failure destination); an alarm watches its depth.',
        });
      }
    }
  }
}
