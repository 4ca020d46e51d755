import { Duration, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import type { CfnAlias } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  Fail,
  JsonPath,
  LogLevel,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  Wait,
  WaitTime,
  type IChainable,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import {
  CONFIRMATION_RETRY_DELAYS_SECONDS,
  ESCROW_EXPIRY_RETRY_DELAYS_SECONDS,
  FINALITY_RETRY_DELAYS_SECONDS,
} from '../../lambdas/contract/confirmation-policy';
import { ESCROW_CAPTURE_SECONDS_MAX } from '../../lambdas/contract/settings';
import type { Manifest } from '../domain-infra';
import { DomainFunction } from './domain-function';
import type { Provision } from './grants';

/** The confirmation loop: the task function and the state machine that runs it. */
export interface ConfirmationLoop {
  readonly task: DomainFunction;
  readonly machine: StateMachine;
}

/**
 * The confirmation loop, if some domain starts confirmations and one owns the task: a Step
 * Functions execution per early transfer (and per claim, for its finality check) re-runs the
 * same settle task, a function of the domain whose manifest owns it, with that domain's grants.
 * Made in the stack's own scope: the states and resources keep the logical ids they are deployed with.
 */
export function addConfirmationLoop(
  stack: Stack,
  props: {
    manifests: readonly Manifest[];
    startsConfirmations: boolean;
    environment: Record<string, string>;
    provision: Provision;
    reorgWindowSeconds: number;
  },
): ConfirmationLoop | undefined {
  const owner = props.manifests.find((m) => m.infra.confirmationTask !== undefined);
  if (!owner || !props.startsConfirmations) return undefined;
  // The task re-verifies and claims; it never unlocks, so it carries the catalog but not the sealed packs.
  const task = new DomainFunction(stack, 'ConfirmationTask', {
    domain: owner.domain,
    entryFile: owner.infra.confirmationTask!,
    environment: props.environment,
    invokedBy: 'state-machine',
  });
  props.provision(task, owner.infra);
  return { task, machine: confirmationStateMachine(stack, task, props.reorgWindowSeconds) };
}

/**
 * One execution per transfer that needs the chain again, built from the policy constants the
 * local loop also reads. `confirm` (a transfer that came too early): wait 2 s → attempt →
 * pending? wait 4 s → attempt … → unlocked goes on to the finality check, failed ends Refused,
 * and running out of waits fails as NotConfirmedInTime. `finality` (every first claim): wait the
 * reorg window → re-verify → final ends Final, reorged ends Revoked, undecided (providers lagging
 * or down) retries after 30, 60, 120, 240 s, then fails as FinalityUndecided. Operators can alarm
 * on both failures.
 */
function confirmationStateMachine(stack: Stack, task: DomainFunction, reorgWindowSeconds: number): StateMachine {
  const attempt = (id: string, finality: boolean) =>
    new LambdaInvoke(stack, id, {
      lambdaFunction: task.live,
      payloadResponseOnly: true,
      resultPath: '$.result',
      ...(finality
        ? {
            payload: TaskInput.fromObject({
              network: JsonPath.stringAt('$.network'),
              txHash: JsonPath.stringAt('$.txHash'),
              skill: JsonPath.stringAt('$.skill'),
              kind: 'finality',
            }),
          }
        : {}),
    });

  /**
   * wait → attempt → decide, once per delay: a status in `outcomes` ends the loop there, any
   * other waits for the next try; after the last, `giveUp`. State ids end in the try's number.
   */
  const retryLoop = (
    ids: { wait: string; attempt: string; decide: string },
    delays: readonly number[],
    finality: boolean,
    outcomes: readonly [string, IChainable][],
    giveUp: IChainable,
  ): IChainable => {
    let next = giveUp;
    [...delays].reverse().forEach((delay, i) => {
      const n = delays.length - i;
      const tryOnce = attempt(`${ids.attempt}${n}`, finality);
      const decide = new Choice(stack, `${ids.decide}${n}`);
      for (const [status, target] of outcomes) decide.when(Condition.stringEquals('$.result.status', status), target);
      decide.otherwise(next);
      const wait = new Wait(stack, `${ids.wait}${n}`, { time: WaitTime.duration(Duration.seconds(delay)) });
      wait.next(tryOnce);
      tryOnce.next(decide);
      next = wait;
    });
    return next;
  };

  // The finality check, entered from a confirmed claim or directly.
  const finality = retryLoop(
    { wait: 'FinalityWait', attempt: 'FinalityCheck', decide: 'DecideFinality' },
    [reorgWindowSeconds, ...FINALITY_RETRY_DELAYS_SECONDS],
    true,
    [
      ['final', new Succeed(stack, 'Final', { comment: 'The claim is still on chain after the reorg window.' })],
      ['reorged', new Succeed(stack, 'Revoked', { comment: 'A reorganisation dropped the transfer; the claim is marked reorged.' })],
      ['failed', new Succeed(stack, 'NothingToCheck', { comment: 'No confirmed claim of this transfer is on the ledger.' })],
    ],
    new Fail(stack, 'FinalityUndecided', {
      error: 'FinalityUndecided',
      cause: 'The providers could not say whether the claimed transfer is still on chain.',
    }),
  );
  const confirm = retryLoop(
    { wait: 'Wait', attempt: 'Attempt', decide: 'Decide' },
    CONFIRMATION_RETRY_DELAYS_SECONDS,
    false,
    [
      ['unlocked', finality],
      [
        'failed',
        new Succeed(stack, 'Refused', { comment: 'The transfer cannot unlock: wrong, reverted, reorged or claimed by another caller.' }),
      ],
    ],
    new Fail(stack, 'NotConfirmedInTime', {
      error: 'NotConfirmedInTime',
      cause: 'The transfer did not reach the required confirmations within the retry policy.',
    }),
  );
  // An escrowed payment no request delivered: wait until its time ($.at), then end it (captured if
  // sold, else voided), retrying while that is not mined.
  const expiry = new Wait(stack, 'EscrowExpiryWait', { time: WaitTime.timestampPath('$.at') });
  expiry.next(
    retryLoop(
      { wait: 'EscrowWait', attempt: 'EscrowEnd', decide: 'DecideEscrow' },
      ESCROW_EXPIRY_RETRY_DELAYS_SECONDS,
      false,
      [
        [
          'unlocked',
          new Succeed(stack, 'EscrowEnded', { comment: 'Captured for its sale, or voided: the escrow gave the payer its money back.' }),
        ],
        ['failed', new Succeed(stack, 'EscrowLeft', { comment: 'Captured, voided or reclaimed already: nothing to end.' })],
      ],
      new Fail(stack, 'EscrowNotEnded', {
        error: 'EscrowNotEnded',
        cause: 'The escrowed payment could not be ended in time; its payer can reclaim it after the capture deadline.',
      }),
    ),
  );
  const start = new Choice(stack, 'Kind')
    .when(Condition.stringEquals('$.kind', 'finality'), finality)
    .when(Condition.stringEquals('$.kind', 'escrow_expiry'), expiry)
    .otherwise(confirm);

  const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
  const logs = new LogGroup(stack, 'ConfirmationLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
  const machine = new StateMachine(stack, 'Confirmation', {
    comment: 'Re-verifies a transfer that arrived before it had enough confirmations, and every claim once it is past the reorg window',
    definitionBody: DefinitionBody.fromChainable(start),
    stateMachineType: StateMachineType.STANDARD,
    // Every wait of the longest path, plus a minute per attempt at most: an escrowed payment's
    // expiry (its capture window at the longest, a challenge's minute and timeout beside it, a day
    // of slack), or the confirmation and finality path.
    timeout: Duration.seconds(
      Math.max(
        sum(CONFIRMATION_RETRY_DELAYS_SECONDS) +
          reorgWindowSeconds +
          sum(FINALITY_RETRY_DELAYS_SECONDS) +
          60 * (CONFIRMATION_RETRY_DELAYS_SECONDS.length + FINALITY_RETRY_DELAYS_SECONDS.length + 1),
        ESCROW_CAPTURE_SECONDS_MAX + 86_400 + sum(ESCROW_EXPIRY_RETRY_DELAYS_SECONDS) + 60 * ESCROW_EXPIRY_RETRY_DELAYS_SECONDS.length,
      ),
    ),
    logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: true },
    tracingEnabled: true,
  });
  Validations.of(machine.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(task.alias.node.defaultChild as CfnAlias)}>:*]`,
    reason: "lambda:InvokeFunction on the confirmation task's live alias and its qualifiers (`:*`); no other function.",
  });
  Validations.of(machine.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Execution logging and tracing: the CloudWatch Logs delivery actions (logs:CreateLogDelivery and the like) and xray:PutTraceSegments support no resource-level permissions.',
  });
  return machine;
}
