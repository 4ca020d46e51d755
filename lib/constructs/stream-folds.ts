import { Duration, Validations, type Stack } from 'aws-cdk-lib';
import type { ITable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { TABLES } from '../../lambdas/contract/tables';
import type { Manifest } from '../domain-infra';
import { DomainFunction, domainPartId } from './domain-function';
import type { Provision } from './grants';

/**
 * How each fold's event source mappings read their streams. Figures may lag a purchase by
 * seconds, so a batch waits up to a second to fill; the tumbling window is there for what it
 * puts in the event: Lambda adds `shardId` only to tumbling-window events, and the fold's
 * idempotency keys on the shard (it keeps no window state: it answers `state: {}`).
 * One batch per shard at a time keeps each shard's records in order. A failing batch is retried
 * whole (the fold throws; the counters remember the last record each shard applied, so a retry
 * adds nothing twice) a bounded number of times, and a record older than `maxRecordAge` is not
 * retried: either way the batch's metadata (shard and sequence range, not the records) goes to the
 * fold's FailedBatches queue and an alarm fires, while the stream (24 hours) still holds the
 * records it names; the daily reconcile shows the figures left out.
 *
 * Not `bisectBatchOnError`: Lambda documents only the retry limit and the record age as supported
 * with tumbling windows, so a record the fold cannot apply gives up its whole batch, not itself
 * alone. Not `reportBatchItemFailures` either: the fold never answers with a partial failure.
 */
export const STREAM_FOLD_SETTINGS = {
  startingPosition: StartingPosition.TRIM_HORIZON,
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(1),
  tumblingWindow: Duration.seconds(60),
  parallelizationFactor: 1,
  retryAttempts: 10,
  maxRecordAge: Duration.hours(6),
} as const;

/** One domain's stream fold: its function, and the queue where batches that ran out of retries are recorded. */
export interface StreamFold {
  readonly fn: DomainFunction;
  readonly failedBatches: Queue;
}

/**
 * A fold function per manifest with `streamFold` (`<Domain>StreamFold`), with its domain's table
 * grants and nothing else, invoked by one DynamoDB Streams event source mapping per table it
 * names, on its live alias (a release shifts the mappings' invocations with the alias).
 */
export function addStreamFolds(
  stack: Stack,
  props: {
    manifests: readonly Manifest[];
    environment: Record<string, string>;
    provision: Provision;
    tables: ReadonlyMap<string, Table>;
  },
): StreamFold[] {
  const folds: StreamFold[] = [];
  for (const { domain, infra } of props.manifests) {
    if (!infra.streamFold) continue;
    const fn = new DomainFunction(stack, domainPartId(domain, 'StreamFold'), {
      domain,
      entryFile: infra.streamFold.entry,
      environment: props.environment,
      // A batch is a hundred records' counter updates; a stuck call should fail and be retried, not hold the shard.
      timeout: Duration.seconds(60),
      invokedBy: 'stream',
    });
    // The tables only: a fold reads records and writes counters, it never signs, settles or reads a secret.
    props.provision(fn, { tables: infra.tables });
    const failedBatches = new Queue(fn, 'FailedBatches', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    for (const name of infra.streamFold.tables) {
      const table = props.tables.get(name);
      if (!table || !TABLES.find((d) => d.logicalName === name)?.stream)
        throw new Error(`The ${domain} manifest folds the stream of ${name}, which is not a table with a stream`);
      // aws-cdk-lib's Table declares `tableStreamArn?: string` where ITable has `string | undefined`, which only
      // exactOptionalPropertyTypes notices (as with Version and Alias in domain-function.ts).
      const source = new DynamoEventSource(table as unknown as ITable, { ...STREAM_FOLD_SETTINGS, onFailure: new SqsDlq(failedBatches) });
      fn.live.addEventSource(source);
    }
    folds.push({ fn, failedBatches });

    for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']) {
      Validations.of(failedBatches).acknowledge({
        id,
        reason:
          'This queue is itself where the fold’s failed batches end (the event source mappings’ on-failure destination); an alarm watches its depth.',
      });
    }
    Validations.of(fn.fn.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Besides tracing: dynamodb:ListStreams, which Lambda’s stream poller needs and CDK’s Table.grantStreamRead grants on "*"; it lists stream ARNs only. The records are read (DescribeStream, GetRecords, GetShardIterator) from the named streams only.',
    });
  }
  return folds;
}
