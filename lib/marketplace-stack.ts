import { Stack, type CfnOutput, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { readOperationsConfig, syntheticPurchaseScheduled } from './deploy-config';
import { activeManifests } from './domain-infra';
import { addApiFunctions, addHttpApi } from './constructs/api';
import { addBackups } from './constructs/backups';
import { createBuckets } from './constructs/buckets';
import { createCdn, publishBaseUrl } from './constructs/cdn';
import { addConfirmationLoop } from './constructs/confirmation';
import { deploySettings } from './constructs/deploy-settings';
import type { DomainFunction } from './constructs/domain-function';
import { FinanceExports } from './constructs/finance-exports';
import { provisioner } from './constructs/grants';
import { Operations } from './constructs/operations';
import { addOutputs } from './constructs/outputs';
import { addReleases } from './constructs/releases';
import { addLicenseKeyRotation, addOriginSecretRotation } from './constructs/rotations';
import { addScheduledTasks, addSyntheticPurchase } from './constructs/scheduled-tasks';
import { createSecrets } from './constructs/secrets';
import { addStreamFolds } from './constructs/stream-folds';
import { deploySite } from './constructs/site-deployment';
import { createTables } from './constructs/tables';
import { addVersionsPublisher, createVersionsBucket } from './constructs/versions-bucket';

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

/**
 * The stack, composed of its parts (lib/constructs/). Each part creates its resources in this
 * stack's own scope, so a resource's logical id stays its construct id, as deployed: a changed id
 * replaces the resource, and the retained tables, secrets and keys hold money records and keys
 * that cannot be made again (test/cdk/stack.test.ts pins them). Keep the order of the calls too:
 * it is the order of the template's resources and of the statements in each role's policy.
 */
export class MarketplaceStack extends Stack {
  /** The synthetic purchase's function: the pipeline invokes it after a deploy (FunctionError means the money path is broken). */
  public readonly syntheticPurchaseFunctionName: CfnOutput;

  constructor(scope: Construct, id: string, props?: MarketplaceStackProps) {
    super(scope, id, props);
    const { config, edge, env, baseUrlParameter, versionRetentionDays } = deploySettings(this, props?.webAclArn);
    const tables = createTables(this, env);
    // Resources exist only if some domain's manifest asks for them.
    const manifests = activeManifests();
    const secrets = createSecrets(this, manifests.needs, config.relayerKeys);
    // The buckets: access logs, the site, and the write-once pack versions (before the functions that read them).
    const buckets = createBuckets(this);
    const versionsBucket = manifests.all.some((m) => m.infra.packVersions || m.infra.versionsPublisher)
      ? createVersionsBucket(this, { accessLogs: buckets.accessLogs, retentionDays: versionRetentionDays })
      : undefined;
    const provision = provisioner({
      baseUrlParameterArn: config.publicBaseUrl ? undefined : baseUrlParameter.arn,
      tables,
      secrets,
      versionsBucket,
    });
    const domains = { manifests: manifests.all, environment: env };

    // The functions that are not behind the API: the confirmation loop's task, the rotation of the
    // license key, the scheduled tasks, the folds of table streams into figures; then one function
    // per domain that has routes, and the API.
    const confirmation = addConfirmationLoop(this, {
      ...domains,
      startsConfirmations: manifests.needs('startsConfirmations'),
      provision,
      reorgWindowSeconds: config.reorgWindowSeconds,
    });
    const licenseKeyRotation = addLicenseKeyRotation(this, { ...domains, licenseSecret: secrets.licenseSecret });
    const scheduled = addScheduledTasks(this, {
      ...domains,
      provision,
      relayerKeys: secrets.relayerKeys,
      escrowOperatorKey: secrets.escrowOperatorKey,
    });
    const synthetic = addSyntheticPurchase(this, { ...domains, provision, scheduled: syntheticPurchaseScheduled(this, config.stage) });
    if (!synthetic) throw new Error('No domain manifest declares the synthetic purchase (lambdas/payments/infra.ts)');
    const folds = addStreamFolds(this, { ...domains, provision, tables });
    const functions = addApiFunctions(this, {
      ...domains,
      provision,
      originSecret: secrets.originSecret,
      confirmation: confirmation?.machine,
    });
    const api = addHttpApi(this, { functions, throttle: edge.apiThrottle });

    // The edge: CloudFront in front of the buckets and the API, the origin secret's rotation
    // (it writes the distribution's origin header), and the site's files; then the versions' publisher.
    const cdn = createCdn(this, {
      api,
      originSecret: secrets.originSecret,
      siteBucket: buckets.site,
      accessLogs: buckets.accessLogs,
      edge,
      webAclArn: props?.webAclArn,
    });
    const originSecretRotation = addOriginSecretRotation(this, {
      ...domains,
      originSecret: secrets.originSecret,
      distribution: cdn.distribution,
      webAclArn: cdn.webAclArn,
    });
    deploySite(this, { siteBucket: buckets.site, distribution: cdn.distribution });
    const versionsPublisher = versionsBucket ? addVersionsPublisher(this, { ...domains, bucket: versionsBucket }) : undefined;
    if (!config.publicBaseUrl) publishBaseUrl(this, baseUrlParameter.name, cdn.distribution);

    // Running it: alarms and the dashboard, releases that roll back on them, finance's exports.
    const operations = new Operations(this, 'Operations', {
      api,
      confirmation: confirmation?.machine,
      dashboardName: `skill-market-${this.stackName}`,
      reach: readOperationsConfig(this),
      signers: manifests.all.filter((m) => m.infra.relaysPayments || m.infra.signsWithServiceKey).map((m) => m.domain),
      failedRuns: scheduled.failedRuns,
      reconcilers: manifests.all
        .filter((m) => m.infra.scheduledTask?.schedules.some((s) => s.input['task'] === 'reconcile'))
        .map((m) => m.domain),
      folds,
      relayer: secrets.relayerKeys[0]
        ? {
            domains: manifests.all.filter((m) => m.infra.relaysPayments).map((m) => m.domain),
            revertBudgetWei: config.relayerRevertBudgetWei,
            minBalanceWei: config.relayerMinBalanceWei,
            watchedBy: manifests.all.find((m) => m.infra.scheduledTask?.readsRelayerAddress)?.domain,
          }
        : undefined,
      syntheticPurchase: synthetic.scheduled ? { domain: synthetic.task.domain, everyMinutes: synthetic.everyMinutes } : undefined,
    });
    const released: DomainFunction[] = [
      ...(confirmation ? [confirmation.task] : []),
      ...(licenseKeyRotation ? [licenseKeyRotation] : []),
      ...scheduled.tasks,
      synthetic.task,
      ...folds.map((f) => f.fn),
      ...functions.values(),
      originSecretRotation,
      ...(versionsPublisher ? [versionsPublisher] : []),
    ];
    addReleases(this, { functions: released, apiFunctions: new Set(functions.values()), operations });
    const finance = new FinanceExports(this, 'Finance', { tables, accessLogs: buckets.accessLogs });
    addBackups(this, tables);

    const outputs = addOutputs(this, {
      publicBaseUrl: config.publicBaseUrl,
      cdn,
      api,
      siteBucket: buckets.site,
      secrets,
      tables,
      operations,
      finance,
      syntheticPurchase: synthetic,
    });
    this.syntheticPurchaseFunctionName = outputs.syntheticPurchaseFunctionName;
  }
}
