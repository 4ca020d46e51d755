import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { DATA_ENV, type DataDir } from '../../lambdas/contract/env';
import type { Domain } from '../../lambdas/contract/routes';

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
 * One domain's Lambda with the project's defaults: Node.js 22 on ARM64, ESM bundle built
 * by local esbuild (no Docker), minified with source maps enabled at run time, an explicit
 * log group with retention, and Powertools settings. Entry: `lambdas/<domain>/handler.ts`.
 */
export class DomainFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: DomainFunctionProps) {
    super(scope, id);
    const data = props.data ?? ['catalog'];
    const dataEnv = Object.fromEntries(data.map((d) => [DATA_ENV[d], `/var/task/${d}`]));
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.fn = new NodejsFunction(this, 'Fn', {
      entry: `${root}lambdas/${props.domain}/${props.entryFile ?? 'handler.ts'}`,
      handler: 'handler',
      projectRoot: root,
      depsLockFilePath: `${root}package-lock.json`,
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
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        mainFields: ['module', 'main'],
        forceDockerBundling: false,
        // The AWS SDK is bundled, not loaded from the runtime's copy: measured with bench/cold.ts, a
        // bundled SDK imports in 0.6 to 0.75 of the time the runtime's separate files take (one
        // file, tree-shaken, no module resolution), and the bundle runs the SDK version we test.
        externalModules: [],
        // Some CommonJS dependencies call require(); an ESM bundle needs it defined.
        banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
        // The catalog build's output travels inside the bundle: read at cold start, no network fetch.
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) => data.map((d) => `cp -R "${inputDir}/dist/${d}" "${outputDir}/${d}"`),
        },
      },
    });
  }
}
