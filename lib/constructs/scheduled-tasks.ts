import { Duration, Validations, type Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnAlias } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Manifest } from '../domain-infra';
import { DomainFunction, domainPartId } from './domain-function';
import { readsPublicKey, type Provision } from './grants';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { INFRA_ENV } from '../../lambdas/contract/env';

/**
 * Scheduled tasks (the daily reconcile): EventBridge Scheduler invokes a function of the
 * domain that owns the task, with that domain's grants; the scheduler's role may invoke only it.
 * Returns the task functions and the queues where their failed runs land.
 */
export function addScheduledTasks(
  stack: Stack,
  props: {
    manifests: readonly Manifest[];
    environment: Record<string, string>;
    provision: Provision;
    /** The relayer's KMS key, for a task that reads its address (payments' balance watch). */
    relayerKey?: Key | undefined;
  },
): { tasks: DomainFunction[]; failedRuns: IQueue[] } {
  const tasks: DomainFunction[] = [];
  const failedRuns: IQueue[] = [];
  for (const { domain, infra } of props.manifests) {
    if (!infra.scheduledTask) continue;
    const task = new DomainFunction(stack, domainPartId(domain, 'ScheduledTask'), {
      domain,
      entryFile: infra.scheduledTask.entry,
      environment: props.environment,
      // A reconcile reads every record: give it Lambda's whole 15 minutes and room for the recount.
      timeout: Duration.minutes(15),
      memorySize: 1024,
      invokedBy: 'schedule',
    });
    if (task.deadLetterQueue) failedRuns.push(task.deadLetterQueue);
    tasks.push(task);
    // A scheduled task (reconciling the figures) never settles a payment: no relayer key for it.
    props.provision(task, { ...infra, relaysPayments: false });
    // Watching the relayer needs its address, which is the key's public key: no signature.
    if (infra.scheduledTask.readsRelayerAddress && props.relayerKey) readsPublicKey(task, props.relayerKey, INFRA_ENV.relayerKmsKeyId);
    const schedulerRole = new Role(stack, domainPartId(domain, 'SchedulerRole'), {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: `EventBridge Scheduler: invokes the ${domain} scheduled task only`,
    });
    for (const run of infra.scheduledTask.schedules) {
      new Schedule(stack, run.id, {
        description: run.description,
        schedule: ScheduleExpression.rate(Duration.minutes(run.everyMinutes)),
        target: new LambdaInvoke(task.live, {
          input: ScheduleTargetInput.fromObject(run.input),
          retryAttempts: 2,
          role: schedulerRole,
        }),
      });
    }
    Validations.of(schedulerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(task.alias.node.defaultChild as CfnAlias)}>:*]`,
      reason: "lambda:InvokeFunction on this one function's live alias and its qualifiers (`:*`); nothing else.",
    });
  }
  return { tasks, failedRuns };
}
