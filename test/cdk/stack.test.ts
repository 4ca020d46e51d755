import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIGURES_CACHE_SECONDS, ROUTES, routeKey } from '../../lambdas/contract/routes';
import { PROVENANCE_TABLE, TABLES } from '../../lambdas/contract/tables';
import {
  EXPORT_SCHEDULE_CRON,
  EXPORTED_TABLES,
  FINANCE_QUERIES,
  FINANCE_TRANSACTIONS_SQL,
  NET_ROLLUP_SQL,
  RELAYER_COST_SQL,
  REVENUE_ROLLUP_SQL,
} from '../../lambdas/contract/finance-export';
import { METRIC_NAMESPACE, METRICS } from '../../lambdas/contract/metrics';
import { FIVE_XX_RATE_PERCENT, RELEASE_REFUSAL_PERCENT } from '../../lib/constructs/operations';
import {
  CONFIRMATION_RETRY_DELAYS_SECONDS,
  ESCROW_EXPIRY_RETRY_DELAYS_SECONDS,
  FINALITY_RETRY_DELAYS_SECONDS,
} from '../../lambdas/contract/confirmation-policy';
import { carriesKey, DeployConfigError, MONTHLY_BUDGET_DEFAULT_USD, readOperatorConfig } from '../../lib/deploy-config';
import { BACKUP_RETENTION } from '../../lib/constructs/backups';
import { OPERATOR_SETTINGS } from '../../lambdas/contract/operator';
import { SETTINGS } from '../../lambdas/contract/settings';
import { AUTH_CAPTURE_DEPLOYMENTS } from '../../lambdas/contract/networks';
import { renderOperatorPages } from '../../catalog/storefront/operator-pages';
import { MarketplaceStack } from '../../lib/marketplace-stack';
import { addMarketplace } from '../../lib/marketplace-app';
import { WAF_RATE_LIMIT_PER_5_MIN } from '../../lib/constructs/edge-web-acl';
import {
  LICENSE_KEY_ROTATION_DAYS,
  ORIGIN_SECRET_ROTATION_DAYS,
  RELAYER_WATCH_EVERY_MINUTES,
  SYNTHETIC_PURCHASE_EVERY_MINUTES,
} from '../../lambdas/contract/schedules';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_FUNCTION, VIEWER_ADDRESS_HEADER } from '../../lambdas/contract/edge-identity';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { runInNewContext } from 'node:vm';
import { CACHE_RULES } from '../../lambdas/contract/static-assets';
import { API_SECURITY_HEADERS, HSTS_MAX_AGE_SECONDS, PAGE_SECURITY_HEADERS } from '../../lambdas/contract/security-headers';

const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const LEGACY = '0xBaD000000000000000000000000000000000DeAD';

const synth = (context: Record<string, unknown>): Template => {
  const app = new App({ context });
  return Template.fromStack(new MarketplaceStack(app, 'Test'));
};
/** A template only, for tests that read nothing of the Lambda bundles (the bundle smoke test builds those). */
const synthTemplate = (context: Record<string, string>): Template => synth({ 'aws:cdk:bundling-stacks': [], ...context });

let template: Template;
// Bundles every function with esbuild: 60-90 s alone on two cores, past 120 s when the machine is
// shared (measured 115 s for `cdk synth` at load 11), so the limit leaves room for that.
beforeAll(() => {
  template = synth({ treasury: TREASURY, legacyTreasury: LEGACY });
}, 300_000);

const domainFunctions = () =>
  Object.values(
    template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^skill-market ') } }),
  ) as {
    Properties: Record<string, any>;
  }[];

describe('MarketplaceStack', () => {
  it('has an API Gateway route for every route in the table, plus the JSON catch-all', () => {
    const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r: any) => r.Properties.RouteKey);
    for (const route of ROUTES) expect(keys).toContain(routeKey(route));
    expect(keys).toContain('$default');
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', { PayloadFormatVersion: '2.0' });
  });

  it('runs every domain function on nodejs22.x ARM64 with source maps and its own log group', () => {
    const fns = domainFunctions();
    expect(fns.length).toBeGreaterThan(0);
    for (const fn of fns) {
      expect(fn.Properties['Runtime']).toBe('nodejs22.x');
      expect(fn.Properties['Architectures']).toEqual(['arm64']);
      expect(fn.Properties['Environment'].Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(fn.Properties['Environment'].Variables.TREASURY_ADDRESS).toBe(TREASURY);
      expect(fn.Properties['LoggingConfig'].LogGroup).toBeDefined();
    }
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('creates every table on demand with point-in-time recovery, and retains the ledger', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', TABLES.length);
    for (const def of TABLES) {
      const tables = Object.entries(template.findResources('AWS::DynamoDB::Table')).filter(([id]) =>
        id.startsWith(`${def.logicalName}Table`),
      );
      expect(tables, def.logicalName).toHaveLength(1);
      const table = tables[0]![1] as any;
      expect(table.Properties.KeySchema).toEqual([
        { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
        ...('sortKey' in def ? [{ AttributeName: def.sortKey.name, KeyType: 'RANGE' }] : []),
      ]);
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(table.DeletionPolicy).toBe(def.retain ? 'Retain' : 'Delete');
      // A table of money facts cannot be deleted by an API call either; the others can.
      expect(table.Properties.DeletionProtectionEnabled).toBe(def.retain);
      expect(table.Properties.GlobalSecondaryIndexes?.map((i: any) => i.IndexName) ?? []).toEqual(def.indexes.map((i) => i.name));
    }
  });

  it("streams the ledger's and the card sales' changes with both images, and no other table's", () => {
    const streams = Object.fromEntries(
      Object.entries(template.findResources('AWS::DynamoDB::Table')).map(([id, t]: [string, any]) => [
        id.replace(/Table[0-9A-F]{8}$/, ''),
        t.Properties.StreamSpecification,
      ]),
    );
    expect(streams['Ledger']).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(streams['CardSales']).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    for (const def of TABLES.filter((d) => !d.stream)) expect(streams[def.logicalName], def.logicalName).toBeUndefined();
  });

  it('gives the ledger four indexes, each copying only what its reads use; every index is keyed and copies as its definition says', () => {
    const tableOf = (logicalName: string): any =>
      Object.entries(template.findResources('AWS::DynamoDB::Table')).find(([id]) => id.startsWith(`${logicalName}Table`))![1];
    const projections = Object.fromEntries(
      (tableOf('Ledger').Properties.GlobalSecondaryIndexes as any[]).map((i) => [i.IndexName, i.Projection]),
    );
    const listFields = ['txHash', 'network', 'kind', 'status', 'amount', 'asset', 'assetContract', 'payer', 'blockNumber', 'confirmations'];
    expect(projections).toEqual({
      recent: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...listFields, 'skill'] },
      bySkill: { ProjectionType: 'INCLUDE', NonKeyAttributes: listFields },
      byPayer: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status'] },
      owned: { ProjectionType: 'KEYS_ONLY' },
    });
    // Every table's indexes, in CloudFormation's terms: the keys and what each copies.
    for (const def of TABLES) {
      for (const idx of def.indexes) {
        const deployed = (tableOf(def.logicalName).Properties.GlobalSecondaryIndexes as any[]).find((i) => i.IndexName === idx.name);
        const where = `${def.logicalName} ${idx.name}`;
        expect(deployed.KeySchema, where).toEqual([
          { AttributeName: idx.partitionKey.name, KeyType: 'HASH' },
          ...(idx.sortKey ? [{ AttributeName: idx.sortKey.name, KeyType: 'RANGE' }] : []),
        ]);
        expect(deployed.Projection, where).toEqual(
          idx.projection.type === 'INCLUDE'
            ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...idx.projection.attributes] }
            : { ProjectionType: idx.projection.type },
        );
      }
    }
  });

  it('keeps the logical id each table, secret, key and bucket is deployed with', () => {
    // A changed logical id (a renamed construct, or one moved into another scope) makes CloudFormation
    // replace the resource: a retained table, secret or key is orphaned with its records, licenses or
    // relayer address, and its replacement starts empty. A new resource is added here; changing an id
    // is a migration of its data, never a refactor.
    const stateful = [
      'AWS::DynamoDB::Table',
      'AWS::SecretsManager::Secret',
      'AWS::KMS::Key',
      'AWS::S3::Bucket',
      'AWS::Backup::BackupVault',
    ];
    const resources = Object.entries(template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>);
    const found = Object.fromEntries(
      resources.filter(([, r]) => stateful.includes(r.Type)).map(([id, r]) => [id, `${r.Type} ${r.DeletionPolicy ?? 'Delete'}`]),
    );
    expect(found).toEqual({
      LedgerTable38A58B60: 'AWS::DynamoDB::Table Retain',
      CardSalesTable258E30D1: 'AWS::DynamoDB::Table Retain',
      TalliesTable15CF41D6: 'AWS::DynamoDB::Table Retain',
      SettlementsTable26D9E83A: 'AWS::DynamoDB::Table Retain',
      RefundsTable1C9DB411: 'AWS::DynamoDB::Table Retain',
      AccessTable13A21DD9: 'AWS::DynamoDB::Table Retain',
      CheckoutTable02A02C64: 'AWS::DynamoDB::Table Retain',
      IntentsTableBE3A67FE: 'AWS::DynamoDB::Table Retain',
      NoncesTableEF27B597: 'AWS::DynamoDB::Table Delete',
      A2ATasksTable366A5229: 'AWS::DynamoDB::Table Delete',
      RelayerLeasesTable7C265B6B: 'AWS::DynamoDB::Table Delete',
      ProvenanceTableFDB8FB9F: 'AWS::DynamoDB::Table Delete',
      LicenseSecretBF18429E: 'AWS::SecretsManager::Secret Retain',
      StripeSecret80A38A68: 'AWS::SecretsManager::Secret Retain',
      RpcSecret2AB20147: 'AWS::SecretsManager::Secret Retain',
      SyntheticPurchaseSecret938B329F: 'AWS::SecretsManager::Secret Retain',
      OriginSecret5DDC59F1: 'AWS::SecretsManager::Secret Delete',
      AgentCardKeyADA4BD08: 'AWS::KMS::Key Retain',
      RelayerKey4F9E34D9: 'AWS::KMS::Key Retain',
      RelayerKey299449076: 'AWS::KMS::Key Retain',
      RelayerKey3837F5AD8: 'AWS::KMS::Key Retain',
      RelayerKey48E02DED4: 'AWS::KMS::Key Retain',
      EscrowOperatorKeyCCF3F2BA: 'AWS::KMS::Key Retain',
      AccessLogs8B620ECA: 'AWS::S3::Bucket Retain',
      FinanceBucketACF20168: 'AWS::S3::Bucket Retain',
      SiteBucket397A1860: 'AWS::S3::Bucket Delete',
      PackVersions1A0D7CEF: 'AWS::S3::Bucket Retain',
      MoneyTablesVault10AE803C: 'AWS::Backup::BackupVault Retain',
    });
  });

  it('backs up every retained table daily and monthly with AWS Backup, into a retained vault', () => {
    const plans = Object.values(template.findResources('AWS::Backup::BackupPlan')) as any[];
    expect(plans).toHaveLength(1);
    const rules = plans[0].Properties.BackupPlan.BackupPlanRule as any[];
    expect(rules.map((r) => [r.RuleName, r.Lifecycle.DeleteAfterDays])).toEqual([
      ['Daily', BACKUP_RETENTION.daily.toDays()],
      ['Monthly', BACKUP_RETENTION.monthly.toDays()],
    ]);
    const selections = Object.values(template.findResources('AWS::Backup::BackupSelection')) as any[];
    expect(selections).toHaveLength(1);
    const selected = JSON.stringify(selections[0].Properties.BackupSelection.Resources);
    const tables = Object.keys(template.findResources('AWS::DynamoDB::Table'));
    for (const def of TABLES) {
      const id = tables.find((t) => t.startsWith(`${def.logicalName}Table`))!;
      expect(selected.includes(`"${id}"`), def.logicalName).toBe(def.retain);
    }
  });

  it('has the alarm topic reach a person: an email subscription when alarmEmail is set, and a monthly AWS Budgets cost budget', () => {
    expect(Object.keys(template.findResources('AWS::SNS::Subscription'))).toHaveLength(0);
    template.hasResourceProperties('AWS::Budgets::Budget', {
      Budget: { BudgetType: 'COST', TimeUnit: 'MONTHLY', BudgetLimit: { Amount: MONTHLY_BUDGET_DEFAULT_USD, Unit: 'USD' } },
      NotificationsWithSubscribers: [
        Match.objectLike({ Notification: Match.objectLike({ NotificationType: 'ACTUAL', Threshold: 80 }) }),
        Match.objectLike({ Notification: Match.objectLike({ NotificationType: 'FORECASTED', Threshold: 100 }) }),
      ],
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'budgets.amazonaws.com' }, Action: 'sns:Publish' })]),
      }),
    });
    const reached = synthTemplate({ treasury: TREASURY, alarmEmail: 'ops@example.com', monthlyBudgetUsd: '120' });
    reached.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    reached.hasResourceProperties('AWS::Budgets::Budget', { Budget: Match.objectLike({ BudgetLimit: { Amount: 120, Unit: 'USD' } }) });
    expect(() => synthTemplate({ treasury: TREASURY, alarmEmail: 'ops at example' })).toThrow(/alarmEmail is not an email address/);
    expect(() => synthTemplate({ treasury: TREASURY, monthlyBudgetUsd: '0' })).toThrow(/monthlyBudgetUsd must be a whole number/);
  });

  it('keeps the bucket private and SSL-only, reached through CloudFront origin access control', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
  });

  it('deploys the site once per cache rule, keeping the hashed assets of earlier builds', () => {
    const deployments = Object.values(template.findResources('Custom::CDKBucketDeployment')).map((d: any) => d.Properties);
    expect(deployments).toHaveLength(CACHE_RULES.length);
    for (const rule of CACHE_RULES) {
      const d = deployments.find((p) => p.SystemMetadata?.['cache-control'] === rule.cacheControl);
      expect(d, rule.include).toBeDefined();
      expect(d.Prune, rule.include).toBe(!rule.keepOld);
    }
    expect(CACHE_RULES.find((r) => r.include === 'assets/*')).toMatchObject({
      cacheControl: expect.stringContaining('immutable'),
      keepOld: true,
    });
  });

  it('sends /api/* and /.well-known/* to the API, cached only as long as an answer says (figures: seconds), keyed on the query and A2A-Version', () => {
    const [dist] = Object.values(template.findResources('AWS::CloudFront::Distribution')) as any[];
    const behaviors = dist.Properties.DistributionConfig.CacheBehaviors as any[];
    expect(behaviors.map((b) => b.PathPattern).sort()).toEqual(['/.well-known/*', '/api/*']);
    const policies = template.findResources('AWS::CloudFront::CachePolicy');
    for (const b of behaviors) {
      expect(b.AllowedMethods).toContain('POST');
      expect(b.ViewerProtocolPolicy).toBe('redirect-to-https');
      const policy = policies[b.CachePolicyId.Ref]!.Properties.CachePolicyConfig;
      // Nothing is kept without the API's say-so, and nothing longer than the figures' few seconds.
      expect(policy).toMatchObject({ DefaultTTL: 0, MinTTL: 0, MaxTTL: FIGURES_CACHE_SECONDS });
      expect(policy.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
        QueryStringsConfig: { QueryStringBehavior: 'all' },
        HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['A2A-Version'] },
        CookiesConfig: { CookieBehavior: 'none' },
      });
    }
  });

  it('refuses a malformed treasury at synth', () => {
    expect(() => synth({ treasury: '0x1234' })).toThrow(DeployConfigError);
    expect(() => synth({ treasury: '0x1234' })).toThrow(/treasury .* not a valid address/);
  });

  it('refuses a treasury equal to the legacy treasury at synth', () => {
    expect(() => synth({ treasury: LEGACY.toLowerCase(), legacyTreasury: LEGACY })).toThrow(/banned legacy treasury/);
  });

  it('without a treasury, asks CloudFormation for one and forbids the legacy address', () => {
    const t = synthTemplate({ legacyTreasury: LEGACY });
    t.hasParameter('TreasuryAddress', { Type: 'String', AllowedPattern: '^0x[0-9a-fA-F]{40}$' });
    const rules = t.toJSON().Rules as Record<string, any>;
    expect(JSON.stringify(rules)).toContain(LEGACY);
  }, 120_000);
});

describe('operator settings: the terms, privacy, refund and contact pages', () => {
  const OPERATOR = {
    operatorLegalName: 'Zebra Trading GmbH',
    operatorEmail: 'help@zebra.example.com',
    operatorPostalAddress: 'Musterstraße 7, 10115 Berlin, Germany',
    operatorJurisdiction: 'Germany',
    operatorRefundDays: '30',
    operatorSupportHours: 'Monday to Friday, 09:00 to 17:00 CET',
  };
  const keys = Object.values(OPERATOR_SETTINGS).map((s) => s.context);

  it('without them, synthesizes (CI has none) a template CloudFormation refuses to deploy, naming every context key to set', () => {
    const rule = (template.toJSON().Rules as Record<string, any>)['OperatorSettingsAreSet'];
    expect(rule).toBeDefined();
    const [assertion] = rule.Assertions;
    expect(assertion.AssertDescription).toMatch(
      /^The site's terms, privacy, refund and contact pages would be published naming a placeholder operator/,
    );
    for (const key of keys) expect(assertion.AssertDescription).toContain(`-c ${key}=...`);
    // The assertion is over a parameter that may hold only the unset keys, and asks it to be empty: it fails on every deploy.
    expect(assertion.Assert).toEqual({ 'Fn::Equals': [{ Ref: 'OperatorSettingsUnset' }, ''] });
    template.hasParameter('OperatorSettingsUnset', { Type: 'String', Default: keys.join(','), AllowedValues: [keys.join(',')] });
  });

  it('with some of them, names only the keys still unset', () => {
    const { operatorJurisdiction: _unset, ...some } = OPERATOR;
    const t = synthTemplate({ treasury: TREASURY, ...some });
    const description: string = t.toJSON().Rules.OperatorSettingsAreSet.Assertions[0].AssertDescription;
    expect(description).toContain('Set -c operatorJurisdiction=... (docs/OPERATIONS.md');
    expect(description).not.toContain('operatorEmail');
  }, 120_000);

  it('with all of them, carries no rule and no parameter, and the pages bin/app.ts builds from the same context carry them', () => {
    const t = synthTemplate({ treasury: TREASURY, ...OPERATOR });
    expect(t.toJSON().Rules?.OperatorSettingsAreSet).toBeUndefined();
    const elsewhere = addMarketplace(new App({ context: { treasury: TREASURY, 'aws:cdk:bundling-stacks': [], ...OPERATOR } }), {
      account: '111111111111',
      region: 'eu-west-1',
    });
    expect(Template.fromStack(elsewhere.edge!).toJSON().Rules?.OperatorSettingsAreSet).toBeUndefined();
    expect(t.toJSON().Parameters?.OperatorSettingsUnset).toBeUndefined();
    // bin/app.ts: buildSite({ operator: readOperatorConfig(app) }) with the app the stack is in.
    const reading = readOperatorConfig(new App({ context: OPERATOR }));
    const pages = new Map(renderOperatorPages(reading, { css: '/assets/x.css', scripts: {}, preloads: {} }));
    expect(pages.get('terms/index.html')).toContain('The seller is Zebra Trading GmbH, Musterstraße 7, 10115 Berlin, Germany');
    expect(pages.get('contact/index.html')).toContain('mailto:help@zebra.example.com');
    for (const html of pages.values()) expect(html).not.toContain('not for publication');
  }, 120_000);

  it('refuses a malformed one at synth', () => {
    expect(() => synthTemplate({ treasury: TREASURY, ...OPERATOR, operatorEmail: 'help at zebra' })).toThrow(DeployConfigError);
    expect(() => synthTemplate({ treasury: TREASURY, ...OPERATOR, operatorRefundDays: 'two weeks' })).toThrow(
      /operatorRefundDays must be a whole number/,
    );
  });
});

describe('catalog data and access', () => {
  it('tells every domain function where its bundled catalog data is (the versions publisher carries the versions instead)', () => {
    for (const fn of domainFunctions()) {
      const vars = fn.Properties['Environment'].Variables;
      if (fn.Properties['Description'] === 'skill-market catalog publish-versions-handler') {
        expect(vars.VERSIONS_DATA_DIR).toBe('/var/task/versions');
        expect(vars.CATALOG_DATA_DIR).toBeUndefined();
      } else expect(vars.CATALOG_DATA_DIR).toBe('/var/task/catalog');
    }
  });

  it('grants each function only its own tables: catalog writes intents, payments writes the ledger', () => {
    const roleOf = (description: string): string =>
      (Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: description } })) as any[])[0].Properties
        .Role['Fn::GetAtt'][0];
    const writesOf = (description: string): string => {
      const role = roleOf(description);
      const policies = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).filter((p) =>
        p.Properties.Roles.some((r: any) => r.Ref === role),
      );
      return JSON.stringify(
        policies.flatMap((p) => p.Properties.PolicyDocument.Statement).filter((st: any) => [st.Action].flat().includes('dynamodb:PutItem')),
      );
    };
    expect(writesOf('skill-market catalog routes')).toContain('IntentsTable');
    expect(writesOf('skill-market catalog routes')).not.toContain('LedgerTable');
    expect(writesOf('skill-market payments routes')).toContain('LedgerTable');
    expect(writesOf('skill-market payments routes')).not.toContain('IntentsTable');
    // Discovery writes only the signed provenance it keeps (issue 52).
    const discoveryWrites = JSON.parse(writesOf('skill-market discovery routes')) as any[];
    expect(discoveryWrites).toHaveLength(1);
    expect(JSON.stringify(discoveryWrites[0].Resource)).toMatch(/^\[?\{"Fn::GetAtt":\["ProvenanceTable[0-9A-F]+","Arn"\]\}\]?$/);
    expect(writesOf('skill-market catalog routes')).not.toContain('A2ATasksTable');
  });

  it('expires intent bounties by TTL, and gives insights no read of them: they are never signals (issue 31)', () => {
    const [intents] = Object.entries(template.findResources('AWS::DynamoDB::Table')).filter(([id]) => id.startsWith('IntentsTable'));
    expect((intents![1] as any).Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    const insights = (
      Object.values(
        template.findResources('AWS::Lambda::Function', { Properties: { Description: 'skill-market insights routes' } }),
      ) as any[]
    )[0];
    const role = insights.Properties.Role['Fn::GetAtt'][0];
    const policies = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).filter((p) =>
      p.Properties.Roles.some((r: any) => r.Ref === role),
    );
    expect(JSON.stringify(policies)).not.toContain('IntentsTable');
  });
});

describe('payments', () => {
  it('builds the confirmation state machine from the one retry policy, with logging', () => {
    const [sm] = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as any[];
    expect(sm.Properties.StateMachineType).toBe('STANDARD');
    expect(sm.Properties.LoggingConfiguration.Level).toBe('ALL');
    const raw = sm.Properties.DefinitionString;
    const text = typeof raw === 'string' ? raw : raw['Fn::Join'][1].map((x: unknown) => (typeof x === 'string' ? x : 'ref')).join('');
    const def = JSON.parse(text) as { StartAt: string; States: Record<string, any> };
    const waits: number[] = [];
    for (let name: string | undefined = def.StartAt; name;) {
      const state: any = def.States[name];
      if (state.Type === 'Wait') waits.push(state.Seconds);
      name = state.Type === 'Choice' ? state.Default : state.Next;
    }
    expect(waits).toEqual([...CONFIRMATION_RETRY_DELAYS_SECONDS]);
  });

  it('checks every claim once more after the reorg window, retrying while the providers cannot decide', () => {
    const [sm] = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as any[];
    const raw = sm.Properties.DefinitionString;
    const text = typeof raw === 'string' ? raw : raw['Fn::Join'][1].map((x: unknown) => (typeof x === 'string' ? x : 'ref')).join('');
    const def = JSON.parse(text) as { StartAt: string; States: Record<string, any> };
    // A finality job enters at the start choice; a confirmed claim enters from each attempt's "unlocked".
    const entry = def.States[def.StartAt].Choices.find((c: any) => c.StringEquals === 'finality').Next;
    expect(def.States['Decide1'].Choices.find((c: any) => c.StringEquals === 'unlocked').Next).toBe(entry);
    const waits: number[] = [];
    for (let name: string | undefined = entry; name;) {
      const state: any = def.States[name];
      if (state.Type === 'Wait') waits.push(state.Seconds);
      if (state.Type === 'Task') expect(state.Parameters.kind).toBe('finality');
      name = state.Type === 'Choice' ? state.Default : state.Next;
    }
    expect(waits).toEqual([128, ...FINALITY_RETRY_DELAYS_SECONDS]);
  });

  it("ends an escrowed payment nobody came back for at the job's own time, retrying while its void or capture is not mined (issue 53)", () => {
    const [sm] = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as any[];
    const raw = sm.Properties.DefinitionString;
    const text = typeof raw === 'string' ? raw : raw['Fn::Join'][1].map((x: unknown) => (typeof x === 'string' ? x : 'ref')).join('');
    const def = JSON.parse(text) as { StartAt: string; States: Record<string, any>; TimeoutSeconds?: number };
    const entry = def.States[def.StartAt].Choices.find((c: any) => c.StringEquals === 'escrow_expiry').Next;
    expect(def.States[entry]).toMatchObject({ Type: 'Wait', TimestampPath: '$.at' });
    const waits: number[] = [];
    const ends = new Set<string>();
    for (let name: string | undefined = def.States[entry].Next; name;) {
      const state: any = def.States[name];
      if (state.Type === 'Wait') waits.push(state.Seconds);
      if (state.Type === 'Choice') for (const c of state.Choices) ends.add(`${c.StringEquals}:${def.States[c.Next].Type}`);
      name = state.Type === 'Choice' ? state.Default : state.Next;
      if (name && def.States[name].Type === 'Fail') break;
    }
    expect(waits).toEqual([...ESCROW_EXPIRY_RETRY_DELAYS_SECONDS]);
    expect([...ends].sort()).toEqual(['failed:Succeed', 'unlocked:Succeed']);
    // The execution outlives the longest capture window an operator may set.
    expect(def.TimeoutSeconds).toBeGreaterThan(7 * 86_400);
  });

  it('gives the sealed packs only to the functions that unlock (access, agents for MCP, checkout for card sales) and to payments for readiness', () => {
    const withSealed = domainFunctions().filter((f) => f.Properties['Environment'].Variables.SEALED_DATA_DIR);
    expect(withSealed.map((f) => f.Properties['Description']).sort()).toEqual([
      'skill-market access routes',
      'skill-market agents routes',
      'skill-market checkout routes',
      'skill-market payments routes',
    ]);
  });

  it('lets the payments function start confirmation executions and read the license key', () => {
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as any[],
    );
    expect(statements.some((s) => [s.Action].flat().includes('states:StartExecution'))).toBe(true);
    expect(statements.some((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))).toBe(true);
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
  });
});

describe('figures (issue 33)', () => {
  const FOLD = 'skill-market ledger fold-handler';
  const functionId = (description: string): string | undefined =>
    Object.keys(template.findResources('AWS::Lambda::Function', { Properties: { Description: description } }))[0];
  const tableId = (logicalName: string): string =>
    Object.keys(template.findResources('AWS::DynamoDB::Table')).find((id) => id.startsWith(`${logicalName}Table`))!;
  const aliasOf = (fnId: string): string =>
    Object.entries(template.findResources('AWS::Lambda::Alias')).find(([, a]: [string, any]) =>
      JSON.stringify(a.Properties.FunctionName).includes(`"${fnId}"`),
    )![0];
  const statementsOf = (description: string): any[] => {
    const [fn] = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: description } })) as any[];
    const role = fn.Properties.Role['Fn::GetAtt'][0];
    return (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
      .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
  };
  const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
  const writes = (st: any): boolean => [st.Action].flat().some((a: string) => WRITES.includes(a));

  it("folds the ledger's and the card sales' streams into the figures through the fold's live alias, one mapping per stream", () => {
    const fold = functionId(FOLD);
    expect(fold, 'the fold function').toBeDefined();
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as any[];
    const byStream = (logicalName: string) =>
      mappings.filter(
        (m) => JSON.stringify(m.Properties.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [tableId(logicalName), 'StreamArn'] }),
      );
    for (const table of ['Ledger', 'CardSales']) {
      const found = byStream(table);
      expect(found, table).toHaveLength(1);
      const m = found[0].Properties;
      // The live alias, which a release shifts: its name is `<function>:live`.
      expect(JSON.stringify(m.FunctionName), table).toContain(`"Ref":"${aliasOf(fold!)}"`);
      expect(JSON.stringify(m.FunctionName), table).toContain(':live');
      expect(m, table).toMatchObject({
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        // Figures may lag a purchase by seconds.
        MaximumBatchingWindowInSeconds: 1,
        // What makes Lambda put shardId in each event: the fold's idempotency needs it.
        TumblingWindowInSeconds: 60,
        // One batch per shard at a time: each shard's records in order.
        ParallelizationFactor: 1,
        // Bounded: a batch that keeps failing is given up to the queue, not retried for the stream's 24 hours.
        MaximumRetryAttempts: 10,
        MaximumRecordAgeInSeconds: 6 * 3600,
      });
      expect(m.BisectBatchOnFunctionError, table).toBeUndefined();
      const destination = m.DestinationConfig.OnFailure.Destination['Fn::GetAtt'];
      expect(destination[1], table).toBe('Arn');
      expect(template.toJSON().Resources[destination[0]].Type, table).toBe('AWS::SQS::Queue');
    }
    expect(mappings).toHaveLength(2);
  });

  it('keeps the batches the fold gave up in an encrypted, TLS-only queue for 14 days, and pages on them, on its lag and on its errors', () => {
    const fold = functionId(FOLD)!;
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as any[];
    const queueId: string = mapping.Properties.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0];
    const queue = template.toJSON().Resources[queueId];
    expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      }),
    });
    // The fold may send to its queue (the mapping sends as the function's role).
    expect(JSON.stringify(statementsOf(FOLD).filter((st) => [st.Action].flat().includes('sqs:SendMessage')))).toContain(queueId);

    const [topic] = Object.keys(template.findResources('AWS::SNS::Topic'));
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as any[];
    const paging = (a: any) => expect(a.Properties.AlarmActions).toEqual([{ Ref: topic }]);
    const failed = alarms.filter((a) => JSON.stringify(a.Properties.Dimensions ?? []).includes(`"${queueId}"`));
    expect(failed).toHaveLength(1);
    expect(failed[0].Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    paging(failed[0]);
    const lag = alarms.filter((a) => a.Properties.MetricName === 'IteratorAge');
    expect(lag).toHaveLength(1);
    expect(lag[0].Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fold } }],
      Statistic: 'Maximum',
      Threshold: 5 * 60 * 1000,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    paging(lag[0]);
    const errors = alarms.filter(
      (a) => a.Properties.MetricName === 'Errors' && JSON.stringify(a.Properties.Dimensions).includes(`{"Ref":"${fold}"}`),
    );
    expect(errors).toHaveLength(1);
    paging(errors[0]);
    // And the operator sees all three on the dashboard.
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard')) as any[];
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const metric of ['IteratorAge', 'ApproximateNumberOfMessagesVisible', 'Errors']) expect(body).toContain(metric);
  });

  it('lets the fold read the two streams and write the figures, and write nothing else', () => {
    const statements = statementsOf(FOLD);
    const streamReads = statements.filter((st) => [st.Action].flat().includes('dynamodb:GetRecords'));
    expect(streamReads.flatMap((st) => [st.Resource].flat())).toEqual(
      expect.arrayContaining([{ 'Fn::GetAtt': [tableId('Ledger'), 'StreamArn'] }, { 'Fn::GetAtt': [tableId('CardSales'), 'StreamArn'] }]),
    );
    expect(streamReads.flatMap((st) => [st.Resource].flat())).toHaveLength(2);
    const written = statements.filter(writes).flatMap((st) => [st.Resource].flat());
    expect(written).toEqual([{ 'Fn::GetAtt': [tableId('Tallies'), 'Arn'] }]);
    // No key, secret, state machine or chain for a fold.
    const actions = statements.flatMap((st) => [st.Action].flat() as string[]);
    expect(actions.filter((a) => /^(kms|secretsmanager|states):/.test(a))).toEqual([]);
  });

  it('reconciles and reports unmatched receipts daily on EventBridge Scheduler through the ledger task alone; nothing folds on a schedule', () => {
    // The task's schedule targets its live alias (a Ref); the finance exports target DynamoDB (universal target).
    const task = functionId('skill-market ledger reconcile-handler');
    expect(task).toBeDefined();
    const schedules = (Object.values(template.findResources('AWS::Scheduler::Schedule')) as any[]).filter(
      (s) => s.Properties.Target.Arn.Ref === aliasOf(task!),
    );
    const runs = schedules.map((s) => ({ rate: s.Properties.ScheduleExpression, input: JSON.parse(s.Properties.Target.Input) }));
    expect(runs.sort((a, b) => a.input.task.localeCompare(b.input.task))).toEqual([
      { rate: 'rate(1 day)', input: { task: 'reconcile' } },
      { rate: 'rate(1 day)', input: { task: 'unmatched' } },
    ]);
    // The only other function on a schedule is payments' watch (the relayer's balance, the stuck settlements).
    const watch = functionId('skill-market payments watch-handler');
    const others = (Object.values(template.findResources('AWS::Scheduler::Schedule')) as any[]).filter(
      (s) => s.Properties.Target.Arn.Ref !== undefined && s.Properties.Target.Arn.Ref !== aliasOf(task!),
    );
    expect(others.map((s) => s.Properties.Target.Arn.Ref)).toEqual([aliasOf(watch!), aliasOf(watch!)]);
    expect(template.toJSON().Resources[task!].Properties.Timeout).toBe(900);
    // The unmatched run reads the treasury's transfers: the task gets the RPC secret.
    expect(JSON.stringify(statementsOf('skill-market ledger reconcile-handler'))).toContain('secretsmanager:GetSecretValue');
    expect(functionId('skill-market payments tally-handler')).toBeUndefined();
  });

  it('lets the confirmation task end the x402 settlements it claims: the Settlements table, read and written', () => {
    const task = 'skill-market payments confirm-handler';
    const on = (action: string): string =>
      JSON.stringify(
        statementsOf(task).filter((st) => [st.Action].flat().includes(action) && JSON.stringify(st.Resource).includes('SettlementsTable')),
      );
    expect(on('dynamodb:GetItem')).not.toBe('[]');
    expect(on('dynamodb:UpdateItem')).not.toBe('[]');
    const fn = domainFunctions().find((f) => f.Properties['Description'] === task)!;
    expect(fn.Properties['Environment'].Variables.SETTLEMENTS_TABLE).toBeDefined();
  });

  it('lets the functions that record sales write the ledger and card sales but only read the figures, which only the ledger domain writes', () => {
    const can = (description: string, action: string): string =>
      JSON.stringify(statementsOf(description).filter((st) => [st.Action].flat().includes(action)));
    for (const writer of ['payments routes', 'payments confirm-handler', 'access routes', 'agents routes', 'checkout routes']) {
      const updates = can(`skill-market ${writer}`, 'dynamodb:UpdateItem');
      for (const table of ['LedgerTable', 'CardSalesTable']) expect(updates, `${writer} writes ${table}`).toContain(table);
      expect(updates, `${writer} writes the figures`).not.toContain('TalliesTable');
      expect(can(`skill-market ${writer}`, 'dynamodb:GetItem'), `${writer} reads the figures`).toContain('TalliesTable');
    }
    expect(can('skill-market discovery routes', 'dynamodb:Query')).toContain('TalliesTable');
    // Discovery's one write grant is the provenance table's (issue 52).
    expect(can('skill-market discovery routes', 'dynamodb:UpdateItem')).not.toMatch(/LedgerTable|CardSalesTable|TalliesTable/);
    // Shared totals are folded off the purchase path: no function of another domain writes them.
    const figureWriters = domainFunctions()
      .map((f) => f.Properties['Description'] as string)
      .filter((d) => statementsOf(d).some((st) => writes(st) && JSON.stringify(st.Resource).includes('TalliesTable')));
    expect(figureWriters).toContain(FOLD);
    for (const d of figureWriters) expect(d).toMatch(/^skill-market ledger /);
  });
});

describe('operations', () => {
  const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm')) as any[];

  it('alarms on the 5xx rate, failed confirmation loops and reconcile differences, all to one topic', () => {
    const byMetric = (test: (a: any) => boolean) => alarms().filter(test);
    const rate = byMetric(
      (a) =>
        (a.Properties.Metrics ?? []).some((m: any) => m.Expression?.includes('100 * errors / requests')) &&
        a.Properties.EvaluationPeriods === 2,
    );
    expect(rate).toHaveLength(1);
    expect(rate[0].Properties).toMatchObject({
      Threshold: FIVE_XX_RATE_PERCENT,
      EvaluationPeriods: 2,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(JSON.stringify(rate[0].Properties.Metrics)).toContain('"MetricName":"5xx"');
    expect(byMetric((a) => a.Properties.MetricName === 'ExecutionsFailed' && a.Properties.Namespace === 'AWS/States')).toHaveLength(1);
    // Published by the scheduled reconcile, under the service name of its function's domain.
    const reconcile = byMetric((a) =>
      (a.Properties.Metrics ?? []).some((m: any) => m.MetricStat?.Metric.MetricName === METRICS.reconcileDifferences),
    );
    expect(reconcile).toHaveLength(1);
    expect(reconcile[0].Properties.Threshold).toBe(0);
    expect(reconcile[0].Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric)).toEqual([
      {
        Namespace: METRIC_NAMESPACE,
        MetricName: METRICS.reconcileDifferences,
        Dimensions: [{ Name: 'service', Value: 'skill-market-ledger' }],
      },
    ]);
    const topics = Object.keys(template.findResources('AWS::SNS::Topic'));
    expect(topics).toHaveLength(1);
    for (const a of alarms()) expect(JSON.stringify(a.Properties.AlarmActions)).toContain(topics[0]);
  });

  it('charts every business metric on one dashboard', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard')) as any[];
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const name of Object.values(METRICS)) expect(body, name).toContain(name);
  });
});

describe('finance exports', () => {
  it('exports the ledger, the card sales and the x402 settlements daily through the universal target, with a per-execution client token', () => {
    const exports = (Object.values(template.findResources('AWS::Scheduler::Schedule')) as any[]).filter((s) =>
      JSON.stringify(s.Properties.Target.Arn).includes(':scheduler:::aws-sdk:dynamodb:exportTableToPointInTime'),
    );
    expect(exports).toHaveLength(EXPORTED_TABLES.length);
    for (const s of exports) {
      expect(s.Properties.ScheduleExpression).toBe(EXPORT_SCHEDULE_CRON);
      const input = s.Properties.Target.Input;
      const text = typeof input === 'string' ? input : JSON.stringify(input);
      expect(text).toContain('<aws.scheduler.execution-id>');
      expect(text).toContain('/<aws.scheduler.scheduled-time>');
      expect(text).toContain('DYNAMODB_JSON');
    }
  });

  it("lets the scheduler's roles export only these tables and write only under their prefixes", () => {
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as any[],
    );
    const exporting = statements.filter((st) => [st.Action].flat().some((a: string) => /ExportTableToPointInTime/i.test(a)));
    expect(exporting.length).toBeGreaterThanOrEqual(2);
    for (const st of [
      ...exporting,
      ...statements.filter((st) => [st.Action].flat().includes('s3:PutObject') && JSON.stringify(st.Resource).includes('FinanceBucket')),
    ])
      expect(JSON.stringify(st.Resource)).not.toBe('"*"');
  });

  it('puts a Glue table over each export, partitioned by an injected snapshot, and the rollup as an Athena named query', () => {
    const tables = (Object.values(template.findResources('AWS::Glue::Table')) as any[]).map((t) => t.Properties.TableInput);
    expect(tables.map((t) => t.Name).sort()).toEqual(EXPORTED_TABLES.map((t) => t.view).sort());
    for (const t of tables) {
      expect(t.Parameters['projection.snapshot.type']).toBe('injected');
      expect(t.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.openx.data.jsonserde.JsonSerDe');
      expect(t.StorageDescriptor.Columns[0].Name).toBe('item');
    }
    const queries = (Object.values(template.findResources('AWS::Athena::NamedQuery')) as any[]).map((q) => q.Properties);
    expect(queries.map((q) => [q.Name, q.QueryString])).toEqual([
      ['revenue-rollup', REVENUE_ROLLUP_SQL],
      ['relayer-cost', RELAYER_COST_SQL],
      ['finance-transactions', FINANCE_TRANSACTIONS_SQL],
      ['net-rollup', NET_ROLLUP_SQL],
    ]);
    // Each query's parameters are the snapshot, as many times as it has placeholders.
    for (const q of FINANCE_QUERIES) expect(q.sql.split('?').length - 1).toBe(q.snapshotParameters);
    // Every field a query reads (`item.<field>`, a record's `r.m.<field>`) is in the Glue tables' schema.
    const schema = new Set(
      tables.flatMap((t) => [...(t.StorageDescriptor.Columns[0].Type as string).matchAll(/([a-z0-9_]+):struct</g)].map((m) => m[1])),
    );
    for (const q of FINANCE_QUERIES) {
      const read = [...q.sql.matchAll(/\b(?:item|r\.m)\.([a-z0-9_]+)\.[snm]\b/g)].map((m) => m[1]);
      expect(read.length).toBeGreaterThan(0);
      expect(
        read.filter((f) => !schema.has(f)),
        q.name,
      ).toEqual([]);
    }
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({ EnforceWorkGroupConfiguration: true }),
    });
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ LifecycleConfiguration: Match.anyValue() }),
    });
  });
});

describe('the service key', () => {
  it('is one retained KMS P-256 key that exactly the functions answering sales (receipts), the agent card and the provenance may sign with', () => {
    const keys = Object.entries(template.findResources('AWS::KMS::Key', { Properties: { KeySpec: 'ECC_NIST_P256' } })) as [string, any][];
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0]!;
    expect(key.Properties.KeyUsage).toBe('SIGN_VERIFY');
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as any[];
    const signing = functions.filter((f) => f.Properties.Environment?.Variables?.SERVICE_KEY_KMS_KEY_ID !== undefined);
    expect(signing.map((f) => f.Properties.Description).sort()).toEqual([
      'skill-market access routes',
      'skill-market agents routes',
      'skill-market checkout routes',
      'skill-market discovery routes',
    ]);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as any[];
    const onKey = (p: any) => (p.Properties.PolicyDocument.Statement as any[]).filter((st) => JSON.stringify(st.Resource).includes(keyId));
    // Each signing function's own role may Sign (and read the public key) on it, and nothing more.
    for (const f of signing) {
      const role = f.Properties.Role['Fn::GetAtt'][0] as string;
      const statements = policies.filter((p) => JSON.stringify(p.Properties.Roles).includes(role)).flatMap(onKey);
      expect(statements, f.Properties.Description).toHaveLength(1);
      expect([statements[0].Action].flat().sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    }
    // No other role has any right on it.
    expect(policies.flatMap(onKey)).toHaveLength(signing.length);
  });
});

describe('signed provenance (issue 52)', () => {
  it('keeps the signed statements in an on-demand table that only the discovery function (the provenance route) writes, beside the service key', () => {
    const tables = Object.entries(template.findResources('AWS::DynamoDB::Table')) as [string, any][];
    const [id, table] = tables.find(([logicalId]) => logicalId.startsWith(`${PROVENANCE_TABLE.logicalName}Table`))!;
    expect(table.Properties.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as any[];
    const discovery = functions.find((f) => f.Properties.Description === 'skill-market discovery routes')!;
    expect(discovery.Properties.Environment.Variables[PROVENANCE_TABLE.env]).toEqual({ Ref: id });
    expect(discovery.Properties.Environment.Variables[INFRA_ENV.serviceKeyKmsKeyId]).toBeDefined();
    // No transparency log unless the setting names one.
    expect(discovery.Properties.Environment.Variables[SETTINGS.transparencyLogUrl.env]).toBeUndefined();
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as any[];
    const roleOf = (f: any) => f.Properties.Role['Fn::GetAtt'][0] as string;
    const writerRoles = policies
      .filter((p) =>
        (p.Properties.PolicyDocument.Statement as any[]).some(
          (st) => JSON.stringify(st.Resource).includes(id) && [st.Action].flat().includes('dynamodb:PutItem'),
        ),
      )
      .flatMap((p) => (p.Properties.Roles as any[]).map((r) => r.Ref as string));
    expect(writerRoles).toEqual([roleOf(discovery)]);
  });

  it('gives the discovery function the transparency log URL when transparencyLogUrl is set', () => {
    const t = synthTemplate({ treasury: TREASURY, transparencyLogUrl: 'https://rekor.sigstore.dev/' });
    const fns = Object.values(t.findResources('AWS::Lambda::Function')) as any[];
    const discovery = fns.find((f) => f.Properties.Description === 'skill-market discovery routes')!;
    expect(discovery.Properties.Environment.Variables[SETTINGS.transparencyLogUrl.env]).toBe('https://rekor.sigstore.dev');
  });
});

describe('agents', () => {
  it('expires A2A tasks with a TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } });
  });
});

describe('x402 relayer', () => {
  it('is a pool of relayerKeys retained secp256k1 KMS keys that only the functions settling authorizations may sign with, and no private key anywhere', () => {
    const keys = template.findResources('AWS::KMS::Key', { Properties: { KeySpec: 'ECC_SECG_P256K1' } }) as Record<string, any>;
    // The pool's; the escrow operator's key is secp256k1 too, and outside the pool (below).
    const entries = (Object.entries(keys) as [string, any][]).filter(([id]) => id.startsWith('RelayerKey'));
    // relayerKeys' default; the first key keeps the id (and address) it had before the pool.
    expect(entries).toHaveLength(Number(SETTINGS.relayerKeys.cloudDefault));
    expect(entries.map(([id]) => id)).toContain('RelayerKey4F9E34D9');
    for (const [, key] of entries) {
      expect(key.Properties.KeyUsage).toBe('SIGN_VERIFY');
      expect(key.DeletionPolicy).toBe('Retain');
    }
    const keyIds = entries.map(([id]) => id).sort();
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as any[];
    const relaying = functions.filter((f) => f.Properties.Environment?.Variables?.RELAYER_KMS_KEY_IDS !== undefined);
    // The confirmation task reads the relayer's addresses: a transfer a pool key sent is claimed only for its own settlement.
    expect(relaying.map((f) => f.Properties.Description).sort()).toEqual([
      'skill-market access routes',
      'skill-market agents routes',
      'skill-market payments confirm-handler',
      'skill-market payments routes',
      'skill-market payments watch-handler',
    ]);
    // Each carries every key of the pool, comma-separated.
    for (const f of relaying) {
      const named = JSON.stringify(f.Properties.Environment.Variables.RELAYER_KMS_KEY_IDS);
      expect(keyIds.filter((id) => named.includes(id))).toEqual(keyIds);
    }
    for (const f of functions) {
      expect(f.Properties.Environment?.Variables?.RELAYER_PRIVATE_KEYS).toBeUndefined();
      expect(f.Properties.Environment?.Variables?.RELAYER_KMS_KEY_ID).toBeUndefined();
    }
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as any[],
    );
    const onPool = statements.filter((st) => keyIds.some((id) => JSON.stringify(st.Resource).includes(id)));
    // One statement per function naming every key: all sign with each, but the balance watch, which reads their addresses only.
    for (const st of onPool) expect(keyIds.filter((id) => JSON.stringify(st.Resource).includes(id))).toEqual(keyIds);
    expect(onPool.map((st) => [st.Action].flat().sort().join(' ')).sort()).toEqual([
      'kms:GetPublicKey',
      ...relaying.slice(1).map(() => 'kms:GetPublicKey kms:Sign'),
    ]);
  });

  it('has an escrow operator (x402 auth-capture, issue 53): one retained secp256k1 KMS key, outside the pool, that the settling functions sign with and the others that name it only read', () => {
    const keys = Object.entries(template.findResources('AWS::KMS::Key', { Properties: { KeySpec: 'ECC_SECG_P256K1' } })) as [string, any][];
    const operators = keys.filter(([id]) => id.startsWith('EscrowOperatorKey'));
    expect(operators).toHaveLength(1);
    const [keyId, key] = operators[0]!;
    expect(key.Properties.KeyUsage).toBe('SIGN_VERIFY');
    expect(key.DeletionPolicy).toBe('Retain');
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as any[];
    const named = functions.filter((f) => f.Properties.Environment?.Variables?.[INFRA_ENV.escrowOperatorKmsKeyId] !== undefined);
    for (const f of named)
      expect(f.Properties.Environment.Variables[INFRA_ENV.escrowOperatorKmsKeyId]).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    for (const f of functions) expect(f.Properties.Environment?.Variables?.[INFRA_ENV.escrowOperatorPrivateKey]).toBeUndefined();
    // Who settles signs with it (authorize, capture, void, refund; the confirmation task retries a
    // capture); the watch reads its ETH and discovery names it in /.well-known/x402: public key only.
    const signs = [
      'skill-market access routes',
      'skill-market agents routes',
      'skill-market payments confirm-handler',
      'skill-market payments routes',
    ];
    const reads = ['skill-market discovery routes', 'skill-market payments watch-handler'];
    expect(named.map((f) => f.Properties.Description).sort()).toEqual([...signs, ...reads].sort());
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as any[];
    const onKey = (p: any) => (p.Properties.PolicyDocument.Statement as any[]).filter((st) => JSON.stringify(st.Resource).includes(keyId));
    for (const f of named) {
      const role = f.Properties.Role['Fn::GetAtt'][0] as string;
      const statements = policies.filter((p) => JSON.stringify(p.Properties.Roles).includes(role)).flatMap(onKey);
      expect(statements, f.Properties.Description).toHaveLength(1);
      // That key alone: never a statement that also names a pool key.
      expect(statements[0].Resource, f.Properties.Description).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      expect([statements[0].Action].flat().sort(), f.Properties.Description).toEqual(
        signs.includes(f.Properties.Description) ? ['kms:GetPublicKey', 'kms:Sign'] : ['kms:GetPublicKey'],
      );
    }
    // No other role has any right on it.
    expect(policies.flatMap(onKey)).toHaveLength(named.length);
    // The operator's one step after the deploy (npm run guard-operator) names it: an output says which key.
    expect(Object.values(template.findOutputs('EscrowOperatorKeyArn')).map((o: any) => o.Value)).toEqual([
      { 'Fn::GetAtt': [keyId, 'Arn'] },
    ]);
  });

  it("passes the escrow's settings to the functions: the default v1.0 escrow, or what context says", () => {
    const escrowEnv = (t: Template) =>
      (Object.values(t.findResources('AWS::Lambda::Function')) as any[])
        .filter((f) => /^skill-market (access|agents|payments|discovery) /.test(f.Properties.Description ?? ''))
        .map((f) => {
          const v = f.Properties.Environment.Variables;
          return [v[SETTINGS.authCaptureEscrow.env], v[SETTINGS.escrowCaptureSeconds.env], v[SETTINGS.escrowRefundDays.env]];
        });
    const defaults = escrowEnv(template);
    expect(defaults.length).toBeGreaterThanOrEqual(6);
    for (const v of defaults)
      expect(v).toEqual([
        AUTH_CAPTURE_DEPLOYMENTS[0].escrow,
        SETTINGS.escrowCaptureSeconds.cloudDefault,
        SETTINGS.escrowRefundDays.cloudDefault,
      ]);
    const set = synthTemplate({ treasury: TREASURY, escrowCaptureSeconds: '1200', escrowRefundDays: '7' });
    for (const v of escrowEnv(set)) expect(v).toEqual([AUTH_CAPTURE_DEPLOYMENTS[0].escrow, '1200', '7']);
  });

  it('refuses an escrow that is no known auth-capture deployment at synth, naming authCaptureEscrow', () => {
    const attempt = () => synthTemplate({ treasury: TREASURY, authCaptureEscrow: '0x000000000000000000000000000000000000dEaD' });
    expect(attempt).toThrow(DeployConfigError);
    expect(attempt).toThrow(
      /authCaptureEscrow \(AUTH_CAPTURE_ESCROW_ADDRESS\) is 0x000000000000000000000000000000000000dEaD, which is no deployment/,
    );
    expect(() => synthTemplate({ treasury: TREASURY, escrowCaptureSeconds: '60' })).toThrow(/escrowCaptureSeconds/);
    expect(() => synthTemplate({ treasury: TREASURY, escrowRefundDays: 'a month' })).toThrow(/escrowRefundDays/);
  });

  it('has a lease table of its own, which the functions that relay read and write', () => {
    const tables = Object.entries(template.findResources('AWS::DynamoDB::Table')) as [string, any][];
    const [leasesId, leases] = tables.find(([id]) => id.startsWith('RelayerLeasesTable'))!;
    expect(leases.Properties.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    expect(leases.DeletionPolicy ?? 'Delete').toBe('Delete');
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as any[];
    const withTable = functions.filter((f) => f.Properties.Environment?.Variables?.RELAYER_LEASES_TABLE !== undefined);
    const signing = functions.filter(
      (f) => f.Properties.Environment?.Variables?.RELAYER_KMS_KEY_IDS !== undefined && !/watch-handler/.test(f.Properties.Description),
    );
    for (const f of signing) expect(withTable).toContain(f);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as any[],
    );
    const writes = statements.filter(
      (st) => JSON.stringify(st.Resource).includes(leasesId) && [st.Action].flat().some((a: string) => a === 'dynamodb:PutItem'),
    );
    expect(writes.length).toBeGreaterThanOrEqual(3);
  });

  it("has its balance read every 5 minutes by payments' watch, and an alarm when it is short of relayerMinBalanceEth or unread", () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: `rate(${RELAYER_WATCH_EVERY_MINUTES} minutes)`,
      Target: Match.objectLike({ Input: JSON.stringify({ task: 'relayer_balance' }) }),
    });
    const alarms = Object.entries(template.findResources('AWS::CloudWatch::Alarm')) as [string, any][];
    const [, low] = alarms.find(([id]) => id.includes('RelayerBalanceLow'))!;
    expect(low.Properties).toMatchObject({
      MetricName: 'RelayerBalanceGwei',
      Dimensions: [{ Name: 'service', Value: 'skill-market-payments' }],
      Statistic: 'Minimum',
      Period: 900,
      // relayerMinBalanceEth's default, 0.002 ETH, in gwei.
      Threshold: 2_000_000,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(low.Properties.AlarmActions).toHaveLength(1);
    // One alarm for every key: the watch publishes each key's balance under the service too, whose Minimum is the lowest key.
    expect(low.Properties.AlarmDescription).toMatch(/A key of the x402 relayer pool/);
    // The escrow operator's balance is published by the same watch, under the same service: this alarm covers it too.
    expect(low.Properties.AlarmDescription).toMatch(/the escrow operator's key/);
  });

  it('counts the settlements stuck in flight every 5 minutes from a sparse, sharded index, and alarms on one', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: `rate(${RELAYER_WATCH_EVERY_MINUTES} minutes)`,
      Target: Match.objectLike({ Input: JSON.stringify({ task: 'stuck_settlements' }) }),
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'inFlight',
          KeySchema: [
            { AttributeName: 'inFlightShard', KeyType: 'HASH' },
            { AttributeName: 'claimedAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    });
    const alarms = Object.entries(template.findResources('AWS::CloudWatch::Alarm')) as [string, any][];
    const [, stuck] = alarms.find(([id]) => id.includes('StuckSettlements'))!;
    expect(stuck.Properties).toMatchObject({
      MetricName: 'StuckSettlements',
      Dimensions: [{ Name: 'service', Value: 'skill-market-payments' }],
      Statistic: 'Maximum',
      Period: RELAYER_WATCH_EVERY_MINUTES * 60,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(stuck.Properties.AlarmActions).toHaveLength(1);
  });

  it('alarms on any KMS signer failure of the functions that sign (relayer key, service key)', () => {
    const alarms = Object.entries(template.findResources('AWS::CloudWatch::Alarm')) as [string, any][];
    const [, failures] = alarms.find(([id]) => id.includes('SignerFailures'))!;
    expect(failures.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const services = (failures.Properties.Metrics as any[])
      .filter((m) => m.MetricStat)
      .map((m) => m.MetricStat.Metric.Dimensions[0].Value)
      .sort();
    expect(services).toEqual([
      'skill-market-access',
      'skill-market-agents',
      'skill-market-checkout',
      'skill-market-discovery',
      'skill-market-payments',
    ]);
    for (const m of (failures.Properties.Metrics as any[]).filter((m) => m.MetricStat))
      expect(m.MetricStat.Metric.MetricName).toBe('SignerFailures');
  });

  it('keeps the settlements (with the gas each cost) in a retained table the settling functions write', () => {
    const tables = Object.entries(template.findResources('AWS::DynamoDB::Table')) as [string, any][];
    const [id, table] = tables.find(([logicalId]) => logicalId.startsWith('Settlements'))!;
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as any[],
    );
    const writers = statements.filter((st) => JSON.stringify(st.Resource).includes(id) && [st.Action].flat().includes('dynamodb:PutItem'));
    expect(writers.length).toBeGreaterThanOrEqual(2);
  });

  it('forwards PAYMENT-SIGNATURE and SIGN-IN-WITH-X to the API: the API behaviours send every viewer header but Host', () => {
    const [cdn] = Object.values(template.findResources('AWS::CloudFront::Distribution')) as any[];
    const api = cdn.Properties.DistributionConfig.CacheBehaviors.filter((b: any) => ['/api/*', '/.well-known/*'].includes(b.PathPattern));
    expect(api).toHaveLength(2);
    // The managed AllViewerExceptHostHeader origin request policy.
    for (const b of api) expect(b.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
  });
});

describe('security headers (issue 31, finding 7)', () => {
  /** The security-headers config of the response headers policy a behaviour references. */
  const securityConfigOf = (behavior: any): any => {
    const ref = behavior.ResponseHeadersPolicyId?.Ref;
    expect(ref, `${behavior.PathPattern ?? 'default'} has a response headers policy`).toBeDefined();
    return template.toJSON().Resources[ref].Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
  };
  /** What CloudFront adds with that config, as the header names and values a viewer sees. */
  const headersOf = (config: any): Record<string, string> => ({
    'content-security-policy': config.ContentSecurityPolicy.ContentSecurityPolicy,
    'x-frame-options': config.FrameOptions.FrameOption,
    ...(config.ContentTypeOptions ? { 'x-content-type-options': 'nosniff' } : {}),
    'referrer-policy': config.ReferrerPolicy.ReferrerPolicy,
  });

  it('adds the pages’ headers to every answer of the S3 behaviour, overriding the origin, with HSTS', () => {
    const [cdn] = Object.values(template.findResources('AWS::CloudFront::Distribution')) as any[];
    const config = securityConfigOf(cdn.Properties.DistributionConfig.DefaultCacheBehavior);
    // The very values the local edge sends (lambdas/contract/security-headers.ts).
    expect(headersOf(config)).toEqual(PAGE_SECURITY_HEADERS);
    expect(config.ContentSecurityPolicy.ContentSecurityPolicy).toContain("frame-ancestors 'none'");
    for (const field of ['ContentSecurityPolicy', 'FrameOptions', 'ContentTypeOptions', 'ReferrerPolicy', 'StrictTransportSecurity'])
      expect(config[field].Override, field).toBe(true);
    expect(config.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: HSTS_MAX_AGE_SECONDS, IncludeSubdomains: false });
    // CloudFront's quota on a policy's CSP.
    expect(config.ContentSecurityPolicy.ContentSecurityPolicy.length).toBeLessThanOrEqual(1783);
  });

  it('adds the API’s headers (a CSP that loads nothing) to /api/* and /.well-known/*, and no CORS of its own', () => {
    const [cdn] = Object.values(template.findResources('AWS::CloudFront::Distribution')) as any[];
    for (const b of cdn.Properties.DistributionConfig.CacheBehaviors as any[]) {
      expect(headersOf(securityConfigOf(b)), b.PathPattern).toEqual(API_SECURITY_HEADERS);
      const policy = template.toJSON().Resources[b.ResponseHeadersPolicyId.Ref].Properties.ResponseHeadersPolicyConfig;
      // The handlers answer CORS themselves (BASE_HEADERS); the policy leaves it to them.
      expect(policy.CorsConfig, b.PathPattern).toBeUndefined();
    }
  });
});

describe('checkout', () => {
  it('keeps the Stripe keys in a retained secret created empty, which only the checkout function reads', () => {
    const secrets = Object.entries(template.findResources('AWS::SecretsManager::Secret')) as [string, any][];
    const [id, stripe] = secrets.find(([, r]) => /Stripe keys/.test(r.Properties.Description))!;
    expect(stripe.DeletionPolicy).toBe('Retain');
    // Empty fields: no key ever passes through the template.
    expect(JSON.parse(stripe.Properties.SecretString)).toEqual({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' });
    const withArn = domainFunctions().filter((f) => f.Properties['Environment'].Variables.STRIPE_SECRET_ARN);
    expect(withArn.map((f) => f.Properties['Description'])).toEqual(['skill-market checkout routes']);
    const readers = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).filter((p) =>
      (p.Properties.PolicyDocument.Statement as any[]).some((st) => JSON.stringify(st.Resource).includes(id)),
    );
    expect(readers).toHaveLength(1);
  });

  it('routes the webhook and every checkout path, and prints where to register the webhook', () => {
    for (const key of ['POST /api/checkout/stripe-webhook', 'PUT /api/ucp/checkout-sessions/{id}', 'GET /.well-known/ucp']) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: key });
    }
    const outputs = template.findOutputs('StripeWebhookUrl');
    expect(JSON.stringify(outputs)).toContain('/api/checkout/stripe-webhook');
    expect(Object.keys(template.findOutputs('StripeSecretArn'))).toHaveLength(1);
  });
});

describe('advertised base URL', () => {
  it('comes from an SSM parameter holding the CloudFront domain, never from a forwarded header', () => {
    const [param] = Object.values(template.findResources('AWS::SSM::Parameter')) as any[];
    expect(JSON.stringify(param.Properties.Value)).toContain('DomainName');
    for (const fn of domainFunctions().filter((f) => f.Properties['Description'].endsWith(' routes'))) {
      expect(fn.Properties['Environment'].Variables.PUBLIC_BASE_URL_PARAMETER).toBe(param.Properties.Name);
    }
    const functions = Object.values(template.findResources('AWS::CloudFront::Function')) as any[];
    expect(functions.map((f) => f.Properties.FunctionCode).join('\n')).not.toMatch(/x-market-host|headers\.host/);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as any[],
    );
    const ssm = statements.filter((st) => [st.Action].flat().includes('ssm:GetParameter'));
    expect(ssm.length).toBeGreaterThan(0);
    for (const st of ssm) expect(JSON.stringify(st.Resource)).toContain('public-base-url');
  });

  it('uses a configured custom domain directly, with no parameter', () => {
    const t = synthTemplate({ treasury: TREASURY, publicBaseUrl: 'https://skills.example.com' });
    t.resourceCountIs('AWS::SSM::Parameter', 0);
    const fns = Object.values(
      t.findResources('AWS::Lambda::Function', { Properties: { Description: 'skill-market agents routes' } }),
    ) as any[];
    expect(fns[0].Properties.Environment.Variables.PUBLIC_BASE_URL).toBe('https://skills.example.com');
  }, 120_000);
});

describe('hardening (cdk-nag findings fixed, issue 17)', () => {
  const policies = () => Object.values(template.findResources('AWS::IAM::Policy')) as { Properties: any }[];
  const resourcesOf = (p: { Properties: any }): unknown[] =>
    p.Properties.PolicyDocument.Statement.flatMap((s: any) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]));

  it('traces every domain function with X-Ray and gives each its own role, without AWS managed policies', () => {
    for (const fn of domainFunctions()) {
      expect(fn.Properties['TracingConfig']).toEqual({ Mode: 'Active' });
      const roleId = fn.Properties['Role']['Fn::GetAtt'][0];
      const role = template.findResources('AWS::IAM::Role')[roleId] as { Properties: any };
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', { TracingConfiguration: { Enabled: true } });
  });

  it('grants DynamoDB access to each table and its named indexes, never <table>/index/*', () => {
    const all = policies()
      .flatMap(resourcesOf)
      .map((r) => JSON.stringify(r));
    expect(all.some((r) => r.includes('/index/*'))).toBe(false);
    expect(all.some((r) => r.includes('/index/gsi1'))).toBe(true);
  });

  it('sends a scheduled run that fails after its retries to a queue an alarm watches', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: Match.objectLike({ 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetters'), 'Arn'] }) } },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      AlarmActions: [Match.anyValue()],
    });
  });

  it('logs the edge and the buckets to an access-log bucket kept 90 days, and the alarm topic takes TLS only', () => {
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ Logging: Match.objectLike({ Prefix: 'cloudfront/' }) }),
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'site-bucket/' }),
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'finance-bucket/' }),
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 90, Status: 'Enabled' })] },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      }),
    });
  });
});

describe('the edge: web ACL and TLS (issue 17)', () => {
  const ACL_ARN = 'arn:aws:wafv2:us-east-1:111111111111:global/webacl/existing/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';
  const CERT_ARN = 'arn:aws:acm:us-east-1:111111111111:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';
  // Only the templates are read here: the Lambda bundles are skipped (the bundle smoke test builds them).
  const app = (context: Record<string, string>, region?: string) => {
    const a = new App({ context: { treasury: TREASURY, 'aws:cdk:bundling-stacks': [], ...context } });
    return addMarketplace(a, { account: '111111111111', region });
  };
  const distribution = (t: Template) =>
    (Object.values(t.findResources('AWS::CloudFront::Distribution'))[0] as any).Properties.DistributionConfig;

  it('without a region at synth: creates the web ACL in the stack, and a rule refuses a deploy outside us-east-1', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const [aclId, acl] = Object.entries(template.findResources('AWS::WAFv2::WebACL'))[0] as [string, any];
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    const rules = acl.Properties.Rules as any[];
    expect(rules.map((r) => r.Name)).toEqual([
      'aws-core-rule-set',
      'aws-known-bad-inputs',
      'block-what-the-managed-groups-matched',
      'rate-per-ip',
    ]);
    expect(rules[0].OverrideAction).toEqual({ Count: {} });
    expect(rules[2].Action.Block.CustomResponse).toEqual({ ResponseCode: 403, CustomResponseBodyKey: 'blocked' });
    expect(rules[3].Statement.RateBasedStatement).toMatchObject({ Limit: WAF_RATE_LIMIT_PER_5_MIN, AggregateKeyType: 'IP' });
    // The edge's own answers are the spec's JSON failure body, never an HTML page.
    for (const body of Object.values(acl.Properties.CustomResponseBodies) as any[]) {
      expect(body.ContentType).toBe('APPLICATION_JSON');
      expect(JSON.parse(body.Content)).toMatchObject({ ok: false, error_code: expect.any(String), retry: expect.any(Boolean) });
    }
    expect(distribution(template).WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(JSON.stringify(template.toJSON().Rules.WebAclNeedsUsEast1)).toContain('us-east-1');
  });

  it('in us-east-1: the web ACL in the stack, no rule needed', () => {
    const { marketplace, edge } = app({}, 'us-east-1');
    expect(edge).toBeUndefined();
    const t = Template.fromStack(marketplace);
    t.resourceCountIs('AWS::WAFv2::WebACL', 1);
    expect(t.toJSON().Rules?.WebAclNeedsUsEast1).toBeUndefined();
  });

  it('in another region: a us-east-1 edge stack holds the web ACL, read through a cross-region reference', () => {
    const { marketplace, edge } = app({}, 'eu-west-1');
    expect(edge?.region).toBe('us-east-1');
    Template.fromStack(edge!).resourceCountIs('AWS::WAFv2::WebACL', 1);
    // Deployed first by `cdk deploy --all`, it refuses placeholder operator settings as the marketplace does.
    expect(Template.fromStack(edge!).toJSON().Rules?.OperatorSettingsAreSet).toBeDefined();
    const t = Template.fromStack(marketplace);
    t.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(JSON.stringify(distribution(t).WebACLId)).toMatch(/ExportsReader/);
  });

  it('with -c webAclArn: attaches that ACL and creates none', () => {
    const t = Template.fromStack(app({ webAclArn: ACL_ARN }, 'eu-west-1').marketplace);
    t.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(distribution(t).WebACLId).toBe(ACL_ARN);
  });

  it('serves a custom domain with TLSv1.2_2021 at least and advertises it; the default domain keeps CloudFront’s certificate', () => {
    // No viewer certificate: CloudFront's default *.cloudfront.net one (cdk-nag's CFR4, acknowledged with that reason).
    expect(distribution(template).ViewerCertificate).toBeUndefined();
    const t = Template.fromStack(app({ domainName: 'skills.example.com', certificateArn: CERT_ARN }, 'us-east-1').marketplace);
    expect(distribution(t).Aliases).toEqual(['skills.example.com']);
    expect(distribution(t).ViewerCertificate).toMatchObject({
      AcmCertificateArn: CERT_ARN,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    const fns = Object.values(
      t.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^skill-market ') } }),
    );
    for (const fn of fns as any[]) expect(fn.Properties.Environment.Variables.PUBLIC_BASE_URL).toBe('https://skills.example.com');
  });

  it('throttles the API stage from context, 100 requests/s with a burst of 200 by default', () => {
    const stage = (t: Template) => (Object.values(t.findResources('AWS::ApiGatewayV2::Stage'))[0] as any).Properties.DefaultRouteSettings;
    expect(stage(template)).toMatchObject({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    expect(stage(Template.fromStack(app({ apiRateLimit: '250', apiBurstLimit: '500' }, 'us-east-1').marketplace))).toMatchObject({
      ThrottlingRateLimit: 250,
      ThrottlingBurstLimit: 500,
    });
    expect(() => app({ apiRateLimit: '0' })).toThrow(/apiRateLimit must be a whole number from 1 to 10000/);
  });

  it('refuses a half-given or malformed edge configuration at synth', () => {
    expect(() => app({ domainName: 'skills.example.com' })).toThrow(/domainName and certificateArn go together/);
    expect(() => app({ domainName: 'skills.example.com', certificateArn: CERT_ARN.replace('us-east-1', 'eu-west-1') })).toThrow(
      /certificateArn must be an ACM certificate in us-east-1/,
    );
    expect(() => app({ webAclArn: 'arn:aws:wafv2:eu-west-1:111111111111:regional/webacl/x/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b' })).toThrow(
      /webAclArn must be a CloudFront-scope/,
    );
    expect(() => new MarketplaceStack(new App({ context: { treasury: TREASURY } }), 'Elsewhere', { env: { region: 'eu-west-1' } })).toThrow(
      DeployConfigError,
    );
  });
});

describe('releases that roll back (issue 17)', () => {
  it('gives every function a live alias that CodeDeploy shifts 10 % for five minutes, rolling back on its alarms', () => {
    const fns = domainFunctions();
    const aliases = Object.values(template.findResources('AWS::Lambda::Alias')) as any[];
    expect(aliases.filter((a) => a.Properties.Name === 'live')).toHaveLength(fns.length);
    const groups = Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup')) as any[];
    expect(groups).toHaveLength(fns.length);
    for (const g of groups) {
      expect(g.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
      expect(g.Properties.AutoRollbackConfiguration).toEqual({
        Enabled: true,
        Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM']),
      });
      expect(g.Properties.AlarmConfiguration.Enabled).toBe(true);
      expect(g.Properties.AlarmConfiguration.Alarms.length).toBeGreaterThanOrEqual(1);
    }
    // API functions also watch the API's 5xx rate over a minute and their domain's business alarms.
    expect(groups.filter((g) => g.Properties.AlarmConfiguration.Alarms.length === 4).length).toBeGreaterThanOrEqual(7);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as any[];
    const refusals = alarms.filter((a) => JSON.stringify(a.Properties.Metrics ?? []).includes('100 * refused / (unlocks + refused)'));
    expect(refusals.length).toBeGreaterThanOrEqual(7);
    expect(JSON.stringify(refusals.find((a) => JSON.stringify(a).includes('skill-market-access')))).toContain(
      '"MetricName":"VerificationFailures"',
    );
    expect(refusals[0].Properties).toMatchObject({ Threshold: RELEASE_REFUSAL_PERCENT, EvaluationPeriods: 2 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Namespace: 'AWS/Lambda', Period: 60, Threshold: 1 });
  });

  it('invokes the live aliases: API Gateway, the confirmation state machine and the scheduler', () => {
    const aliasIds = Object.keys(template.findResources('AWS::Lambda::Alias'));
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration')) as any[];
    expect(integrations.length).toBeGreaterThan(0);
    for (const i of integrations) expect(aliasIds).toContain(i.Properties.IntegrationUri.Ref);
    const machine = JSON.stringify(Object.values(template.findResources('AWS::StepFunctions::StateMachine'))[0]);
    expect(aliasIds.some((id) => machine.includes(`"Ref":"${id}"`))).toBe(true);
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule')) as any[];
    const invokes = schedules.filter((s) => s.Properties.Target.Arn.Ref);
    expect(invokes.length).toBeGreaterThan(0);
    for (const s of invokes) expect(aliasIds).toContain(s.Properties.Target.Arn.Ref);
  });
});

describe('the license key rotates (issue 17)', () => {
  it('has Secrets Manager run the rotation entry every LICENSE_KEY_ROTATION_DAYS through its live alias', () => {
    const [secretId] = Object.keys(
      template.findResources('AWS::SecretsManager::Secret', { Properties: { Description: Match.stringLikeRegexp('license') } }),
    );
    const schedule = Object.values(template.findResources('AWS::SecretsManager::RotationSchedule')).find(
      (r: any) => r.Properties.SecretId.Ref === secretId,
    ) as any;
    expect(schedule).toBeDefined();
    expect(
      schedule.Properties.RotationRules.ScheduleExpression ?? `rate(${schedule.Properties.RotationRules.AutomaticallyAfterDays} days)`,
    ).toBe(`rate(${LICENSE_KEY_ROTATION_DAYS} days)`);
    const [aliasId] = Object.entries(template.findResources('AWS::Lambda::Alias')).find(([, a]: [string, any]) =>
      JSON.stringify(a.Properties.FunctionName).includes('LicenseKeyRotation'),
    )!;
    expect(schedule.Properties.RotationLambdaARN).toEqual({ Ref: aliasId });
    const rotationFn = domainFunctions().find((f) => f.Properties['Description'] === 'skill-market payments license-rotation-handler');
    expect(rotationFn).toBeDefined();
  });
});

describe('the deployed API knows its callers and serves only CloudFront (issue 31)', () => {
  const cdn = () => (Object.values(template.findResources('AWS::CloudFront::Distribution')) as any[])[0].Properties.DistributionConfig;
  const apiBehaviors = () => (cdn().CacheBehaviors as any[]).filter((b) => ['/api/*', '/.well-known/*'].includes(b.PathPattern));
  const originSecretId = () =>
    Object.keys(
      template.findResources('AWS::SecretsManager::Secret', { Properties: { Description: Match.stringLikeRegexp('Origin secret') } }),
    )[0]!;
  const apiFunctions = () => domainFunctions().filter((f) => / routes$/.test(f.Properties['Description']));

  it("runs the viewer-address function on the API behaviours' viewer requests, beside every viewer header but Host", () => {
    const [fnId, fn] = Object.entries(template.findResources('AWS::CloudFront::Function')).find(
      ([, f]: [string, any]) => f.Properties.FunctionCode === VIEWER_ADDRESS_FUNCTION,
    ) as [string, any];
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(apiBehaviors()).toHaveLength(2);
    for (const b of apiBehaviors()) {
      expect(b.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fnId, 'FunctionARN'] } }]);
      // The managed AllViewerExceptHostHeader policy: the function's header reaches the API with the viewer's own.
      expect(b.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
    }
    // The static behaviour does not need it.
    expect(JSON.stringify(cdn().DefaultCacheBehavior)).not.toContain(fnId);
    // The function, run as CloudFront runs it: the viewer's IP, whatever the viewer sent under that name.
    const out = runInNewContext(
      `${VIEWER_ADDRESS_FUNCTION}; handler(${JSON.stringify({
        viewer: { ip: '203.0.113.9' },
        request: { headers: { [VIEWER_ADDRESS_HEADER]: { value: '10.0.0.1', multiValue: [{ value: '10.0.0.1' }] } } },
      })})`,
    ) as { headers: Record<string, unknown> };
    expect(out.headers[VIEWER_ADDRESS_HEADER]).toEqual({ value: '203.0.113.9' });
  });

  it('adds the origin secret to the API origin by dynamic reference to Secrets Manager, never as text in the template', () => {
    const secretId = originSecretId();
    const origin = (cdn().Origins as any[]).find((o) => o.Id === apiBehaviors()[0].TargetOriginId);
    expect(origin.OriginCustomHeaders).toEqual([
      {
        HeaderName: ORIGIN_VERIFY_HEADER,
        HeaderValue: { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] },
      },
    ]);
    const secret = template.findResources('AWS::SecretsManager::Secret')[secretId] as any;
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    expect(secret.Properties.SecretString).toBeUndefined();
    // The S3 origin gets no secret.
    expect((cdn().Origins as any[]).filter((o) => o.OriginCustomHeaders)).toHaveLength(1);
  });

  it("gives every API function the secret's ARN and read access to it alone; no other function reads it", () => {
    const secretId = originSecretId();
    expect(apiFunctions().length).toBeGreaterThanOrEqual(7);
    for (const f of domainFunctions())
      expect(f.Properties['Environment'].Variables[INFRA_ENV.originSecretArn]).toEqual(
        / routes$/.test(f.Properties['Description']) ? { Ref: secretId } : undefined,
      );
    const statements = (Object.entries(template.findResources('AWS::IAM::Policy')) as [string, any][]).flatMap(([id, p]) =>
      (p.Properties.PolicyDocument.Statement as any[]).map((st) => ({ id, st })),
    );
    const onSecret = statements.filter(({ st }) => JSON.stringify(st.Resource).includes(secretId));
    const readers = onSecret.filter(({ id }) => !id.startsWith('OriginSecretRotation'));
    expect(readers).toHaveLength(apiFunctions().length);
    for (const { st } of readers) {
      expect([st.Action].flat().sort()).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
      expect(st.Resource).toEqual({ Ref: secretId });
    }
  });

  it('rotates the secret every ORIGIN_SECRET_ROTATION_DAYS through a function that may update only this distribution', () => {
    const secretId = originSecretId();
    const schedule = Object.values(template.findResources('AWS::SecretsManager::RotationSchedule')).find(
      (r: any) => r.Properties.SecretId.Ref === secretId,
    ) as any;
    expect(schedule.Properties.RotationRules.ScheduleExpression).toBe(`rate(${ORIGIN_SECRET_ROTATION_DAYS} days)`);
    const [aliasId] = Object.entries(template.findResources('AWS::Lambda::Alias')).find(([, a]: [string, any]) =>
      JSON.stringify(a.Properties.FunctionName).includes('OriginSecretRotation'),
    )!;
    expect(schedule.Properties.RotationLambdaARN).toEqual({ Ref: aliasId });
    const rotation = domainFunctions().find(
      (f) => f.Properties['Description'] === 'skill-market discovery origin-secret-rotation-handler',
    )!;
    const [distId] = Object.keys(template.findResources('AWS::CloudFront::Distribution'));
    expect(rotation.Properties['Environment'].Variables[INFRA_ENV.originDistributionId]).toEqual({ Ref: distId });
    expect(rotation.Properties['Environment'].Variables[INFRA_ENV.originSecretArn]).toBeUndefined();
    expect(rotation.Properties['Timeout']).toBe(60);

    const policies = Object.entries(template.findResources('AWS::IAM::Policy')) as [string, any][];
    const statementsOf = (prefix: string) =>
      policies.filter(([id]) => id.startsWith(prefix)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement as any[]);
    const cloudFront = statementsOf('OriginSecretRotation').filter((st) =>
      [st.Action].flat().some((a: string) => a.startsWith('cloudfront:')),
    );
    expect(cloudFront).toEqual([
      {
        Action: ['cloudfront:GetDistributionConfig', 'cloudfront:UpdateDistribution'],
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: distId }],
          ],
        },
      },
    ]);
    // Its Secrets Manager grant names this secret only (GetRandomPassword takes no resource).
    for (const st of statementsOf('OriginSecretRotation').filter((st) => JSON.stringify(st.Action).includes('secretsmanager:')))
      if (st.Action !== 'secretsmanager:GetRandomPassword') expect(st.Resource).toEqual({ Ref: secretId });
    // Nobody else may change a distribution.
    const updaters = policies.filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('cloudfront:UpdateDistribution'));
    expect(updaters.map(([id]) => id)).toEqual([expect.stringMatching(/^OriginSecretRotation/)]);
  });
});

describe('RPC URLs with keys (issue 17)', () => {
  it('keeps keyed provider URLs in a retained secret created blank, read only by the functions that read the chain', () => {
    const secrets = Object.entries(template.findResources('AWS::SecretsManager::Secret')) as [string, any][];
    const [id, rpc] = secrets.find(([, r]) => /JSON-RPC providers/.test(r.Properties.Description))!;
    expect(rpc.DeletionPolicy).toBe('Retain');
    expect(JSON.parse(rpc.Properties.SecretString)).toEqual({ RPC_URLS: '' });
    const withArn = domainFunctions().filter((f) => f.Properties['Environment'].Variables.RPC_SECRET_ARN);
    const names = withArn.map((f) => f.Properties['Description'] as string);
    for (const reader of ['payments', 'access', 'agents']) expect(names.some((n) => n.includes(reader))).toBe(true);
    for (const other of ['catalog routes', 'discovery', 'insights', 'checkout']) expect(names.some((n) => n.includes(other))).toBe(false);
    // Only the keyless public default travels in the environment.
    for (const f of domainFunctions())
      expect(f.Properties['Environment'].Variables.RPC_URLS ?? 'https://mainnet.base.org').toBe('https://mainnet.base.org');
    const readers = (Object.values(template.findResources('AWS::IAM::Policy')) as any[]).filter((p) =>
      (p.Properties.PolicyDocument.Statement as any[]).some((st) => JSON.stringify(st.Resource).includes(id)),
    );
    expect(readers).toHaveLength(withArn.length);
    expect(Object.keys(template.findOutputs('RpcSecretArn'))).toHaveLength(1);
  });

  it('refuses an rpcUrls context entry that carries a key, naming only its host', () => {
    for (const keyed of [
      'https://base-mainnet.g.alchemy.com/v2/abcDEF1234567890xyz',
      'https://base-mainnet.infura.io/v3/0123456789abcdef0123456789abcdef',
      'https://x.base-mainnet.quiknode.pro/0123456789abcdef0123/',
      'https://rpc.example?apikey=k',
      'https://user:pass@rpc.example',
    ]) {
      const attempt = () => synth({ treasury: TREASURY, rpcUrls: `https://mainnet.base.org,${keyed}` });
      expect(attempt).toThrow(DeployConfigError);
      expect(attempt).toThrow(/carries a credential \(host [^)]+\).*RPC secret/);
      try {
        attempt();
      } catch (e) {
        expect((e as Error).message).not.toMatch(/abcDEF|0123456789abcdef|apikey|pass@/);
      }
    }
    expect(carriesKey('https://1rpc.io/base')).toBe(false);
    expect(carriesKey('https://base-rpc.publicnode.com')).toBe(false);
  });
});

describe('the synthetic purchase (issue 37)', () => {
  const SYNTHETIC = 'skill-market payments synthetic-handler';
  const parts = (t: Template) => {
    const fnId = Object.keys(t.findResources('AWS::Lambda::Function', { Properties: { Description: SYNTHETIC } }))[0]!;
    const aliasId = Object.entries(t.findResources('AWS::Lambda::Alias')).find(([, a]: [string, any]) =>
      JSON.stringify(a.Properties.FunctionName).includes(`"${fnId}"`),
    )![0];
    const schedules = (Object.values(t.findResources('AWS::Scheduler::Schedule')) as any[]).filter(
      (s) => s.Properties.Target.Arn.Ref === aliasId,
    );
    const alarms = Object.entries(t.findResources('AWS::CloudWatch::Alarm')).filter(([id]) => id.includes('SyntheticPurchaseFailed'));
    return { fnId, schedules, alarms };
  };
  const staging = () => synthTemplate({ treasury: TREASURY, stage: 'staging', network: 'base-sepolia' });

  it('exists in production, unscheduled and unalarmed, with its function name as the output the pipeline invokes', () => {
    const { fnId, schedules, alarms } = parts(template);
    expect(schedules).toEqual([]);
    expect(alarms).toEqual([]);
    expect(template.toJSON().Outputs['SyntheticPurchaseFunctionName'].Value).toEqual({ Ref: fnId });
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], treasury: TREASURY } });
    const stack = new MarketplaceStack(app, 'Output');
    expect(stack.resolve(stack.syntheticPurchaseFunctionName.logicalId)).toBe('SyntheticPurchaseFunctionName');
    // Every attempt is a purchase: a failed run is not retried by Lambda.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId },
      MaximumRetryAttempts: 0,
    });
  });

  it('reads its own secret and the RPC secret (read only) and the base URL, and no table or key: it is an outside buyer', () => {
    const fn = template.toJSON().Resources[parts(template).fnId];
    const secretId = Object.keys(template.findResources('AWS::SecretsManager::Secret')).find((id) =>
      id.startsWith('SyntheticPurchaseSecret'),
    )!;
    expect(fn.Properties.Environment.Variables[INFRA_ENV.syntheticFunderSecretArn]).toEqual({ Ref: secretId });
    const role = fn.Properties.Role['Fn::GetAtt'][0];
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
      .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    const actions = statements.flatMap((st) => [st.Action].flat() as string[]);
    expect(actions.filter((a) => /^(dynamodb|kms|states|lambda|s3):/.test(a))).toEqual([]);
    const onSecrets = statements.filter((st) => [st.Action].flat().some((a: string) => a.startsWith('secretsmanager:')));
    expect(onSecrets.map((st) => [st.Action].flat().sort().join(' '))).toEqual([
      'secretsmanager:DescribeSecret secretsmanager:GetSecretValue',
      'secretsmanager:DescribeSecret secretsmanager:GetSecretValue',
    ]);
    expect(onSecrets.map((st) => st.Resource.Ref).sort()).toEqual(
      [secretId, Object.keys(template.findResources('AWS::SecretsManager::Secret')).find((id) => id.startsWith('RpcSecret'))!].sort(),
    );
    expect(actions).toContain('ssm:GetParameter');
  });

  it('runs every hour in staging, with an alarm that fires on a failed run or on no run (missing data breaches)', () => {
    const t = staging();
    const { schedules, alarms } = parts(t);
    expect(schedules.map((s) => ({ rate: s.Properties.ScheduleExpression, input: JSON.parse(s.Properties.Target.Input) }))).toEqual([
      { rate: `rate(${SYNTHETIC_PURCHASE_EVERY_MINUTES / 60} hour)`, input: { task: 'synthetic_purchase' } },
    ]);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      Namespace: METRIC_NAMESPACE,
      MetricName: METRICS.syntheticPurchaseFailures,
      Dimensions: [{ Name: 'service', Value: 'skill-market-payments' }],
      Statistic: 'Maximum',
      Period: 2 * SYNTHETIC_PURCHASE_EVERY_MINUTES * 60,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
    });
    expect(alarms[0]![1].Properties.AlarmActions).toHaveLength(1);
  });

  it('follows syntheticPurchase=on|off over the stage, and refuses another value', () => {
    const prodOn = parts(synthTemplate({ treasury: TREASURY, syntheticPurchase: 'on' }));
    expect([prodOn.schedules.length, prodOn.alarms.length]).toEqual([1, 1]);
    const stagingOff = parts(synthTemplate({ treasury: TREASURY, stage: 'staging', network: 'base-sepolia', syntheticPurchase: 'off' }));
    expect([stagingOff.schedules.length, stagingOff.alarms.length]).toEqual([0, 0]);
    expect(() => synthTemplate({ treasury: TREASURY, syntheticPurchase: 'yes' })).toThrow(/syntheticPurchase must be on or off/);
  });
});
