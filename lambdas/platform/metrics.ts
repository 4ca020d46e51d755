/**
 * Business metrics in CloudWatch's embedded metric format, through Powertools Metrics: each
 * call writes one EMF line to stdout at once (a single metric), so there is nothing to flush at
 * the end of an invocation and no empty-flush warning on requests that emit none. CloudWatch
 * turns the lines into metrics under METRIC_NAMESPACE; the stack's alarms watch them. Locally
 * `npm start` sets POWERTOOLS_METRICS_DISABLED, so nothing is printed.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC_NAMESPACE, type MetricName } from '../contract/metrics';

let instance: Metrics | undefined;
/** Built on first use, so it reads the environment the function runs with. */
const metrics = (): Metrics =>
  (instance ??= new Metrics({ namespace: METRIC_NAMESPACE, serviceName: process.env['POWERTOOLS_SERVICE_NAME'] ?? 'skill-market' }));

function emit(
  name: MetricName,
  unit: (typeof MetricUnit)[keyof typeof MetricUnit],
  value: number,
  dimensions: Readonly<Record<string, string>>,
): void {
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
