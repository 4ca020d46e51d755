import { Duration, Stack } from 'aws-cdk-lib';
import { CfnBudget } from 'aws-cdk-lib/aws-budgets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, METRICS, type MetricName } from '../../lambdas/contract/metrics';
import { RELAYER_WATCH_EVERY_MINUTES, STUCK_SETTLEMENT_AFTER_MINUTES } from '../../lambdas/contract/schedules';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { domainPartId } from './domain-function';
import type { StreamFold } from './stream-folds';
import type { OperationsConfig } from '../deploy-config';

/** Above this share of 5xx answers over 5 minutes, twice in a row, someone is paged. */
export const FIVE_XX_RATE_PERCENT = 5;

/** The relayer's balance is published every 5 minutes: a 15-minute window with no reading (three runs failed) alarms as a low balance would. */
export const RELAYER_BALANCE_SILENCE = Duration.minutes(15);

/**
 * One business metric summed over the domains whose functions publish it (each under its service,
 * `skill-market-<domain>`): an alarm cannot read a SEARCH expression, so each domain's series is
 * named (`ids`, kept as deployed) and added.
 */
function acrossDomains(o: {
  domains: readonly string[];
  ids: readonly string[];
  metric: MetricName;
  statistic: string;
  period: Duration;
  label: string;
}): MathExpression {
  return new MathExpression({
    label: o.label,
    expression: o.ids.join(' + '),
    usingMetrics: Object.fromEntries(
      o.domains.map((domain, i) => [
        o.ids[i]!,
        new Metric({
          namespace: METRIC_NAMESPACE,
          metricName: o.metric,
          dimensionsMap: { service: `skill-market-${domain}` },
          statistic: o.statistic,
          period: o.period,
        }),
      ]),
    ),
    period: o.period,
  });
}

/** A stream fold handed records that waited this long in the stream has fallen behind: the figures lag by as much. */
export const FOLD_LAG_ALARM = Duration.minutes(5);

/**
 * What an operator watches (docs/OPERATIONS.md): alarms on the API's 5xx rate, on failed
 * confirmation loops, on any difference the reconcile job finds and on the stream folds (a batch
 * given up, a fold behind), all to one SNS topic; and a dashboard of the business metrics the
 * functions publish (lambdas/contract/metrics.ts) and of the folds.
 */
export class Operations extends Construct {
  readonly alarmTopic: Topic;
  readonly dashboard: Dashboard;
  /** The API's 5xx rate over one minute: what CodeDeploy watches while it shifts a release (a bad release answers 503). */
  readonly releaseGuard: Alarm;
  readonly #notify: SnsAction;

  constructor(
    scope: Construct,
    id: string,
    props: {
      api: HttpApi;
      confirmation: StateMachine | undefined;
      dashboardName: string;
      failedRuns?: readonly IQueue[];
      /** The domains whose scheduled tasks run (the reconcile publishes its differences under its function's service name). */
      reconcilers?: readonly string[];
      /** The stream folds: each one's batches given up and its lag are alarmed on. */
      folds?: readonly StreamFold[];
      /** The domains whose functions settle signed authorizations from the relayer, and its hourly revert budget in wei. */
      relayer?:
        | {
            domains: readonly string[];
            revertBudgetWei: string;
            /** The balance it must keep (relayerMinBalanceEth), and the domain whose scheduled task publishes it. */
            minBalanceWei: string;
            watchedBy: string | undefined;
          }
        | undefined;
      /** The domains whose functions sign with a KMS key (the relayer's, the service key): their signer failures are alarmed on. */
      signers?: readonly string[];
      /** Who hears the alarms (an email subscription), and the account's monthly cost budget. */
      reach?: OperationsConfig;
      /** The synthetic purchase's schedule, when it runs: the domain whose function publishes its result, and how often. */
      syntheticPurchase?: { domain: string; everyMinutes: number } | undefined;
    },
  ) {
    super(scope, id);
    this.alarmTopic = new Topic(this, 'Alarms', { displayName: 'skill-market alarms', enforceSSL: true });
    const notify = new SnsAction(this.alarmTopic);
    this.#notify = notify;
    if (props.reach) this.#reachPeople(props.reach);
    const period = Duration.minutes(5);

    const api = (metricName: string) =>
      new Metric({ namespace: 'AWS/ApiGateway', metricName, dimensionsMap: { ApiId: props.api.apiId }, statistic: 'Sum', period });
    const errorRate = new MathExpression({
      label: '5xx rate (%)',
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { errors: api('5xx'), requests: api('Count') },
      period,
    });
    new Alarm(this, 'Api5xxRate', {
      alarmDescription: `More than ${FIVE_XX_RATE_PERCENT} % of API answers were 5xx, two 5-minute periods in a row.`,
      metric: errorRate,
      threshold: FIVE_XX_RATE_PERCENT,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(notify);

    this.releaseGuard = new Alarm(this, 'Api5xxRateDuringRelease', {
      alarmDescription: `More than ${FIVE_XX_RATE_PERCENT} % of API answers were 5xx in the last minute: CodeDeploy rolls a release in progress back.`,
      metric: new MathExpression({
        label: '5xx rate (%), 1 min',
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: new Metric({
            namespace: 'AWS/ApiGateway',
            metricName: '5xx',
            dimensionsMap: { ApiId: props.api.apiId },
            statistic: 'Sum',
            period: Duration.minutes(1),
          }),
          requests: new Metric({
            namespace: 'AWS/ApiGateway',
            metricName: 'Count',
            dimensionsMap: { ApiId: props.api.apiId },
            statistic: 'Sum',
            period: Duration.minutes(1),
          }),
        },
        period: Duration.minutes(1),
      }),
      threshold: FIVE_XX_RATE_PERCENT,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.releaseGuard.addAlarmAction(notify);

    if (props.confirmation) {
      new Alarm(this, 'ConfirmationLoopFailures', {
        alarmDescription: 'A confirmation or finality execution failed (providers undecided, or the task errored): a buyer may be waiting.',
        metric: props.confirmation.metricFailed({ period, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);
    }

    // A scheduled run (the reconcile) that failed after Lambda's retries lands in its task's queue.
    (props.failedRuns ?? []).forEach((queue, i) => {
      new Alarm(this, `ScheduledRunFailed${i}`, {
        alarmDescription:
          'A scheduled task run (the reconcile) failed after its retries; the event and error are in the queue (docs/OPERATIONS.md).',
        metric: queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);
    });

    // Published by the scheduled reconcile, under the service name of the domain whose task runs it.
    const reconcilers = props.reconcilers ?? [];
    if (reconcilers.length > 0) {
      const day = Duration.days(1);
      const ids = reconcilers.map((_, i) => `r${i}`);
      new Alarm(this, 'ReconcileDifferences', {
        alarmDescription:
          'The daily reconcile found figures that differ from a recount of the ledger and card sales (docs/ARCHITECTURE.md, Figures).',
        metric: acrossDomains({
          domains: reconcilers,
          ids,
          metric: METRICS.reconcileDifferences,
          statistic: 'Maximum',
          period: day,
          label: 'reconcile differences',
        }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);
    }

    // The stream folds. A batch that ran out of retries (or records too old to retry) left figures
    // out: its metadata waits in the fold's queue. A fold behind leaves figures late. Its errors page
    // through the function's own Errors alarm (releases.ts).
    for (const { fn, failedBatches } of props.folds ?? []) {
      new Alarm(this, domainPartId(fn.domain, 'FoldFailedBatches'), {
        alarmDescription: `skill-market ${fn.domain} fold: a stream batch was given up (out of retries, or its records too old) and is missing from the figures; its shard and sequence range are in the queue (docs/OPERATIONS.md).`,
        metric: failedBatches.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);
      new Alarm(this, domainPartId(fn.domain, 'FoldLag'), {
        alarmDescription: `skill-market ${fn.domain} fold: it was handed a batch whose newest record had waited ${FOLD_LAG_ALARM.toMinutes()} minutes or more in the stream; the figures lag the tables by as much.`,
        metric: foldLag(fn, period),
        threshold: FOLD_LAG_ALARM.toMilliseconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);
    }

    // The relayer losing gas to reverted transfers (payers whose funds left first): the hour's budget
    // spent pages someone. It refuses nobody: a budget that refused everyone was an off switch (issue 50, I3).
    if (props.relayer && props.relayer.domains.length > 0) {
      const hour = Duration.hours(1);
      const ids = props.relayer.domains.map((_, i) => `g${i}`);
      new Alarm(this, 'RelayerRevertedGas', {
        alarmDescription: `The x402 relayer paid for reverted transfers worth its hourly budget (relayerRevertBudgetEth) or more in the last hour. Each payer that caused one cools down; nobody else is refused (docs/OPERATIONS.md).`,
        metric: acrossDomains({
          domains: props.relayer.domains,
          ids,
          metric: METRICS.relayerRevertGasGwei,
          statistic: 'Sum',
          period: hour,
          label: 'reverted gas (gwei), 1 h',
        }),
        threshold: Number(BigInt(props.relayer.revertBudgetWei)) / 1e9,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);

      // The relayer running short of ETH: every signed authorization is then refused. Read every few
      // minutes by the watch; a run that could not read it publishes nothing, which alarms too.
      if (props.relayer.watchedBy)
        new Alarm(this, 'RelayerBalanceLow', {
          alarmDescription: `A key of the x402 relayer pool, or the escrow operator's key, holds less ETH than relayerMinBalanceEth (or a balance could not be read for ${RELAYER_BALANCE_SILENCE.toMinutes()} minutes): a pool key has left the pool, a short operator authorizes no escrowed payment; top it up (the payments watch's log names it, the operator's marked escrow_operator) before every key is short and signed authorizations are refused (docs/OPERATIONS.md, "The relayer key pool", "The escrow operator key").`,
          metric: new Metric({
            namespace: METRIC_NAMESPACE,
            metricName: METRICS.relayerBalanceGwei,
            dimensionsMap: { service: `skill-market-${props.relayer.watchedBy}` },
            statistic: 'Minimum',
            period: RELAYER_BALANCE_SILENCE,
          }),
          threshold: Number(BigInt(props.relayer.minBalanceWei) / 10n ** 9n),
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.BREACHING,
        }).addAlarmAction(notify);

      // A buyer's payment stuck in flight: a settlement claimed STUCK_SETTLEMENT_AFTER_MINUTES ago
      // and still without an outcome, counted by the same watch. No count is not a page here: the
      // watch's silence already breaches RelayerBalanceLow, and a failed run is in its failed-runs queue.
      if (props.relayer.watchedBy)
        new Alarm(this, 'StuckSettlements', {
          alarmDescription: `An x402 settlement has been in flight (claimed or signed, no outcome) for more than ${STUCK_SETTLEMENT_AFTER_MINUTES} minutes: a buyer's payment may be stuck (docs/OPERATIONS.md, "A settlement stuck in flight").`,
          metric: new Metric({
            namespace: METRIC_NAMESPACE,
            metricName: METRICS.stuckSettlements,
            dimensionsMap: { service: `skill-market-${props.relayer.watchedBy}` },
            statistic: 'Maximum',
            period: Duration.minutes(RELAYER_WATCH_EVERY_MINUTES),
          }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }).addAlarmAction(notify);
    }

    // A KMS key that refuses to sign (disabled, its policy changed, throttled): settlements, receipts
    // and the agent card stop. One failure pages: a healthy key never fails.
    const signers = props.signers ?? [];
    if (signers.length > 0) {
      const ids = signers.map((_, i) => `s${i}`);
      new Alarm(this, 'SignerFailures', {
        alarmDescription:
          'A KMS signature failed (a key of the relayer pool, the escrow operator key or the service key): signed authorizations, escrow captures, receipts or the agent card could not be signed (docs/OPERATIONS.md).',
        metric: acrossDomains({
          domains: signers,
          ids,
          metric: METRICS.signerFailures,
          statistic: 'Sum',
          period,
          label: 'signer failures',
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);
    }

    // The money path checked from outside: a scheduled run that failed (any step), or no run at all
    // over two of its intervals (the function did not start, the schedule stopped), pages someone.
    if (props.syntheticPurchase) {
      const window = Duration.minutes(2 * props.syntheticPurchase.everyMinutes);
      new Alarm(this, 'SyntheticPurchaseFailed', {
        alarmDescription: `The synthetic purchase of the canary failed (its Step dimension says where: setup, fund, buy, seal, ledger) or did not run for ${window.toMinutes()} minutes: the money path may be broken for buyers (docs/OPERATIONS.md, "Synthetic purchase").`,
        metric: new Metric({
          namespace: METRIC_NAMESPACE,
          metricName: METRICS.syntheticPurchaseFailures,
          dimensionsMap: { service: `skill-market-${props.syntheticPurchase.domain}` },
          statistic: 'Maximum',
          period: window,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.BREACHING,
      }).addAlarmAction(notify);
    }

    this.dashboard = operationsDashboard(this, props, api('Count'), errorRate, period);
  }

  /**
   * The business alarms a release of one API domain's function is watched by, on what that domain's
   * function publishes (service `skill-market-<domain>`, the per-service totals lambdas/platform/metrics.ts
   * records): most transfers refused (a release that rejects good payments), and RPC providers failing
   * (a release that cannot read the chain). Thresholds in docs/OPERATIONS.md.
   */
  businessAlarmsFor(domain: string): Alarm[] {
    const service = `skill-market-${domain}`;
    const minute = Duration.minutes(1);
    const metric = (name: MetricName) =>
      new Metric({ namespace: METRIC_NAMESPACE, metricName: name, dimensionsMap: { service }, statistic: 'Sum', period: minute });
    const alarms = [
      new Alarm(this, `${domain}RefusalRate`, {
        alarmDescription: `${service}: more than ${RELEASE_REFUSAL_PERCENT} % of at least ${RELEASE_MIN_VERIFICATIONS} transfer verifications a minute were refused, two minutes running.`,
        metric: new MathExpression({
          label: 'refused verifications (%)',
          expression: `IF(unlocks + refused >= ${RELEASE_MIN_VERIFICATIONS}, 100 * refused / (unlocks + refused), 0)`,
          usingMetrics: { unlocks: metric(METRICS.unlocks), refused: metric(METRICS.verificationFailures) },
          period: minute,
        }),
        threshold: RELEASE_REFUSAL_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, `${domain}RpcFailures`, {
        alarmDescription: `${service}: ${RELEASE_RPC_FAILURES} or more RPC provider failures a minute, two minutes running.`,
        metric: metric(METRICS.rpcProviderFailures),
        threshold: RELEASE_RPC_FAILURES,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ];
    for (const a of alarms) a.addAlarmAction(this.#notify);
    return alarms;
  }

  /**
   * An alarm nobody hears is no alarm: the topic mails the operator's address (AWS sends a
   * confirmation link first), and an AWS Budgets cost budget for the account publishes to the same
   * topic at 80 % of the month's budget spent and at 100 % forecast. Budgets publishes only to a
   * topic whose policy lets its service principal, for this account.
   */
  #reachPeople(reach: OperationsConfig): void {
    if (reach.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(reach.alarmEmail));
    const account = Stack.of(this).account;
    this.alarmTopic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'BudgetsPublish',
        principals: [new ServicePrincipal('budgets.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarmTopic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': account } },
      }),
    );
    const toTopic = [{ subscriptionType: 'SNS', address: this.alarmTopic.topicArn }];
    new CfnBudget(this, 'MonthlyCost', {
      budget: {
        budgetName: `skill-market-${Stack.of(this).stackName}`,
        budgetType: 'COST',
        timeUnit: 'MONTHLY',
        budgetLimit: { amount: reach.monthlyBudgetUsd, unit: 'USD' },
      },
      notificationsWithSubscribers: [
        {
          notification: { notificationType: 'ACTUAL', comparisonOperator: 'GREATER_THAN', threshold: 80, thresholdType: 'PERCENTAGE' },
          subscribers: toTopic,
        },
        {
          notification: { notificationType: 'FORECASTED', comparisonOperator: 'GREATER_THAN', threshold: 100, thresholdType: 'PERCENTAGE' },
          subscribers: toTopic,
        },
      ],
    });
  }
}

/**
 * A fold's lag (ms): Lambda's IteratorAge, how long the newest record of each batch waited in the
 * stream before the mapping handed it over; over every version of the function, whichever the live
 * alias points to.
 */
const foldLag = (fold: StreamFold['fn'], period: Duration): Metric => fold.fn.metric('IteratorAge', { statistic: 'Maximum', period });

/**
 * The operator's dashboard: the business metrics the functions publish (each function its own
 * service dimension, so summed by search), the API's requests and 5xx rate, the confirmation loop,
 * the stream folds.
 * Made in the Operations construct's scope, so its logical id is the one it always had.
 */
function operationsDashboard(
  scope: Construct,
  props: { confirmation: StateMachine | undefined; dashboardName: string; folds?: readonly StreamFold[] },
  requests: Metric,
  errorRate: MathExpression,
  period: Duration,
): Dashboard {
  // The business metrics come from several functions (each its own service dimension): summed by search.
  const total = (name: MetricName, label: string) =>
    new MathExpression({ label, expression: `SUM(SEARCH('{${METRIC_NAMESPACE},service} MetricName="${name}"', 'Sum', 300))`, period });
  const by = (name: MetricName, dimension: string, stat: string) =>
    new MathExpression({
      label: `${name} by ${dimension}`,
      expression: `SEARCH('{${METRIC_NAMESPACE},${dimension},service} MetricName="${name}"', '${stat}', 300)`,
      period,
    });

  const dashboard = new Dashboard(scope, 'Dashboard', { dashboardName: props.dashboardName });
  dashboard.addWidgets(
    new TextWidget({
      markdown:
        "# skill-market\nBusiness metrics (namespace `SkillMarket`), the API, the confirmation loop and the stream folds. Alarms go to the stack's `AlarmTopicArn`.",
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(
    new SingleValueWidget({
      title: 'Last 24 h',
      metrics: [total(METRICS.unlocks, 'unlocks'), total(METRICS.checkoutCompletions, 'card sales')],
      period: Duration.days(1),
      width: 8,
    }),
    new GraphWidget({ title: 'API requests and 5xx rate', left: [requests], right: [errorRate], width: 8 }),
    new GraphWidget({
      title: 'Confirmation loop',
      left: props.confirmation ? [props.confirmation.metricSucceeded({ period }), props.confirmation.metricFailed({ period })] : [],
      width: 8,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Unlocks and card sales',
      left: [total(METRICS.unlocks, 'unlocks'), total(METRICS.checkoutCompletions, 'card sales')],
      width: 8,
    }),
    new GraphWidget({ title: 'Verification failures by reason', left: [by(METRICS.verificationFailures, 'Reason', 'Sum')], width: 8 }),
    new GraphWidget({ title: 'Requests refused with 429, by scope', left: [by(METRICS.rateLimited, 'Scope', 'Sum')], width: 8 }),
  );
  dashboard.addWidgets(
    new GraphWidget({ title: 'RPC latency p90 (ms), by provider', left: [by(METRICS.rpcLatency, 'Provider', 'p90')], width: 8 }),
    new GraphWidget({ title: 'RPC provider failures', left: [by(METRICS.rpcProviderFailures, 'Provider', 'Sum')], width: 8 }),
    new GraphWidget({
      title: 'Books: reconcile differences (must be 0); treasury transfers no claim matches',
      left: [total(METRICS.reconcileDifferences, 'differences')],
      right: [total(METRICS.unmatchedTransfers, 'unmatched transfers')],
      width: 8,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Relayer: reverted transfers and their gas (gwei)',
      left: [total(METRICS.relayerReverts, 'reverts')],
      right: [total(METRICS.relayerRevertGasGwei, 'gwei')],
      width: 8,
    }),
    new GraphWidget({
      title: 'Relayer: ETH balance (gwei), read every 5 minutes; KMS signer failures; settlements stuck in flight',
      left: [
        new MathExpression({
          label: 'balance (gwei)',
          expression: `MIN(SEARCH('{${METRIC_NAMESPACE},service} MetricName="${METRICS.relayerBalanceGwei}"', 'Minimum', 300))`,
          period,
        }),
      ],
      right: [
        total(METRICS.signerFailures, 'signer failures'),
        new MathExpression({
          label: 'stuck settlements',
          expression: `MAX(SEARCH('{${METRIC_NAMESPACE},service} MetricName="${METRICS.stuckSettlements}"', 'Maximum', 300))`,
          period,
        }),
      ],
      width: 8,
    }),
    new GraphWidget({
      title: 'Signed authorizations refused before sending, by reason',
      left: [by(METRICS.settlementsRefused, 'Reason', 'Sum')],
      width: 8,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Synthetic purchase of the canary: 1 a failed run, by step (0 a passed one)',
      left: [by(METRICS.syntheticPurchaseFailures, 'Step', 'Maximum')],
      right: [
        new MathExpression({
          label: 'runs (0 passed, 1 failed)',
          expression: `MAX(SEARCH('{${METRIC_NAMESPACE},service} MetricName="${METRICS.syntheticPurchaseFailures}"', 'Maximum', 300))`,
          period,
        }),
      ],
      width: 8,
    }),
  );
  const folds = props.folds ?? [];
  if (folds.length > 0) {
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Stream folds: lag behind the tables (ms)',
        left: folds.map((f) => foldLag(f.fn, period).with({ label: `${f.fn.domain} fold` })),
        width: 12,
      }),
      new GraphWidget({
        title: 'Stream folds: errors, and batches given up',
        left: folds.map((f) => f.fn.alias.metricErrors({ period, statistic: 'Sum', label: `${f.fn.domain} fold errors` })),
        right: folds.map((f) =>
          f.failedBatches.metricApproximateNumberOfMessagesVisible({
            period,
            statistic: 'Maximum',
            label: `${f.fn.domain} batches given up`,
          }),
        ),
        width: 12,
      }),
    );
  }
  return dashboard;
}

/** A release is rolled back when more than this share of transfer verifications is refused... */
export const RELEASE_REFUSAL_PERCENT = 50;
/** ...out of at least this many a minute (below it, a few buyers' mistakes would decide). */
export const RELEASE_MIN_VERIFICATIONS = 5;
/** RPC provider failures a minute that roll a release back: a release that cannot read the chain. */
export const RELEASE_RPC_FAILURES = 10;
