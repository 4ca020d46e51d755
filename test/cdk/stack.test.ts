import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routeKey } from '#shared/routes';
import { TABLES } from '#shared/tables';
import { DeployConfigError } from '../../lib/deploy-config';
import { MarketplaceStack } from '../../lib/marketplace-stack';

const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const LEGACY = '0xBaD000000000000000000000000000000000DeAD';

const synth = (context: Record<string, string>): Template => {
  const app = new App({ context });
  return Template.fromStack(new MarketplaceStack(app, 'Test'));
};

let template: Template;
beforeAll(() => {
  template = synth({ treasury: TREASURY, legacyTreasury: LEGACY });
}, 120_000);

const domainFunctions = () =>
  Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^skill-market ') } })) as {
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
      const [table] = Object.values(
        template.findResources('AWS::DynamoDB::Table', {
          Properties: { KeySchema: [{ AttributeName: def.partitionKey.name, KeyType: 'HASH' }] },
        }),
      ) as any[];
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(table.DeletionPolicy).toBe(def.retain ? 'Retain' : 'Delete');
      expect(table.Properties.GlobalSecondaryIndexes?.map((i: any) => i.IndexName) ?? []).toEqual(def.indexes.map((i) => i.name));
    }
  });

  it('keeps the bucket private and SSL-only, reached through CloudFront origin access control', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
  });

  it('sends /api/* and /.well-known/* to the API uncached', () => {
    const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
    const [dist] = Object.values(template.findResources('AWS::CloudFront::Distribution')) as any[];
    const behaviors = dist.Properties.DistributionConfig.CacheBehaviors as any[];
    expect(behaviors.map((b) => b.PathPattern).sort()).toEqual(['/.well-known/*', '/api/*']);
    for (const b of behaviors) {
      expect(b.CachePolicyId).toBe(CACHING_DISABLED);
      expect(b.AllowedMethods).toContain('POST');
      expect(b.ViewerProtocolPolicy).toBe('redirect-to-https');
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
    const t = synth({ legacyTreasury: LEGACY });
    t.hasParameter('TreasuryAddress', { Type: 'String', AllowedPattern: '^0x[0-9a-fA-F]{40}$' });
    const rules = t.toJSON().Rules as Record<string, any>;
    expect(JSON.stringify(rules)).toContain(LEGACY);
  });
});

describe('catalog data and access', () => {
  it('tells every domain function where its bundled catalog data is', () => {
    for (const fn of domainFunctions()) expect(fn.Properties['Environment'].Variables.CATALOG_DATA_DIR).toBe('/var/task/catalog');
  });

  it('lets the catalog function read and write the intents table, and only discovery describe tables', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as any[];
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement as any[]);
    const writes = statements.filter((s) => [s.Action].flat().includes('dynamodb:PutItem'));
    expect(writes.length).toBeGreaterThan(0);
    expect(JSON.stringify(writes)).toContain('IntentsTable');
    expect(JSON.stringify(writes)).not.toContain('LedgerTable');
  });
});
