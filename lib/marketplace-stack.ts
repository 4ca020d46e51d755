import {
  Annotations,
  CfnOutput,
  CfnParameter,
  CfnRule,
  Duration,
  Fn,
  RemovalPolicy,
  SecretValue,
  Aws,
  Stack,
  type StackProps,
  Token,
  Validations,
} from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import {
  Choice,
  Condition,
  DefinitionBody,
  Fail,
  LogLevel,
  StateMachine,
  StateMachineType,
  Succeed,
  Wait,
  WaitTime,
  JsonPath,
  TaskInput,
  type IChainable,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke as ScheduledLambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { FinanceExports } from './constructs/finance-exports';
import { Operations } from './constructs/operations';
import { CONFIRMATION_RETRY_DELAYS_SECONDS, FINALITY_RETRY_DELAYS_SECONDS } from '../lambdas/contract/confirmation-policy';
import { type CfnStage, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
  AccessLevel,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnAlias } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { ADDRESS } from '../lambdas/contract/chain';
import { configToEnv, SECRET_SETTINGS, SETTINGS } from '../lambdas/contract/settings';
import { ROUTES, FALLBACK_DOMAIN, activeDomains, type Domain } from '../lambdas/contract/routes';
import { INFRA_ENV } from '../lambdas/contract/env';
import { links } from '../lambdas/contract/links';
import type { DomainInfra } from '../lambdas/contract/infra';
import { TABLES, type TableDefinition } from '../lambdas/contract/tables';
import { DomainFunction } from './constructs/domain-function';
import { infraOf } from './domain-infra';
import { DeployConfigError, readDeployConfig, readEdgeConfig } from './deploy-config';
import { EdgeWebAcl } from './constructs/edge-web-acl';
import { PUBLIC_DIR } from '../lambdas/contract/data-dirs';
import { CACHE_RULES, INDEX_REWRITE_FUNCTION } from '../lambdas/contract/static-assets';
import { API_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from '../lambdas/contract/security-headers';
import { securityHeadersPolicy } from './constructs/security-headers-policy';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_FUNCTION } from '../lambdas/contract/edge-identity';

/**
 * The marketplace: API Gateway HTTP API with one Lambda per domain (routes from the route
 * table), DynamoDB tables (from the table definitions), S3 + CloudFront for the catalog
 * and static pages. CloudFront is the single base URL: `/api/*` and `/.well-known/*` go
 * to the API uncached, everything else to S3.
 */
export interface MarketplaceStackProps extends StackProps {
  /**
   * The web ACL of a stack in us-east-1 (bin/app.ts creates one when this stack is elsewhere);
   * context `webAclArn` (an existing ACL) comes first; without either the ACL is created here.
   */
  webAclArn?: string;
}

export class MarketplaceStack extends Stack {
  constructor(scope: Construct, id: string, props?: MarketplaceStackProps) {
    super(scope, id, props);
    const config = readDeployConfig(this);
    const edge = readEdgeConfig(this);
    // Refused before anything is built (or bundled): the web ACL this stack would create is valid only in us-east-1.
    if (!edge.webAclArn && !props?.webAclArn && !Token.isUnresolved(this.region) && this.region !== 'us-east-1')
      throw new DeployConfigError(
        `A CloudFront web ACL must be created in us-east-1, and this stack is in ${this.region}: deploy through bin/app.ts (it adds a us-east-1 edge stack), or pass -c webAclArn=<an existing CloudFront-scope web ACL>.`,
      );
    // A custom domain is the advertised base URL unless one is configured outright.
    if (!config.publicBaseUrl && edge.domainName) config.publicBaseUrl = `https://${edge.domainName}`;
    const env = configToEnv(config);

    // The treasury may be decided at deploy time; CloudFormation then refuses a malformed or banned one.
    if (!config.treasury) {
      const treasury = new CfnParameter(this, 'TreasuryAddress', {
        type: 'String',
        allowedPattern: ADDRESS.source,
        constraintDescription: 'must be 0x followed by 40 hex digits',
        description: SETTINGS.treasury.description,
      });
      env[SETTINGS.treasury.env] = treasury.valueAsString;
      if (config.legacyTreasury) {
        new CfnRule(this, 'TreasuryIsNotLegacy', {
          assertions: [
            {
              assert: Fn.conditionNot(Fn.conditionEquals(Fn.ref(treasury.logicalId), config.legacyTreasury)),
              assertDescription: `TreasuryAddress must not be the banned legacy treasury ${config.legacyTreasury}`,
            },
          ],
        });
      }
    }

    // The advertised base URL: a configured custom domain, or the CloudFront domain written to
    // SSM once the distribution exists. Functions get only the parameter's name, so there is no
    // dependency cycle, and no request header can choose the URL the service advertises or signs.
    const baseUrlParameterName = `/skill-market/${this.stackName}/public-base-url`;
    if (!config.publicBaseUrl) env[INFRA_ENV.publicBaseUrlParameter] = baseUrlParameterName;
    const baseUrlParameterArn = this.formatArn({ service: 'ssm', resource: 'parameter', resourceName: baseUrlParameterName.slice(1) });

    const tables = new Map<string, Table>();
    for (const def of TABLES) {
      const table = createTable(this, def);
      tables.set(def.logicalName, table);
      env[def.env] = table.tableName;
    }

    // Resources exist only if some domain's manifest asks for them.
    const manifests = activeDomains().map((domain) => ({ domain, infra: infraOf(domain) }));
    const needs = (
      flag: 'licenseKey' | 'startsConfirmations' | 'signsAgentCard' | 'stripeKeys' | 'relaysPayments' | 'readsChain',
    ): boolean => manifests.some((m) => m.infra[flag] === true);

    // Signs license tokens; retained, because deleting it would void every license already issued.
    const licenseSecret = needs('licenseKey')
      ? new Secret(this, 'LicenseSecret', {
          description: 'HS256 key for skill-market license tokens',
          generateSecretString: { passwordLength: 64, excludePunctuation: true },
          removalPolicy: RemovalPolicy.RETAIN,
        })
      : undefined;

    // The origin secret CloudFront adds to every API request (an origin custom header, by dynamic
    // reference: the template never holds the value); every API function refuses a request without
    // it, so the execute-api endpoint serves nobody who goes around CloudFront and its web ACL.
    // Rotated below once the distribution exists; nothing outlives the stack that would need it.
    const originSecret = new Secret(this, 'OriginSecret', {
      description: `Origin secret CloudFront sends the skill-market API in ${ORIGIN_VERIFY_HEADER}; rotated by the origin-secret rotation function`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });

    /**
     * A retained secret with blank fields that the operator fills after deploy (no value ever passes
     * through the template), made only when a manifest needs it. Its keys are issued by an outside
     * provider, so no rotation Lambda can make one: `whyNoRotation` acknowledges SMG4.
     */
    const operatorSecret = (id: string, description: string, fields: readonly string[], whyNoRotation: string): Secret => {
      const secret = new Secret(this, id, {
        description,
        secretObjectValue: Object.fromEntries(fields.map((f) => [f, SecretValue.unsafePlainText('')])),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: whyNoRotation });
      return secret;
    };

    // The Stripe keys (docs/CHECKOUT.md); until both are set, card checkout answers 503 CHECKOUT_NOT_CONFIGURED.
    const stripeSecret = needs('stripeKeys')
      ? operatorSecret(
          'StripeSecret',
          `Stripe keys for skill-market card checkout: JSON fields ${SECRET_SETTINGS.stripeSecretKey.env} and ${SECRET_SETTINGS.stripeWebhookSecret.env}`,
          [SECRET_SETTINGS.stripeSecretKey.env, SECRET_SETTINGS.stripeWebhookSecret.env],
          'Stripe issues and rolls these keys (Dashboard → API keys, webhook signing secret); a rotation Lambda cannot create a Stripe key. The operator rolls them at Stripe and writes them here (docs/CHECKOUT.md); functions read the secret at cold start.',
        )
      : undefined;

    // JSON-RPC URLs that carry a provider's API key (docs/OPERATIONS.md), tried before the rpcUrls
    // setting, which must hold no key (lib/deploy-config.ts refuses one). Until it is filled the public providers answer.
    const rpcSecret = needs('readsChain')
      ? operatorSecret(
          'RpcSecret',
          `JSON-RPC providers for chain 8453 with their API keys: JSON field ${SETTINGS.rpcUrls.env}, comma-separated URLs tried before the rpcUrls setting`,
          [SETTINGS.rpcUrls.env],
          'The RPC provider issues and rolls its API keys (Alchemy, Infura, QuickNode dashboards); a rotation Lambda cannot create one. The operator rolls the key at the provider and writes the new URL here (docs/OPERATIONS.md); warm functions read it again within 5 minutes.',
        )
      : undefined;

    /** A retained KMS signing key whose private half never leaves KMS, made only when a manifest needs it. */
    const signingKey = (id: string, keySpec: KeySpec, description: string): Key | undefined =>
      new Key(this, id, { description, keySpec, keyUsage: KeyUsage.SIGN_VERIFY, removalPolicy: RemovalPolicy.RETAIN });
    // Signs the A2A agent card.
    const cardKey = needs('signsAgentCard')
      ? signingKey('AgentCardKey', KeySpec.ECC_NIST_P256, 'ES256 key that signs the skill-market A2A agent card')
      : undefined;
    // The x402 relayer: submits signed authorizations and pays their gas; fund its address
    // (GET /api/ready shows it and its balance) with ETH on Base.
    const relayerKey = needs('relaysPayments')
      ? signingKey(
          'RelayerKey',
          KeySpec.ECC_SECG_P256K1,
          'secp256k1 key of the skill-market x402 relayer (submits EIP-3009 authorizations on Base)',
        )
      : undefined;
    /** A function that signs with `key`: its id in `envName`, and kms:Sign and kms:GetPublicKey on it only. */
    const signsWith = (fn: DomainFunction, key: Key, envName: string): void => {
      fn.fn.addEnvironment(envName, key.keyArn);
      fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Sign', 'kms:GetPublicKey'], resources: [key.keyArn] }));
    };

    /** A function that reads `secret`: its ARN in `envName`, and read access to it only. */
    const readsSecret = (fn: DomainFunction, secret: Secret, envName: string): void => {
      fn.fn.addEnvironment(envName, secret.secretArn);
      secret.grantRead(fn.fn);
    };

    /** The environment and grants a manifest asks for, applied to one function. */
    const provision = (fn: DomainFunction, infra: DomainInfra): void => {
      if (!config.publicBaseUrl)
        fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [baseUrlParameterArn] }));
      for (const { table, access } of infra.tables) {
        const t = tables.get(table);
        if (!t) throw new Error(`A domain manifest names an unknown table: ${table}`);
        if (access === 'describe')
          fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:DescribeTable'], resources: [t.tableArn] }));
        else
          fn.fn.addToRolePolicy(
            tableAccess(
              t,
              TABLES.find((d) => d.logicalName === table)!,
              access,
            ),
          );
      }
      if (infra.describesAllTables) {
        const others = [...tables].filter(([name]) => !infra.tables.some((t) => t.table === name)).map(([, t]) => t.tableArn);
        if (others.length > 0) fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:DescribeTable'], resources: others }));
      }
      if (infra.licenseKey && licenseSecret) readsSecret(fn, licenseSecret, INFRA_ENV.licenseSecretArn);
      if (infra.readsChain && rpcSecret) readsSecret(fn, rpcSecret, INFRA_ENV.rpcSecretArn);
      if (infra.stripeKeys && stripeSecret) readsSecret(fn, stripeSecret, INFRA_ENV.stripeSecretArn);
      if (infra.signsAgentCard && cardKey) signsWith(fn, cardKey, INFRA_ENV.agentCardKmsKeyId);
      if (infra.relaysPayments && relayerKey) signsWith(fn, relayerKey, INFRA_ENV.relayerKmsKeyId);
    };

    /** Every function, for the release groups below. */
    const released: DomainFunction[] = [];

    // The confirmation loop: a Step Functions execution per early transfer re-runs the same settle task,
    // a function of the domain whose manifest owns it, with that domain's grants.
    const owner = manifests.find((m) => m.infra.confirmationTask !== undefined);
    let confirmation: StateMachine | undefined;
    if (owner && needs('startsConfirmations')) {
      // The task re-verifies and claims; it never unlocks, so it carries the catalog but not the sealed packs.
      const task = new DomainFunction(this, 'ConfirmationTask', {
        domain: owner.domain,
        entryFile: owner.infra.confirmationTask!,
        environment: env,
        invokedBy: 'state-machine',
      });
      provision(task, owner.infra);
      released.push(task);
      confirmation = confirmationStateMachine(this, task, config.reorgWindowSeconds);
    }

    // The license key rotates every few months (Secrets Manager runs the owner domain's rotation
    // entry); tokens name their key, and the previous key still verifies (docs/OPERATIONS.md).
    const rotationOwner = manifests.find((m) => m.infra.licenseKeyRotation !== undefined);
    if (licenseSecret && rotationOwner) {
      const rotation = rotationOwner.infra.licenseKeyRotation!;
      const fn = new DomainFunction(this, 'LicenseKeyRotation', {
        domain: rotationOwner.domain,
        entryFile: rotation.entry,
        environment: env,
        invokedBy: 'secrets-manager',
      });
      licenseSecret.addRotationSchedule('Rotation', { rotationLambda: fn.live, automaticallyAfter: Duration.days(rotation.everyDays) });
      released.push(fn);
    }

    // Scheduled tasks (the tally fold and reconcile): EventBridge Scheduler invokes a function of the
    // domain that owns the task, with that domain's grants; the scheduler's role may invoke only it.
    const failedRuns: IQueue[] = [];
    for (const { domain, infra } of manifests) {
      if (!infra.scheduledTask) continue;
      const task = new DomainFunction(this, `${capitalize(domain)}ScheduledTask`, {
        domain,
        entryFile: infra.scheduledTask.entry,
        environment: env,
        // A reconcile reads every record: give it Lambda's whole 15 minutes and room for the recount.
        timeout: Duration.minutes(15),
        memorySize: 1024,
        invokedBy: 'schedule',
      });
      if (task.deadLetterQueue) failedRuns.push(task.deadLetterQueue);
      released.push(task);
      // Folding and reconciling tallies never settles a payment: no relayer key for them.
      provision(task, { ...infra, relaysPayments: false });
      const schedulerRole = new Role(this, `${capitalize(domain)}SchedulerRole`, {
        assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
        description: `EventBridge Scheduler: invokes the ${domain} scheduled task only`,
      });
      for (const run of infra.scheduledTask.schedules) {
        new Schedule(this, run.id, {
          description: run.description,
          schedule: ScheduleExpression.rate(Duration.minutes(run.everyMinutes)),
          target: new ScheduledLambdaInvoke(task.live, {
            input: ScheduleTargetInput.fromObject(run.input),
            retryAttempts: 2,
            role: schedulerRole,
          }),
        });
      }
      Validations.of(schedulerRole).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(task.alias.node.defaultChild as CfnAlias)}>:*]`,
        reason: "lambda:InvokeFunction on this one function's live alias and its qualifiers (`:*`); nothing else.",
      });
    }

    const functions = new Map<Domain, DomainFunction>();
    for (const { domain, infra } of manifests) {
      const fn = new DomainFunction(this, `${capitalize(domain)}Function`, { domain, environment: env, data: infra.data ?? ['catalog'] });
      provision(fn, infra);
      // Every API function serves only requests that carry the origin secret: its ARN, and read access to it alone.
      readsSecret(fn, originSecret, INFRA_ENV.originSecretArn);
      if (infra.startsConfirmations && confirmation) {
        fn.fn.addEnvironment(INFRA_ENV.confirmationStateMachineArn, confirmation.stateMachineArn);
        confirmation.grantStartExecution(fn.fn);
      }
      functions.set(domain, fn);
      released.push(fn);
    }

    const integrations = new Map([...functions].map(([d, f]) => [d, new HttpLambdaIntegration(`${capitalize(d)}Integration`, f.live)]));
    const api = new HttpApi(this, 'Api', {
      description: 'Agent skill marketplace API',
      // Unknown paths, wrong methods and CORS preflights reach the fallback domain's JSON answers.
      defaultIntegration: integrations.get(FALLBACK_DOMAIN)!,
    });
    for (const route of ROUTES) {
      api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: integrations.get(route.domain)! });
    }
    // Every route and the catch-all are public by design (docs/SECURITY.md): authorization is in the functions.
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "A public marketplace: agents buy without accounts. A pack is authorized by an on-chain transfer the function verifies, re-access by a license token (JWS) or the paying wallet's signature, every write by an EIP-712 signature; per-caller rate limits run in the functions and stage throttling in API Gateway.",
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
    const stage = api.defaultStage!.node.defaultChild as CfnStage;
    // The stage throttles every route (-c apiRateLimit, -c apiBurstLimit): the spec allows abuse to be throttled at the edge.
    stage.defaultRouteSettings = { throttlingRateLimit: edge.apiThrottle.rateLimit, throttlingBurstLimit: edge.apiThrottle.burstLimit };
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        routeKey: '$context.routeKey',
        status: '$context.status',
        latencyMs: '$context.responseLatency',
        integrationError: '$context.integrationErrorMessage',
        ip: '$context.identity.sourceIp',
        time: '$context.requestTime',
      }),
    };

    // Access logs of the edge and the buckets: CloudFront's standard logs and S3 server access logs,
    // 90 days, kept when the stack goes (they are the record of who fetched what).
    const accessLogBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // CloudFront's standard logging writes with an ACL, so this bucket keeps ACLs (owner preferred).
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    }) as unknown as IBucket;
    Validations.of(accessLogBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket: logging its own access would log the log writes.',
    });

    // aws-cdk-lib's Bucket declares `isWebsite?: boolean` where IBucket has `isWebsite: boolean`,
    // which only exactOptionalPropertyTypes notices; the object is an IBucket at run time.
    const siteBucket = new Bucket(this, 'SiteBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
      serverAccessLogsBucket: accessLogBucket,
      serverAccessLogsPrefix: 'site-bucket/',
    }) as unknown as IBucket;

    const indexRewrite = new CloudFrontFunction(this, 'IndexRewrite', {
      code: FunctionCode.fromInline(INDEX_REWRITE_FUNCTION),
      comment: 'Serve index.html for directory URLs such as /recover/',
    });

    // The security headers of every answer, the ones the local edge sends (lambdas/contract/security-headers.ts).
    const pageHeaders = securityHeadersPolicy(
      this,
      'PageHeaders',
      PAGE_SECURITY_HEADERS,
      'Storefront pages and files: CSP, framing, nosniff, referrer, HSTS',
    );
    // The API answers JSON only: a CSP that loads nothing, so no answer can be framed or run as a document.
    const apiHeaders = securityHeadersPolicy(
      this,
      'ApiHeaders',
      API_SECURITY_HEADERS,
      'API answers: CSP, framing, nosniff, referrer, HSTS',
    );
    // The caller's address for the API: CloudFront's own CloudFront-Viewer-Address would need a
    // policy that forwards Host (API Gateway then refuses its execute-api domain) or names every
    // header (10 at most), so a viewer-request function writes the viewer's IP under our header,
    // overwriting any the viewer sent (lambdas/contract/edge-identity.ts).
    const viewerAddress = new CloudFrontFunction(this, 'ViewerAddress', {
      code: FunctionCode.fromInline(VIEWER_ADDRESS_FUNCTION),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Tell the API who the viewer is: its IP in the viewer-address header, whatever the viewer sent',
    });
    const apiOrigin = new HttpOrigin(Fn.select(2, Fn.split('/', api.apiEndpoint)), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      // The origin secret, resolved by CloudFormation from Secrets Manager at deploy; the rotation
      // function changes it in place afterwards. It overwrites a viewer's header of the same name.
      customHeaders: { [ORIGIN_VERIFY_HEADER]: originSecret.secretValue.unsafeUnwrap() },
    });
    const apiBehavior: BehaviorOptions = {
      origin: apiOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // Every viewer header but Host (the API reads more than a whitelist's 10), and with it the
      // viewer-address header the function above writes.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: apiHeaders,
      functionAssociations: [{ function: viewerAddress, eventType: FunctionEventType.VIEWER_REQUEST }],
    };
    // The web ACL: an existing one (context webAclArn), one from the us-east-1 edge stack, or one
    // created here, which CloudFront accepts only in us-east-1 (a rule stops a deploy elsewhere).
    let webAclArn = edge.webAclArn ?? props?.webAclArn;
    if (!webAclArn) {
      webAclArn = new EdgeWebAcl(this, 'Waf').arn;
      if (Token.isUnresolved(this.region)) {
        new CfnRule(this, 'WebAclNeedsUsEast1', {
          assertions: [
            {
              assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
              assertDescription:
                'This template creates its CloudFront web ACL, which AWS allows only in us-east-1. Deploy it there, synthesize with a region (CDK_DEFAULT_REGION) so bin/app.ts adds a us-east-1 edge stack, or pass -c webAclArn=<an existing CloudFront-scope web ACL>.',
            },
          ],
        });
      }
    }

    const customDomain =
      edge.domainName && edge.certificateArn ? { name: edge.domainName, certificateArn: edge.certificateArn } : undefined;
    const distribution = new Distribution(this, 'Cdn', {
      comment: 'Agent skill marketplace',
      webAclId: webAclArn,
      ...(customDomain
        ? {
            domainNames: [customDomain.name],
            certificate: Certificate.fromCertificateArn(this, 'Certificate', customDomain.certificateArn),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        // LIST lets S3 answer 404 (not 403) for a missing key, e.g. an unknown skill's outline.
        origin: S3BucketOrigin.withOriginAccessControl(siteBucket, { originAccessLevels: [AccessLevel.READ, AccessLevel.LIST] }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: pageHeaders,
        functionAssociations: [{ function: indexRewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: { '/api/*': apiBehavior, '/.well-known/*': apiBehavior },
      enableLogging: true,
      logBucket: accessLogBucket,
      logFilePrefix: 'cloudfront/',
    });
    if (!customDomain) {
      Validations.of(distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Served on the default *.cloudfront.net certificate, whose TLS policy CloudFront fixes (TLSv1 and up) and no setting changes; with -c domainName and -c certificateArn the distribution uses TLSv1.2_2021 at least.',
      });
    }
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'A marketplace for agents anywhere: no country is refused at the edge (sanctions screening, if needed, belongs to checkout).',
    });

    // The origin secret rotates: Secrets Manager runs the owner domain's rotation entry, which puts
    // the new value in this distribution's origin header; it may update only this distribution,
    // and read and write only this secret (the rotation schedule's grant).
    const originRotationOwner = manifests.find((m) => m.infra.originSecretRotation !== undefined);
    if (!originRotationOwner) throw new Error('No domain manifest owns the origin secret rotation (originSecretRotation)');
    const originRotation = originRotationOwner.infra.originSecretRotation!;
    const originRotationFn = new DomainFunction(this, 'OriginSecretRotation', {
      domain: originRotationOwner.domain,
      entryFile: originRotation.entry,
      environment: { ...env, [INFRA_ENV.originDistributionId]: distribution.distributionId },
      // setSecret waits ORIGIN_SECRET_REFRESH_SECONDS before it updates the distribution.
      timeout: Duration.minutes(1),
      invokedBy: 'secrets-manager',
    });
    originRotationFn.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['cloudfront:GetDistributionConfig', 'cloudfront:UpdateDistribution'],
        resources: [distribution.distributionArn],
      }),
    );
    // CloudFront checks that whoever sends a configuration naming a web ACL may read that ACL.
    originRotationFn.fn.addToRolePolicy(new PolicyStatement({ actions: ['wafv2:GetWebACL'], resources: [webAclArn] }));
    originSecret.addRotationSchedule('Rotation', {
      rotationLambda: originRotationFn.live,
      automaticallyAfter: Duration.days(originRotation.everyDays),
    });
    released.push(originRotationFn);

    // The LIST warning asks for a defaultRootObject so "/" never lists the bucket; it is set above.
    Annotations.of(distribution).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront-origins:listBucketSecurityRisk',
      'defaultRootObject is index.html',
    );

    // One deployment per cache rule; each excludes what an earlier rule claimed, so pruning never crosses them.
    const claimed: string[] = [];
    CACHE_RULES.forEach((rule, i) => {
      new BucketDeployment(this, `Static${i}`, {
        sources: [Source.asset(PUBLIC_DIR)],
        destinationBucket: siteBucket,
        exclude: rule.include === '*' ? claimed : ['*'],
        include: rule.include === '*' ? [] : [rule.include],
        cacheControl: [CacheControl.fromString(rule.cacheControl)],
        prune: !rule.keepOld,
        distribution,
        distributionPaths: [rule.include === '*' ? '/*' : `/${rule.include}`],
      });
      claimed.push(rule.include);
    });
    // BucketDeployment's handler: CDK's own singleton function, run by CloudFormation at deploy only.
    const deployer = this.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (deployer) {
      const cdkOwn = "CDK's BucketDeployment handler (a singleton CDK creates and updates), run only by CloudFormation during a deploy; ";
      for (const [id, why] of [
        [
          'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          'its log permissions come from the managed basic execution policy CDK attaches.',
        ],
        ['AwsSolutions-IAM5[Action::s3:GetObject*]', 'it reads the asset objects CDK uploaded.'],
        ['AwsSolutions-IAM5[Action::s3:GetBucket*]', 'it reads the asset and site buckets.'],
        ['AwsSolutions-IAM5[Action::s3:List*]', 'it lists the asset and site buckets to copy and prune.'],
        [
          'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
          'it prunes files a build no longer has (never the hashed assets, whose deployment keeps them).',
        ],
        ['AwsSolutions-IAM5[Action::s3:Abort*]', 'it aborts its own multipart uploads.'],
        [
          // The bootstrap bucket's name holds the account and region: literal when the stack has an environment.
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${Token.isUnresolved(this.account) ? '<AWS::AccountId>' : this.account}-${Token.isUnresolved(this.region) ? '<AWS::Region>' : this.region}/*]`,
          'the asset objects are named by their hash at synth.',
        ],
        [
          `AwsSolutions-IAM5[Resource::<${this.getLogicalId(siteBucket.node.defaultChild as CfnBucket)}.Arn>/*]`,
          'it writes the site files, which are every object of the site bucket.',
        ],
        [
          'AwsSolutions-IAM5[Resource::*]',
          'CloudFront invalidations (cloudfront:CreateInvalidation, GetInvalidation) it issues after a copy take no resource-level permission in its policy.',
        ],
        ['AwsSolutions-L1', 'its runtime is the one CDK chose for it.'],
        ['Serverless-LambdaLatestVersion', 'its runtime is the one CDK chose for it.'],
        ['Serverless-LambdaDLQ', 'CloudFormation invokes it synchronously and fails the deploy on its error.'],
        ['Serverless-LambdaTracing', 'a deploy-time copy has no request to trace.'],
      ] as const) {
        Validations.of(deployer).acknowledge({ id, reason: cdkOwn + why });
      }
    }

    if (!config.publicBaseUrl) {
      new StringParameter(this, 'PublicBaseUrl', {
        parameterName: baseUrlParameterName,
        stringValue: `https://${distribution.distributionDomainName}`,
        description: 'Base URL the marketplace advertises (read by every function at cold start)',
      });
    }

    new CfnOutput(this, 'BaseUrl', {
      value: customDomain ? `https://${customDomain.name}` : `https://${distribution.distributionDomainName}`,
      description: 'The one base URL: catalog, pages and /api/*',
    });
    new CfnOutput(this, 'ApiEndpoint', { value: api.apiEndpoint, description: 'API Gateway endpoint (prefer BaseUrl)' });
    new CfnOutput(this, 'SiteBucketName', { value: siteBucket.bucketName });
    if (rpcSecret) {
      new CfnOutput(this, 'RpcSecretArn', {
        value: rpcSecret.secretArn,
        description: `Put JSON-RPC URLs with API keys here (JSON: ${SETTINGS.rpcUrls.env}, comma-separated); tried before the rpcUrls setting; docs/OPERATIONS.md`,
      });
    }
    if (stripeSecret) {
      new CfnOutput(this, 'StripeSecretArn', {
        value: stripeSecret.secretArn,
        description: `Put the Stripe keys here (JSON: ${SECRET_SETTINGS.stripeSecretKey.env}, ${SECRET_SETTINGS.stripeWebhookSecret.env}); docs/CHECKOUT.md`,
      });
      new CfnOutput(this, 'StripeWebhookUrl', {
        value: links(config.publicBaseUrl ?? `https://${distribution.distributionDomainName}`).stripe_webhook,
        description:
          'Register this endpoint in Stripe (events checkout.session.completed, .async_payment_succeeded, .async_payment_failed, .expired)',
      });
    }
    for (const [name, table] of tables) new CfnOutput(this, `${name}TableName`, { value: table.tableName });

    const operations = new Operations(this, 'Operations', {
      api,
      confirmation,
      dashboardName: `skill-market-${this.stackName}`,
      failedRuns,
      relayer: relayerKey
        ? { domains: manifests.filter((m) => m.infra.relaysPayments).map((m) => m.domain), revertBudgetWei: config.relayerRevertBudgetWei }
        : undefined,
    });
    // Releases: each deploy publishes a version of every changed function, and CodeDeploy shifts its
    // live alias there, 10 % for five minutes, then the rest; the function's unhandled errors or, for
    // API functions, the API's 5xx rate in a minute and its domain's business alarms (transfers
    // refused, RPC failures) roll the alias back by themselves.
    const releases = new LambdaApplication(this, 'Releases');
    const apiFunctions = new Set<DomainFunction>(functions.values());
    const notify = new SnsAction(operations.alarmTopic);
    for (const df of released) {
      df.errors.addAlarmAction(notify);
      const group = new LambdaDeploymentGroup(df, 'Release', {
        application: releases,
        alias: df.alias,
        deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
        alarms: apiFunctions.has(df) ? [df.errors, operations.releaseGuard, ...operations.businessAlarmsFor(df.domain)] : [df.errors],
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      Validations.of(group).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        reason:
          "CodeDeploy's own service role policy for Lambda deployments (shift aliases, read the alarms, invoke hooks): AWS maintains it with the service, limited to functions and aliases.",
      });
    }

    new CfnOutput(this, 'AlarmTopicArn', {
      value: operations.alarmTopic.topicArn,
      description: 'Subscribe to be told when an alarm fires',
    });

    const finance = new FinanceExports(this, 'Finance', { tables, accessLogs: accessLogBucket });
    new CfnOutput(this, 'FinanceExportsBucket', {
      value: finance.bucket.bucketName,
      description: 'Daily DynamoDB exports of the ledger and card sales',
    });
    new CfnOutput(this, 'FinanceAthenaWorkGroup', {
      value: finance.workGroupName,
      description: `Athena workgroup with the revenue-rollup named query over database ${finance.databaseName}`,
    });
  }
}

/**
 * One execution per transfer that needs the chain again, built from the policy constants the
 * local loop also reads. `confirm` (a transfer that came too early): wait 2 s → attempt →
 * pending? wait 4 s → attempt … → unlocked goes on to the finality check, failed ends Refused,
 * and running out of waits fails as NotConfirmedInTime. `finality` (every first claim): wait the
 * reorg window → re-verify → final ends Final, reorged ends Revoked, undecided (providers lagging
 * or down) retries after 30, 60, 120, 240 s, then fails as FinalityUndecided. Operators can alarm
 * on both failures.
 */
function confirmationStateMachine(scope: Construct, task: DomainFunction, reorgWindowSeconds: number): StateMachine {
  const attempt = (id: string, finality: boolean) =>
    new LambdaInvoke(scope, id, {
      lambdaFunction: task.live,
      payloadResponseOnly: true,
      resultPath: '$.result',
      ...(finality
        ? {
            payload: TaskInput.fromObject({
              network: JsonPath.stringAt('$.network'),
              txHash: JsonPath.stringAt('$.txHash'),
              skill: JsonPath.stringAt('$.skill'),
              kind: 'finality',
            }),
          }
        : {}),
    });

  /**
   * wait → attempt → decide, once per delay: a status in `outcomes` ends the loop there, any
   * other waits for the next try; after the last, `giveUp`. State ids end in the try's number.
   */
  const retryLoop = (
    ids: { wait: string; attempt: string; decide: string },
    delays: readonly number[],
    finality: boolean,
    outcomes: readonly [string, IChainable][],
    giveUp: IChainable,
  ): IChainable => {
    let next = giveUp;
    [...delays].reverse().forEach((delay, i) => {
      const n = delays.length - i;
      const tryOnce = attempt(`${ids.attempt}${n}`, finality);
      const decide = new Choice(scope, `${ids.decide}${n}`);
      for (const [status, target] of outcomes) decide.when(Condition.stringEquals('$.result.status', status), target);
      decide.otherwise(next);
      const wait = new Wait(scope, `${ids.wait}${n}`, { time: WaitTime.duration(Duration.seconds(delay)) });
      wait.next(tryOnce);
      tryOnce.next(decide);
      next = wait;
    });
    return next;
  };

  // The finality check, entered from a confirmed claim or directly.
  const finality = retryLoop(
    { wait: 'FinalityWait', attempt: 'FinalityCheck', decide: 'DecideFinality' },
    [reorgWindowSeconds, ...FINALITY_RETRY_DELAYS_SECONDS],
    true,
    [
      ['final', new Succeed(scope, 'Final', { comment: 'The claim is still on chain after the reorg window.' })],
      ['reorged', new Succeed(scope, 'Revoked', { comment: 'A reorganisation dropped the transfer; the claim is marked reorged.' })],
      ['failed', new Succeed(scope, 'NothingToCheck', { comment: 'No confirmed claim of this transfer is on the ledger.' })],
    ],
    new Fail(scope, 'FinalityUndecided', {
      error: 'FinalityUndecided',
      cause: 'The providers could not say whether the claimed transfer is still on chain.',
    }),
  );
  const confirm = retryLoop(
    { wait: 'Wait', attempt: 'Attempt', decide: 'Decide' },
    CONFIRMATION_RETRY_DELAYS_SECONDS,
    false,
    [
      ['unlocked', finality],
      [
        'failed',
        new Succeed(scope, 'Refused', { comment: 'The transfer cannot unlock: wrong, reverted, reorged or claimed by another caller.' }),
      ],
    ],
    new Fail(scope, 'NotConfirmedInTime', {
      error: 'NotConfirmedInTime',
      cause: 'The transfer did not reach the required confirmations within the retry policy.',
    }),
  );
  const start = new Choice(scope, 'Kind').when(Condition.stringEquals('$.kind', 'finality'), finality).otherwise(confirm);

  const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
  const logs = new LogGroup(scope, 'ConfirmationLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
  const machine = new StateMachine(scope, 'Confirmation', {
    comment: 'Re-verifies a transfer that arrived before it had enough confirmations, and every claim once it is past the reorg window',
    definitionBody: DefinitionBody.fromChainable(start),
    stateMachineType: StateMachineType.STANDARD,
    // Every wait of both paths, plus a minute per attempt at most.
    timeout: Duration.seconds(
      sum(CONFIRMATION_RETRY_DELAYS_SECONDS) +
        reorgWindowSeconds +
        sum(FINALITY_RETRY_DELAYS_SECONDS) +
        60 * (CONFIRMATION_RETRY_DELAYS_SECONDS.length + FINALITY_RETRY_DELAYS_SECONDS.length + 1),
    ),
    logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: true },
    tracingEnabled: true,
  });
  Validations.of(machine.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${Stack.of(scope).getLogicalId(task.alias.node.defaultChild as CfnAlias)}>:*]`,
    reason: "lambda:InvokeFunction on the confirmation task's live alias and its qualifiers (`:*`); no other function.",
  });
  Validations.of(machine.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Execution logging and tracing: the CloudWatch Logs delivery actions (logs:CreateLogDelivery and the like) and xray:PutTraceSegments support no resource-level permissions.',
  });
  return machine;
}

const TABLE_READ = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];
const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/**
 * Data access to one table and each of its named indexes: the table's grantReadData and
 * grantReadWriteData allow `<table>/index/*`, every index that may ever exist; this names the
 * ones the contract defines (lambdas/contract/tables.ts), so a new index needs a new grant.
 */
function tableAccess(table: Table, def: TableDefinition, access: 'read' | 'readWrite'): PolicyStatement {
  return new PolicyStatement({
    actions: access === 'read' ? TABLE_READ : [...TABLE_READ, ...TABLE_WRITE],
    resources: [table.tableArn, ...def.indexes.map((i) => `${table.tableArn}/index/${i.name}`)],
  });
}

function createTable(scope: Construct, def: TableDefinition): Table {
  const attr = (k: { name: string; type: 'S' | 'N' }) => ({
    name: k.name,
    type: k.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
  });
  const table = new Table(scope, `${def.logicalName}Table`, {
    partitionKey: attr(def.partitionKey),
    ...(def.sortKey ? { sortKey: attr(def.sortKey) } : {}),
    billingMode: BillingMode.PAY_PER_REQUEST,
    // Point-in-time recovery is what DynamoDB's export to S3 needs: finance reads the rollup from exports.
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    removalPolicy: def.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
  });
  for (const idx of def.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: idx.name,
      partitionKey: attr(idx.partitionKey),
      ...(idx.sortKey ? { sortKey: attr(idx.sortKey) } : {}),
    });
  }
  return table;
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
