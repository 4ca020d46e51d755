import { Token, Validations, type Stack } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import type { CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { PUBLIC_DIR } from '../../lambdas/contract/data-dirs';
import { CACHE_RULES } from '../../lambdas/contract/static-assets';

/**
 * Copies the built public tree (dist/public) to the site bucket, each file with the
 * Cache-Control of its rule (lambdas/contract/static-assets.ts), and invalidates what changed.
 * In the stack's own scope: the deployments' ids, and CDK's singleton handler beside them, are
 * the deployed ones.
 */
export function deploySite(stack: Stack, props: { siteBucket: IBucket; distribution: Distribution }): void {
  // One deployment per cache rule; each excludes what an earlier rule claimed, so pruning never crosses them.
  const claimed: string[] = [];
  CACHE_RULES.forEach((rule, i) => {
    new BucketDeployment(stack, `Static${i}`, {
      sources: [Source.asset(PUBLIC_DIR)],
      destinationBucket: props.siteBucket,
      exclude: rule.include === '*' ? claimed : ['*'],
      include: rule.include === '*' ? [] : [rule.include],
      cacheControl: [CacheControl.fromString(rule.cacheControl)],
      prune: !rule.keepOld,
      distribution: props.distribution,
      distributionPaths: [rule.include === '*' ? '/*' : `/${rule.include}`],
    });
    claimed.push(rule.include);
  });
  // BucketDeployment's handler: CDK's own singleton function, run by CloudFormation at deploy only.
  const deployer = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
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
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account}-${Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region}/*]`,
        'the asset objects are named by their hash at synth.',
      ],
      [
        `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(props.siteBucket.node.defaultChild as CfnBucket)}.Arn>/*]`,
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
}
