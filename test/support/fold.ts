/**
 * The fold of a throwaway DynamoDB Local's streams, for the store-level tests: the local poller
 * (local/stream-poller.ts, the event source mapping's twin) feeding the fold's own code with a
 * counter store on the test's client, so tables need no environment. Every call replays the
 * streams from their trim horizon, as a restarted fold does; the fold adds nothing twice.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoCounters } from '../../lambdas/ledger/adapters/dynamo-counters';
import { streamChanges } from '../../lambdas/ledger/adapters/stream-changes';
import { foldBatch } from '../../lambdas/ledger/fold';
import type { CounterStore } from '../../lambdas/ledger/ports';
import { startStreamPoller, type StreamPoller } from '../../local/stream-poller';

export interface FoldTarget {
  endpoint: string;
  client: DynamoDBClient;
  /** Physical names of the tables whose streams are folded. */
  streams: readonly string[];
  /** Physical name of the counters table. */
  counters: string;
}

/** A running fold; `wrap` may replace the counter store (to make it fail, say). */
export function startFold(
  t: FoldTarget,
  wrap: (store: CounterStore) => CounterStore = (s) => s,
  onError?: (e: Error) => void,
): StreamPoller {
  const store = wrap(dynamoCounters(t.client, t.counters));
  return startStreamPoller({
    endpoint: t.endpoint,
    tableNames: t.streams,
    idleMs: 50,
    handler: async (event) => foldBatch(streamChanges(event.Records), { streamArn: event.eventSourceARN, shardId: event.shardId }, store),
    onError: onError ?? (() => undefined),
  });
}

/** Folds what the streams hold now, then stops. */
export async function foldNow(t: FoldTarget): Promise<void> {
  const fold = startFold(t);
  try {
    await fold.caughtUp();
  } finally {
    await fold.stop();
  }
}
