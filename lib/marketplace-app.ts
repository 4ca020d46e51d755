import type { Construct } from 'constructs';
import { refusePlaceholderOperator } from './constructs/deploy-settings';
import { EdgeStack } from './constructs/edge-web-acl';
import { readOperatorConfig } from './deploy-config';
import { MarketplaceStack } from './marketplace-stack';

/**
 * The app's stacks, in the App itself or in a pipeline's Stage (lib/pipeline-stack.ts), whose
 * context (`stage`, `network`, its settings) its stacks read. The CloudFront web ACL must live in us-east-1: with a region known at synth
 * other than us-east-1 and no `-c webAclArn`, a second stack in us-east-1 holds it and the
 * marketplace reads its ARN through a cross-region reference; otherwise the marketplace stack
 * attaches the given ACL or creates its own (in us-east-1, or region-agnostic with a rule that
 * refuses a deploy elsewhere). docs/OPERATIONS.md, "First deploy".
 */
export function addMarketplace(
  scope: Construct,
  where: { account?: string | undefined; region?: string | undefined },
): { marketplace: MarketplaceStack; edge: EdgeStack | undefined } {
  const name: string = scope.node.tryGetContext('stackName') ?? 'SkillMarket';
  const account = where.account ? { account: where.account } : {};
  const edge =
    where.region && where.region !== 'us-east-1' && !scope.node.tryGetContext('webAclArn')
      ? new EdgeStack(scope, `${name}Edge`, {
          env: { ...account, region: 'us-east-1' },
          crossRegionReferences: true,
          description: 'Agent skill marketplace: the CloudFront web ACL (us-east-1)',
        })
      : undefined;
  // `cdk deploy --all` deploys the edge stack first: it refuses placeholder operator settings too,
  // so a deploy the marketplace stack would refuse changes nothing anywhere.
  if (edge) refusePlaceholderOperator(edge, readOperatorConfig(scope));
  const marketplace = new MarketplaceStack(scope, name, {
    description: 'Agent skill marketplace: sealed capability packs sold over x402 (USDC on Base)',
    ...(where.region ? { env: { ...account, region: where.region } } : {}),
    ...(edge ? { webAclArn: edge.webAclArn, crossRegionReferences: true } : {}),
  });
  return { marketplace, edge };
}
