/**
 * The pack versions' storage (issue 52): write-once, so that a version's bytes stay what its
 * buyers' receipts name. The template must show all three layers (lib/constructs/versions-bucket.ts):
 * Object Lock in COMPLIANCE mode with versioning, a bucket policy that denies every principal a
 * delete, an unconditional put and any loosening of the protection, and IAM that gives no role in
 * the template a delete, an overwrite or an Object Lock action on the bucket: the serving functions
 * s3:GetObject only, the deploy's publisher List, Get and the create-only PutObject.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { DOMAIN_INFRA } from '../../lib/domain-infra';
import { DeployConfigError, VERSION_RETENTION_DEFAULT_DAYS } from '../../lib/deploy-config';
import { MarketplaceStack } from '../../lib/marketplace-stack';

const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';

/** A template only: nothing here reads the Lambda bundles (test/cdk/bundles.test.ts builds those). */
const synth = (context: Record<string, string> = {}): Template =>
  Template.fromStack(new MarketplaceStack(new App({ context: { 'aws:cdk:bundling-stacks': [], treasury: TREASURY, ...context } }), 'Test'));

type Json = any;
const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

let template: Template;
let bucketId: string;
beforeAll(() => {
  template = synth();
  const buckets = Object.keys(template.findResources('AWS::S3::Bucket', { Properties: { ObjectLockEnabled: true } }));
  expect(buckets).toHaveLength(1);
  bucketId = buckets[0]!;
}, 120_000);

/** Whether a policy resource can name the versions bucket or its objects: it references the bucket, or is a wildcard over S3. */
function coversVersions(resource: Json): boolean {
  const text = JSON.stringify(resource);
  if (text.includes(`"${bucketId}"`)) return true;
  if (typeof resource === 'string') return resource === '*' || /^arn:[^:]*:s3:::[^/]*\*/.test(resource);
  return false;
}

/** Every Allow statement in the template's IAM (policies, roles' inline policies), with the roles it applies to. */
function allowStatements(): { roles: string[]; actions: string[]; resources: Json[]; where: string }[] {
  const out: { roles: string[]; actions: string[]; resources: Json[]; where: string }[] = [];
  const add = (doc: Json, roles: string[], where: string) => {
    for (const s of list<Json>(doc?.Statement))
      if (s.Effect === 'Allow') out.push({ roles, actions: list<string>(s.Action), resources: list<Json>(s.Resource), where });
  };
  for (const [id, p] of Object.entries(template.findResources('AWS::IAM::Policy')) as [string, Json][])
    add(
      p.Properties.PolicyDocument,
      list<Json>(p.Properties.Roles).map((r) => r.Ref),
      id,
    );
  for (const [id, r] of Object.entries(template.findResources('AWS::IAM::Role')) as [string, Json][]) {
    for (const p of list<Json>(r.Properties.Policies)) add(p.PolicyDocument, [id], `${id} inline`);
    // No role may hold an AWS managed policy that writes S3 at large.
    for (const arn of list<Json>(r.Properties.ManagedPolicyArns))
      expect(JSON.stringify(arn), id).not.toMatch(/AmazonS3FullAccess|AdministratorAccess|PowerUserAccess/);
  }
  return out;
}

/** The role of each Lambda function in the template, by the function's description. */
function roleOf(): Map<string, { description: string; env: Record<string, unknown> }> {
  const roles = new Map<string, { description: string; env: Record<string, unknown> }>();
  for (const fn of Object.values(template.findResources('AWS::Lambda::Function')) as Json[]) {
    const role = fn.Properties.Role?.['Fn::GetAtt']?.[0] as string | undefined;
    if (role) roles.set(role, { description: String(fn.Properties.Description ?? ''), env: fn.Properties.Environment?.Variables ?? {} });
  }
  return roles;
}

/** An action that could change or remove what the bucket holds, or its protection. */
const WRITES =
  /^(\*|s3:\*|s3:(Put|Delete|BypassGovernance|Replicate|Restore|Abort|Object(Owner)?Override)|s3:.*(Retention|LegalHold|ObjectLock|\*))/i;

describe('the pack versions bucket', () => {
  it('is versioned with Object Lock in COMPLIANCE mode, private, encrypted, TLS-only, access-logged and retained', () => {
    const bucket = template.toJSON().Resources[bucketId] as Json;
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.UpdateReplacePolicy).toBe('Retain');
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.Properties.ObjectLockConfiguration).toEqual({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: VERSION_RETENTION_DEFAULT_DAYS } },
    });
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe(
      'AES256',
    );
    expect(JSON.stringify(bucket.Properties.LoggingConfiguration.DestinationBucketName)).toMatch(/AccessLogs/);
    expect(bucket.Properties.LifecycleConfiguration).toBeUndefined();
  });

  it('has a retained policy that denies every principal deletes, unconditional puts and any loosening of the lock', () => {
    const policies = Object.values(
      template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: bucketId } } }),
    ) as Json[];
    expect(policies).toHaveLength(1);
    expect(policies[0].DeletionPolicy).toBe('Retain');
    const statements = list<Json>(policies[0].Properties.PolicyDocument.Statement);
    const deniedToAll = (action: string, condition?: Json) =>
      statements.some(
        (s) =>
          s.Effect === 'Deny' &&
          JSON.stringify(s.Principal) === JSON.stringify({ AWS: '*' }) &&
          list<string>(s.Action).includes(action) &&
          (condition === undefined ? s.Condition === undefined : JSON.stringify(s.Condition) === JSON.stringify(condition)),
      );
    for (const action of [
      's3:DeleteObject',
      's3:DeleteObjectVersion',
      's3:PutObjectRetention',
      's3:PutObjectLegalHold',
      's3:BypassGovernanceRetention',
      's3:PutBucketObjectLockConfiguration',
      's3:PutBucketVersioning',
      's3:PutLifecycleConfiguration',
    ])
      expect(deniedToAll(action), action).toBe(true);
    // S3's enforcement of conditional writes: a PutObject without If-None-Match: * (or with another value) is refused.
    expect(deniedToAll('s3:PutObject', { StringNotEquals: { 's3:if-none-match': '*' } })).toBe(true);
    // Nothing in the policy allows anything: what may read or write is each role's own grant.
    expect(statements.filter((s) => s.Effect !== 'Deny')).toEqual([]);
    // And TLS only.
    expect(statements.some((s) => s.Effect === 'Deny' && JSON.stringify(s.Condition) === '{"Bool":{"aws:SecureTransport":"false"}}')).toBe(
      true,
    );
  });

  it('is neither overwritten nor deleted by any role in the template: only the publisher may create, the serving functions only read', () => {
    const roles = roleOf();
    const publisherRoles = [...roles].filter(([, f]) => f.description.includes('publish-versions-handler')).map(([r]) => r);
    expect(publisherRoles).toHaveLength(1);
    const publisher = publisherRoles[0]!;
    const actionsOn = new Map<string, Set<string>>();
    const statements = allowStatements();
    expect(statements.length).toBeGreaterThan(20);
    for (const s of statements) {
      if (!s.resources.some(coversVersions)) continue;
      for (const role of s.roles) {
        const set = actionsOn.get(role) ?? new Set<string>();
        // What a statement on any resource (X-Ray's "*") allows beyond S3 does not touch the bucket.
        for (const a of s.actions) if (a === '*' || a.toLowerCase().startsWith('s3:')) set.add(a);
        actionsOn.set(role, set);
        for (const a of s.actions) {
          if (role === publisher && a === 's3:PutObject') continue;
          expect(
            a,
            `${s.where} gives ${role} (${roles.get(role)?.description ?? 'not a function'}) ${a} on the versions bucket`,
          ).not.toMatch(WRITES);
        }
      }
    }
    expect([...(actionsOn.get(publisher) ?? [])].sort()).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);

    // The functions that deliver packs read versions by key, and do nothing else on the bucket.
    const readers = [...roles].filter(([r, f]) => r !== publisher && f.env[INFRA_ENV.packVersionsBucket] !== undefined);
    const readingDomains = Object.entries(DOMAIN_INFRA)
      .filter(([, infra]) => infra?.packVersions === 'read')
      .map(([d]) => d)
      .sort();
    expect(readingDomains).toEqual(['access', 'agents', 'checkout', 'payments']);
    expect(new Set(readers.map(([, f]) => f.description.split(' ')[1])).size).toBe(readingDomains.length);
    for (const [role, f] of readers) {
      expect(f.env[INFRA_ENV.packVersionsBucket], f.description).toEqual({ Ref: bucketId });
      expect([...(actionsOn.get(role) ?? [])], f.description).toEqual(['s3:GetObject']);
    }
    // Every other role: nothing at all on the bucket.
    for (const [role, actions] of actionsOn)
      if (role !== publisher && !readers.some(([r]) => r === role))
        expect([...actions], `${role} (${roles.get(role)?.description ?? 'not a function'})`).toEqual([]);
  });

  it('is filled at deploy by the publisher, a custom resource that runs once the policy is in force and whenever the versions change', () => {
    const resources = template.findResources('Custom::PackVersions');
    expect(Object.keys(resources)).toHaveLength(1);
    const cr = Object.values(resources)[0] as Json;
    expect(cr.Properties.Bucket).toEqual({ Ref: bucketId });
    expect(cr.Properties.Versions).toMatch(/^\d+:[0-9a-f]{64}$/);
    const policyId = Object.keys(template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: bucketId } } }))[0];
    expect(list<string>(cr.DependsOn)).toContain(policyId);
    // CloudFormation calls the live alias (whose Errors alarm watches it), once its release is done.
    expect(JSON.stringify(cr.Properties.ServiceToken)).toMatch(/VersionsPublisherLive/);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'skill-market catalog publish-versions-handler',
      Environment: {
        Variables: Match.objectLike({ [INFRA_ENV.packVersionsBucket]: { Ref: bucketId }, VERSIONS_DATA_DIR: '/var/task/versions' }),
      },
    });
  });

  it('takes its retention from context versionRetentionDays, and refuses a value that is not 1 to 36,500 whole days', () => {
    synth({ versionRetentionDays: '30' }).hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 30 } } },
    });
    for (const bad of ['0', '-5', '2.5', 'ten', '36501'])
      expect(() => synth({ versionRetentionDays: bad }), bad).toThrow(DeployConfigError);
  }, 120_000);
});
