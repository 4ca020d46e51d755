import { AssetHashType, DockerImage, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { DATA_ENV, type DataDir } from '../../lambdas/contract/env';
import type { Domain } from '../../lambdas/contract/routes';
import { bundleLambda } from './lambda-bundle';

const root = fileURLToPath(new URL('../..', import.meta.url));

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

  constructor(scope: Construct, id: string, props: DomainFunctionProps) {
    super(scope, id);
    const data = props.data ?? ['catalog'];
    const dataEnv = Object.fromEntries(data.map((d) => [DATA_ENV[d], `/var/task/${d}`]));
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const entry = `${root}lambdas/${props.domain}/${props.entryFile ?? 'handler.ts'}`;
    this.fn = new LambdaFunction(this, 'Fn', {
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
      memorySize: props.memorySize ?? 512,
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
  }
}
