/**
 * The one tracer. Powertools Tracer (X-Ray) records each AWS SDK call a function makes (DynamoDB,
 * Secrets Manager, KMS, Step Functions, SSM, CloudFront) as a subsegment of the invocation, with
 * its latency, retries and throttles, so a slow purchase shows which call was slow. Every adapter
 * that builds an SDK client wraps it with `traced`.
 *
 * Outbound HTTP (fetch) is NOT captured: X-Ray would store each request's path, and a keyed
 * JSON-RPC provider carries its key in the path (Alchemy's /v2/<key>), which the RPC secret exists
 * to keep out of clear text; it would also send an X-Amzn-Trace-Id header to the providers and to
 * Stripe. RPC latency is in the logs and the RPC metrics instead.
 *
 * Only the adapters import this module, and they load in each function's own chunk on first use:
 * the X-Ray SDK (about 150 KiB) is not parsed at a cold start's import. For the same reason there
 * is no handler middleware: Lambda's active tracing already opens the invocation's segment, which
 * the SDK calls' subsegments join.
 *
 * Outside Lambda (npm start, tests) Powertools turns tracing off by itself (no AWS_EXECUTION_ENV),
 * so `traced` returns the client as it was and nothing reaches for an X-Ray daemon.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';

export const tracer = new Tracer({
  serviceName: process.env['POWERTOOLS_SERVICE_NAME'] ?? 'skill-market',
  captureHTTPsRequests: false,
});

/** The AWS SDK v3 client, its calls recorded as X-Ray subsegments when tracing is on. */
export const traced = <T>(client: T): T => tracer.captureAWSv3Client(client);
