/**
 * Business metrics in CloudWatch's embedded metric format, through Powertools Metrics: each
 * call writes one EMF line to stdout at once (a single metric), so there is nothing to flush at
 * the end of an invocation and no empty-flush warning on requests that emit none. CloudWatch
 * turns the lines into metrics under METRIC_NAMESPACE; the stack's alarms watch them.
 *
 * A line is written only where a metric is wanted: in Lambda (the runtime sets
 * AWS_LAMBDA_FUNCTION_NAME), or wherever POWERTOOLS_METRICS_DISABLED says `false` (a benchmark, the
 * metrics' own tests). The same handlers run in the operator's command-line tools (`npm run
 * reconcile`, `unmatched`, `refund`), which print for a person: there nothing is written, whatever
 * else the environment holds, and the tool's output is its report alone (issue 51).
 * POWERTOOLS_METRICS_DISABLED=true turns them off anywhere (`npm start` sets it).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC_NAMESPACE, type MetricName } from '../contract/metrics';

let instance: Metrics | undefined;
/** Built on first use, so it reads the environment the function runs with. */
const metrics = (): Metrics =>
  (instance ??= new Metrics({ namespace: METRIC_NAMESPACE, serviceName: process.env['POWERTOOLS_SERVICE_NAME'] ?? 'skill-market' }));

/** Read at every call: a tool may set its environment after this module is loaded. */
function wanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = env['POWERTOOLS_METRICS_DISABLED'];
  if (setting !== undefined && setting !== '') return setting.trim().toLowerCase() !== 'true' && setting.trim() !== '1';
  return env['AWS_LAMBDA_FUNCTION_NAME'] !== undefined;
}

function emit(
  name: MetricName,
  unit: (typeof MetricUnit)[keyof typeof MetricUnit],
  value: number,
  dimensions: Readonly<Record<string, string>>,
): void {
  if (!wanted()) return;
  try {
    const single = metrics().singleMetric();
    for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
    // Also recorded per service alone (the default dimension): an alarm cannot sum an open set of
    // dimension values (reasons, providers), and the release alarms watch the service's total.
    if (Object.keys(dimensions).length > 0) single.addDimensions({});
    single.addMetric(name, unit, value);
  } catch {
    // A metric must never fail a purchase: an invalid dimension or a closed stdout is dropped.
  }
}

/** Counts one event (or `value` of them). */
export const countMetric = (name: MetricName, dimensions: Readonly<Record<string, string>> = {}, value = 1): void =>
  emit(name, MetricUnit.Count, value, dimensions);

/** Records a level (a balance, a size): a plain number, no unit. */
export const levelMetric = (name: MetricName, value: number, dimensions: Readonly<Record<string, string>> = {}): void =>
  emit(name, MetricUnit.NoUnit, value, dimensions);

/** Records a duration in milliseconds. */
export const durationMetric = (name: MetricName, ms: number, dimensions: Readonly<Record<string, string>> = {}): void =>
  emit(name, MetricUnit.Milliseconds, ms, dimensions);
