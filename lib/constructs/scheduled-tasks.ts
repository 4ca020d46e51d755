import { Duration, Validations, type Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnAlias } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Manifest } from '../domain-infra';
import { DomainFunction, domainPartId } from './domain-function';
import { readsPoolPublicKeys, readsPublicKey, readsSecret, type Provision } from './grants';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { INFRA_ENV, SYNTHETIC_FUNDER_KEY_FIELD } from '../../lambdas/contract/env';
import { operatorSecret } from './secrets';

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
    /** The relayer pool's KMS keys, for a task that reads their addresses (payments' balance watch). */
    relayerKeys?: readonly Key[] | undefined;
    /** The escrow operator's KMS key, whose address that task reads too (the watch reports its ETH beside the pool's). */
    escrowOperatorKey?: Key | undefined;
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
    if (infra.scheduledTask.readsRelayerAddress && props.relayerKeys && props.relayerKeys.length > 0)
      readsPoolPublicKeys(task, props.relayerKeys, INFRA_ENV.relayerKmsKeyIds);
    // The escrow operator pays its own gas: the watch reads its address as it reads the pool's.
    if (infra.scheduledTask.readsRelayerAddress && props.escrowOperatorKey)
      readsPublicKey(task, props.escrowOperatorKey, INFRA_ENV.escrowOperatorKmsKeyId);
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

/** What the synthetic purchase is in the stack: its function, the funding wallet's secret, and whether its schedule runs. */
export interface SyntheticPurchase {
  task: DomainFunction;
  secret: Secret;
  scheduled: boolean;
  everyMinutes: number;
}

/**
 * The synthetic purchase (the manifest that declares one, payments): a function that buys the canary
 * as an outside buyer would, with a secret the operator fills with a funded wallet's key. It reads
 * the public base URL, the chain (the RPC secret) and that secret, nothing else: no table, no key.
 * Its schedule runs only when `scheduled` (the stage decides, lib/deploy-config.ts); the function
 * exists either way, for the pipeline's post-deploy invoke.
 */
export function addSyntheticPurchase(
  stack: Stack,
  props: { manifests: readonly Manifest[]; environment: Record<string, string>; provision: Provision; scheduled: boolean },
): SyntheticPurchase | undefined {
  const owner = props.manifests.find((m) => m.infra.syntheticPurchase);
  if (!owner?.infra.syntheticPurchase) return undefined;
  const { domain } = owner;
  const { entry, everyMinutes } = owner.infra.syntheticPurchase;
  const task = new DomainFunction(stack, 'SyntheticPurchase', {
    domain,
    entryFile: entry,
    environment: props.environment,
    // A funding transfer mined, a settlement mined, the ledger read: a few blocks; the rest is room for slow providers.
    timeout: Duration.minutes(5),
    invokedBy: 'schedule',
    // Each attempt is another purchase: a failed run is reported (its metric, the alarm, the queue), not repeated.
    asyncRetries: 0,
  });
  // An outside buyer: the base URL and the chain, as any payments function reads them; no table, no signing key.
  props.provision(task, { tables: [], readsChain: true });
  const secret = operatorSecret(
    stack,
    'SyntheticPurchaseSecret',
    `The synthetic purchase's funding wallet: JSON field ${SYNTHETIC_FUNDER_KEY_FIELD}, the private key of a Base wallet holding USDC and ETH for gas (docs/OPERATIONS.md, "Synthetic purchase")`,
    [SYNTHETIC_FUNDER_KEY_FIELD],
    "It holds the private key of the operator's own funding wallet, made and funded outside AWS; a rotation Lambda cannot make and fund a new wallet. The operator replaces it by writing another funded wallet's key (docs/OPERATIONS.md).",
  );
  readsSecret(task, secret, INFRA_ENV.syntheticFunderSecretArn);
  if (props.scheduled) {
    const role = new Role(stack, 'SyntheticPurchaseSchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'EventBridge Scheduler: invokes the synthetic purchase only',
    });
    new Schedule(stack, 'SyntheticPurchaseSchedule', {
      description:
        'Buys the canary with a fresh wallet and checks the seal and the proof ledger (the SyntheticPurchaseFailed alarm watches it)',
      schedule: ScheduleExpression.rate(Duration.minutes(everyMinutes)),
      target: new LambdaInvoke(task.live, {
        input: ScheduleTargetInput.fromObject({ task: 'synthetic_purchase' }),
        // A run that failed is reported, not repeated at once: each attempt is another purchase.
        retryAttempts: 0,
        role,
      }),
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(task.alias.node.defaultChild as CfnAlias)}>:*]`,
      reason: "lambda:InvokeFunction on this one function's live alias and its qualifiers (`:*`); nothing else.",
    });
  }
  return { task, secret, scheduled: props.scheduled, everyMinutes };
}
