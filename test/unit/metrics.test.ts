/**
 * The business metrics leave as CloudWatch embedded-metric lines, named from the one list the
 * alarms use, with their dimensions; a failing metric never fails the request.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { METRIC_NAMESPACE, METRICS } from '../../lambdas/contract/metrics';

beforeAll(() => {
  process.env['POWERTOOLS_METRICS_DISABLED'] = 'false';
  process.env['POWERTOOLS_SERVICE_NAME'] = 'skill-market-test';
});
afterEach(() => vi.restoreAllMocks());

/** The EMF lines written while `fn` runs. */
async function emitted(fn: () => unknown): Promise<any[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  await fn();
  spy.mockRestore();
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('_aws'))
    .map((l) => JSON.parse(l));
}

describe('business metrics', () => {
  it('count an event with its dimensions in the SkillMarket namespace', async () => {
    const { countMetric } = await import('../../lambdas/platform/metrics');
    const [emf] = await emitted(() => countMetric(METRICS.verificationFailures, { Reason: 'underpaid' }));
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: METRIC_NAMESPACE,
      Metrics: [{ Name: 'VerificationFailures', Unit: 'Count' }],
    });
    expect(emf._aws.CloudWatchMetrics[0].Dimensions[0]).toEqual(expect.arrayContaining(['Reason', 'service']));
    // And per service alone, which is what an alarm can sum across reasons.
    expect(emf._aws.CloudWatchMetrics[0].Dimensions).toContainEqual(['service']);
    expect(emf).toMatchObject({ VerificationFailures: 1, Reason: 'underpaid', service: 'skill-market-test' });
  });

  it('are emitted by the paths that own them: a 429 counts RateLimited by scope', async () => {
    const { rateLimited } = await import('../../lambdas/platform/rate-limit');
    const [emf] = await emitted(() => rateLimited(3, { scope: 'unlock', requests: 300, perSeconds: 60 }));
    expect(emf).toMatchObject({ RateLimited: 1, Scope: 'unlock' });
  });

  it('record durations in milliseconds, and drop a metric that cannot be written', async () => {
    const { countMetric, durationMetric } = await import('../../lambdas/platform/metrics');
    const [emf] = await emitted(() => durationMetric(METRICS.rpcLatency, 42, { Provider: 'https://rpc.example' }));
    expect(emf._aws.CloudWatchMetrics[0].Metrics[0]).toEqual({ Name: 'RpcLatency', Unit: 'Milliseconds' });
    expect(emf.RpcLatency).toBe(42);
    // Powertools refuses an empty dimension value; the caller's purchase must not notice.
    expect(() => countMetric(METRICS.unlocks, { Reason: '' })).not.toThrow();
  });
});

describe('where metrics are written', () => {
  const saved = { disabled: process.env['POWERTOOLS_METRICS_DISABLED'], fn: process.env['AWS_LAMBDA_FUNCTION_NAME'] };
  afterEach(() => {
    process.env['POWERTOOLS_METRICS_DISABLED'] = saved.disabled;
    if (saved.fn === undefined) delete process.env['AWS_LAMBDA_FUNCTION_NAME'];
    else process.env['AWS_LAMBDA_FUNCTION_NAME'] = saved.fn;
  });

  it('not by a command-line tool: outside Lambda, with nothing said, no EMF line reaches stdout', async () => {
    delete process.env['POWERTOOLS_METRICS_DISABLED'];
    delete process.env['AWS_LAMBDA_FUNCTION_NAME'];
    const { countMetric } = await import('../../lambdas/platform/metrics');
    expect(await emitted(() => countMetric(METRICS.reconcileDifferences, {}, 0))).toEqual([]);
  });

  it('in Lambda, where CloudWatch reads them from the log', async () => {
    delete process.env['POWERTOOLS_METRICS_DISABLED'];
    process.env['AWS_LAMBDA_FUNCTION_NAME'] = 'skill-market-ledger-scheduled';
    const { countMetric } = await import('../../lambdas/platform/metrics');
    const [emf] = await emitted(() => countMetric(METRICS.reconcileDifferences, {}, 0));
    expect(emf).toMatchObject({ ReconcileDifferences: 0 });
  });

  it('wherever POWERTOOLS_METRICS_DISABLED=false asks for them (a benchmark, these tests)', async () => {
    delete process.env['AWS_LAMBDA_FUNCTION_NAME'];
    process.env['POWERTOOLS_METRICS_DISABLED'] = 'false';
    const { countMetric } = await import('../../lambdas/platform/metrics');
    expect(await emitted(() => countMetric(METRICS.reconcileDifferences, {}, 0))).toHaveLength(1);
  });
});
