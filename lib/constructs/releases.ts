import { Validations, type Stack } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import type { DomainFunction } from './domain-function';
import type { Operations } from './operations';

/**
 * Releases: each deploy publishes a version of every changed function, and CodeDeploy shifts its
 * live alias there, 10 % for five minutes, then the rest; the function's unhandled errors or, for
 * API functions, the API's 5xx rate in a minute and its domain's business alarms (transfers
 * refused, RPC failures) roll the alias back by themselves. Each function's errors page the operator.
 */
export function addReleases(
  stack: Stack,
  props: { functions: readonly DomainFunction[]; apiFunctions: ReadonlySet<DomainFunction>; operations: Operations },
): void {
  const releases = new LambdaApplication(stack, 'Releases');
  const notify = new SnsAction(props.operations.alarmTopic);
  for (const df of props.functions) {
    df.errors.addAlarmAction(notify);
    const group = new LambdaDeploymentGroup(df, 'Release', {
      application: releases,
      alias: df.alias,
      deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
      alarms: props.apiFunctions.has(df)
        ? [df.errors, props.operations.releaseGuard, ...props.operations.businessAlarmsFor(df.domain)]
        : [df.errors],
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
    Validations.of(group).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "CodeDeploy's own service role policy for Lambda deployments (shift aliases, read the alarms, invoke hooks): AWS maintains it with the service, limited to functions and aliases.",
    });
  }
}
