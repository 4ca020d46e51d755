import { CustomResource, Duration, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectLockRetention,
  ObjectOwnership,
  type CfnBucket,
  type IBucket,
} from 'aws-cdk-lib/aws-s3';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS_DIST_DIR } from '../../lambdas/contract/data-dirs';
import { INFRA_ENV } from '../../lambdas/contract/env';
import type { Manifest } from '../domain-infra';
import { DomainFunction } from './domain-function';

/**
 * Where every published pack version is kept (issue 52): `sha256/<digest>.json`, write-once.
 * Three layers hold it, each enough alone against a different actor:
 *
 * 1. **Object Lock in COMPLIANCE mode** with a default retention (context `versionRetentionDays`):
 *    S3 refuses to delete or overwrite a locked object version, or to shorten its retention, for
 *    anyone, the account's root user included, until the retention ends; Object Lock cannot be
 *    turned off, and it keeps versioning on.
 * 2. **The bucket policy** denies every principal what Object Lock leaves open: a delete marker
 *    (DeleteObject without a version id hides the current version without removing it), a PutObject
 *    without `If-None-Match: *` (with versioning an overwrite would make new bytes the current
 *    version; the condition key `s3:if-none-match` makes S3 refuse it, and a conditional create of
 *    a key that exists fails with 412), CopyObject into the bucket (S3 refuses it where conditional
 *    writes are enforced), and any change to retention, legal holds, Object Lock, versioning,
 *    lifecycle (a lifecycle rule could expire current versions behind delete markers) or the
 *    bucket itself. An explicit deny in a bucket policy wins over any allow in any role. The policy
 *    may still be updated by the stack (see DENIED_BUCKET_ACTIONS).
 * 3. **IAM**: the functions that deliver packs (manifest `packVersions: 'read'`) get s3:GetObject on
 *    the versions' keys only; the publisher gets ListBucket, GetObject and PutObject (which the
 *    policy makes create-only), and no role gets a delete or an Object Lock action (test/cdk/versions-bucket.test.ts).
 *
 * RETAIN, and its policy too: deleting the stack leaves the bucket, its versions and its policy.
 */
export function createVersionsBucket(stack: Stack, props: { accessLogs: IBucket; retentionDays: number }): Bucket {
  const bucket = new Bucket(stack, 'PackVersions', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    versioned: true,
    objectLockEnabled: true,
    objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(props.retentionDays)),
    removalPolicy: RemovalPolicy.RETAIN,
    serverAccessLogsBucket: props.accessLogs,
    serverAccessLogsPrefix: 'pack-versions/',
  });
  for (const statement of versionsBucketDenials(bucket)) bucket.addToResourcePolicy(statement);
  // The stack's removal leaves the policy with the bucket.
  bucket.policy!.applyRemovalPolicy(RemovalPolicy.RETAIN);
  return bucket;
}

/** Object actions no principal may take on a version. */
export const DENIED_OBJECT_ACTIONS = [
  's3:DeleteObject',
  's3:DeleteObjectVersion',
  's3:PutObjectRetention',
  's3:PutObjectLegalHold',
  's3:BypassGovernanceRetention',
] as const;

/**
 * Bucket actions no principal may take: what would loosen the bucket's protection. Changing the
 * policy itself is not among them: CloudFormation updates this policy when the stack's statements
 * change (a CDK upgrade can rewrite the TLS-only one), and a policy that denied its own update would
 * fail every such deploy. What the policy guards (the objects) Object Lock guards on its own, and no
 * function's role may change a bucket policy (test/cdk/versions-bucket.test.ts).
 */
export const DENIED_BUCKET_ACTIONS = [
  's3:PutBucketObjectLockConfiguration',
  's3:PutBucketVersioning',
  's3:PutLifecycleConfiguration',
  's3:DeleteBucket',
] as const;

/** The bucket policy's denials to every principal (see createVersionsBucket). */
export function versionsBucketDenials(bucket: Bucket): PolicyStatement[] {
  return [
    new PolicyStatement({
      sid: 'VersionsAreNeverDeleted',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: [...DENIED_OBJECT_ACTIONS],
      resources: [bucket.arnForObjects('*')],
    }),
    new PolicyStatement({
      sid: 'ProtectionIsNeverLoosened',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: [...DENIED_BUCKET_ACTIONS],
      resources: [bucket.bucketArn],
    }),
    // A request without the header has no `s3:if-none-match` value, and StringNotEquals then matches: denied too.
    new PolicyStatement({
      sid: 'WritesOnlyCreate',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [bucket.arnForObjects('*')],
      conditions: { StringNotEquals: { 's3:if-none-match': '*' } },
    }),
  ];
}

/** What a serving function may do on the versions bucket: read a version by its key, nothing else. */
export function readsPackVersions(fn: DomainFunction, bucket: Bucket): void {
  fn.fn.addEnvironment(INFRA_ENV.packVersionsBucket, bucket.bucketName);
  fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects('sha256/*')] }));
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(bucket)}.Arn>/sha256/*]`,
    reason:
      "A version is read by the digest a receipt names, which no grant can list in advance: s3:GetObject alone, on the versions bucket's content-addressed keys.",
  });
}

const logicalIdOf = (bucket: Bucket): string => bucket.stack.getLogicalId(bucket.node.defaultChild as CfnBucket);

/** A fingerprint of the versions this deploy carries: their keys, which name their bytes. A new version changes it, and the publisher runs. */
export function versionsFingerprint(dir: string = VERSIONS_DIST_DIR): string {
  const keys = readdirSync(join(dir, 'sha256'))
    .filter((n) => n.endsWith('.json'))
    .sort();
  return `${keys.length}:${createHash('sha256').update(keys.join('\n')).digest('hex')}`;
}

/**
 * The publisher: the owner domain's entry (manifest `versionsPublisher`) with dist/versions in its
 * bundle, run by CloudFormation as the custom resource `PackVersionsPublished` whenever the
 * versions the deploy carries change. It lists the bucket, then creates each missing version once.
 */
export function addVersionsPublisher(
  stack: Stack,
  props: { manifests: readonly Manifest[]; bucket: Bucket; environment: Record<string, string> },
): DomainFunction {
  const owner = props.manifests.find((m) => m.infra.versionsPublisher !== undefined);
  if (!owner) throw new Error('No domain manifest publishes the pack versions (versionsPublisher), yet a manifest reads them');
  const fn = new DomainFunction(stack, 'VersionsPublisher', {
    domain: owner.domain,
    entryFile: owner.infra.versionsPublisher!.entry,
    environment: { ...props.environment, [INFRA_ENV.packVersionsBucket]: props.bucket.bucketName },
    data: ['versions'],
    timeout: Duration.minutes(5),
    invokedBy: 'cloudformation',
  });
  fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.bucket.bucketArn] }));
  // PutObject is create-only: the bucket policy refuses it without If-None-Match: *.
  fn.fn.addToRolePolicy(
    new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [props.bucket.arnForObjects('sha256/*')] }),
  );
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(props.bucket)}.Arn>/sha256/*]`,
    reason:
      'The publisher creates each new version under its content address (sha256/<digest>.json), known only at build: s3:PutObject, which the bucket policy allows only as a create (If-None-Match: *), and s3:GetObject to check a key another writer made.',
  });
  const published = new CustomResource(stack, 'PackVersionsPublished', {
    // Through the live alias, as every caller of a function here: its Errors alarm watches the alias.
    serviceToken: fn.alias.functionArn,
    resourceType: 'Custom::PackVersions',
    properties: { Bucket: props.bucket.bucketName, Versions: versionsFingerprint() },
  });
  // Written only once the policy that makes every write create-only is in force.
  published.node.addDependency(props.bucket.policy!);
  return fn;
}
