import { CfnOutput, type Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { links } from '../../lambdas/contract/links';
import { SYNTHETIC_FUNDER_KEY_FIELD } from '../../lambdas/contract/env';
import { SECRET_SETTINGS, SETTINGS } from '../../lambdas/contract/settings';
import type { Cdn } from './cdn';
import type { FinanceExports } from './finance-exports';
import type { Operations } from './operations';
import type { StackSecrets } from './secrets';
import type { SyntheticPurchase } from './scheduled-tasks';

/**
 * The stack's outputs: what the operator reads after a deploy (docs/OPERATIONS.md, "After the
 * deploy"). In the stack's own scope, under the names operators and scripts already read.
 */
export function addOutputs(
  stack: Stack,
  props: {
    /** The configured base URL, if any (lib/constructs/deploy-settings.ts). */
    publicBaseUrl: string | undefined;
    cdn: Cdn;
    api: HttpApi;
    siteBucket: IBucket;
    secrets: StackSecrets;
    tables: ReadonlyMap<string, Table>;
    operations: Operations;
    finance: FinanceExports;
    syntheticPurchase: SyntheticPurchase;
  },
): { syntheticPurchaseFunctionName: CfnOutput } {
  const { cdn, secrets, finance } = props;
  new CfnOutput(stack, 'BaseUrl', {
    value: cdn.customDomain ? `https://${cdn.customDomain.name}` : `https://${cdn.distribution.distributionDomainName}`,
    description: 'The one base URL: catalog, pages and /api/*',
  });
  new CfnOutput(stack, 'ApiEndpoint', { value: props.api.apiEndpoint, description: 'API Gateway endpoint (prefer BaseUrl)' });
  new CfnOutput(stack, 'SiteBucketName', { value: props.siteBucket.bucketName });
  if (secrets.rpcSecret) {
    new CfnOutput(stack, 'RpcSecretArn', {
      value: secrets.rpcSecret.secretArn,
      description: `Put JSON-RPC URLs with API keys here (JSON: ${SETTINGS.rpcUrls.env}, comma-separated); tried before the rpcUrls setting; docs/OPERATIONS.md`,
    });
  }
  if (secrets.stripeSecret) {
    new CfnOutput(stack, 'StripeSecretArn', {
      value: secrets.stripeSecret.secretArn,
      description: `Put the Stripe keys here (JSON: ${SECRET_SETTINGS.stripeSecretKey.env}, ${SECRET_SETTINGS.stripeWebhookSecret.env}); docs/CHECKOUT.md`,
    });
    new CfnOutput(stack, 'StripeWebhookUrl', {
      value: links(props.publicBaseUrl ?? `https://${cdn.distribution.distributionDomainName}`).stripe_webhook,
      description:
        'Register this endpoint in Stripe (events checkout.session.completed, .async_payment_succeeded, .async_payment_failed, .expired)',
    });
  }
  if (secrets.escrowOperatorKey) {
    new CfnOutput(stack, 'EscrowOperatorKeyArn', {
      value: secrets.escrowOperatorKey.keyArn,
      description:
        'The x402 auth-capture escrow operator key: fund its address with ETH, then run npm run guard-operator with ESCROW_OPERATOR_KMS_KEY_ID set to it (docs/OPERATIONS.md, "The escrow operator key")',
    });
  }
  for (const [name, table] of props.tables) new CfnOutput(stack, `${name}TableName`, { value: table.tableName });
  new CfnOutput(stack, 'AlarmTopicArn', {
    value: props.operations.alarmTopic.topicArn,
    description: 'Subscribe to be told when an alarm fires',
  });
  new CfnOutput(stack, 'FinanceExportsBucket', {
    value: finance.bucket.bucketName,
    description: 'Daily DynamoDB exports of the ledger and card sales',
  });
  new CfnOutput(stack, 'FinanceAthenaWorkGroup', {
    value: finance.workGroupName,
    description: `Athena workgroup with the revenue-rollup named query over database ${finance.databaseName}`,
  });
  new CfnOutput(stack, 'SyntheticPurchaseSecretArn', {
    value: props.syntheticPurchase.secret.secretArn,
    description: `Put the synthetic purchase's funding wallet key here (JSON: ${SYNTHETIC_FUNDER_KEY_FIELD}); docs/OPERATIONS.md, "Synthetic purchase"`,
  });
  const syntheticPurchaseFunctionName = new CfnOutput(stack, 'SyntheticPurchaseFunctionName', {
    value: props.syntheticPurchase.task.fn.functionName,
    description: `Invoke it (no payload) to buy the canary end to end: { ok: true, ... }, or a FunctionError naming the failed step; scheduled: ${props.syntheticPurchase.scheduled ? 'on' : 'off'}`,
  });
  return { syntheticPurchaseFunctionName };
}
