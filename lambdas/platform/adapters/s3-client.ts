import { S3Client } from '@aws-sdk/client-s3';
import { traced } from '../tracer';

let client: S3Client | undefined;

/**
 * The process-wide S3 client (the versions bucket, issue 52). Timeouts are short so that an
 * unreachable bucket turns into a 503 well inside API Gateway's 30 s.
 */
export function s3Client(env: NodeJS.ProcessEnv = process.env): S3Client {
  client ??= traced(
    new S3Client({
      region: env['AWS_REGION'] ?? 'us-east-1',
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
    }),
  );
  return client;
}

/** Whether an S3 call failed only because the key is not there (404 NoSuchKey); by name and status, which every copy of the SDK carries. */
export const isNoSuchKey = (e: unknown): boolean =>
  (e as Error | undefined)?.name === 'NoSuchKey' || (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 404;

/** Whether a conditional write failed because the key already exists (412 PreconditionFailed to If-None-Match: *). */
export const isPreconditionFailed = (e: unknown): boolean =>
  (e as Error | undefined)?.name === 'PreconditionFailed' ||
  (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 412;

/** Whether S3 refused the call (403 AccessDenied): also its answer to a missing key for a reader without s3:ListBucket. */
export const isAccessDenied = (e: unknown): boolean =>
  (e as Error | undefined)?.name === 'AccessDenied' ||
  (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 403;
