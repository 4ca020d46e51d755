import { Duration, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type IBucket } from 'aws-cdk-lib/aws-s3';

/**
 * The access-log bucket and the site bucket, in the stack's own scope (the retained log
 * bucket keeps the logical id it is deployed with).
 *
 * aws-cdk-lib's Bucket declares `isWebsite?: boolean` where IBucket has `isWebsite: boolean`,
 * which only exactOptionalPropertyTypes notices; each object is an IBucket at run time.
 */
export function createBuckets(stack: Stack): { accessLogs: IBucket; site: IBucket } {
  // Access logs of the edge and the buckets: CloudFront's standard logs and S3 server access logs,
  // 90 days, kept when the stack goes (they are the record of who fetched what).
  const accessLogs = new Bucket(stack, 'AccessLogs', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    // CloudFront's standard logging writes with an ACL, so this bucket keeps ACLs (owner preferred).
    objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
    removalPolicy: RemovalPolicy.RETAIN,
    lifecycleRules: [{ expiration: Duration.days(90) }],
  }) as unknown as IBucket;
  Validations.of(accessLogs).acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'This is the access-log bucket: logging its own access would log the log writes.',
  });

  // The storefront's pages and files, readable only by CloudFront (origin access control); the
  // site deployment writes them (lib/constructs/site-deployment.ts).
  const site = new Bucket(stack, 'SiteBucket', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    removalPolicy: RemovalPolicy.DESTROY,
    autoDeleteObjects: true,
    serverAccessLogsBucket: accessLogs,
    serverAccessLogsPrefix: 'site-bucket/',
  }) as unknown as IBucket;
  return { accessLogs, site };
}
