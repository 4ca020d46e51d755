/**
 * Lambda entry of the fold: the event source mappings of the ledger's and card sales' streams
 * invoke it with a batch of one shard (a tumbling-window event: Lambda names the shard only in
 * those); locally a poller of DynamoDB Local's streams calls it with the same event. It throws
 * when a counter item could not be written, so the batch comes again (docs/ARCHITECTURE.md, "Figures").
 */
import type { Context, DynamoDBRecord } from 'aws-lambda';
import { logger } from '../platform/logger';

/** Lambda's DynamoDB stream event with the tumbling-window fields. */
export interface FoldEvent {
  Records: DynamoDBRecord[];
  shardId: string;
  eventSourceARN: string;
  window?: { start: string; end: string };
  state?: Record<string, string>;
  isFinalInvokeForWindow?: boolean;
  isWindowTerminatedEarly?: boolean;
}

/** What a tumbling-window invocation must answer: its state (the fold keeps none) and no failed items (it throws instead). */
export interface FoldResponse {
  state: Record<string, string>;
  batchItemFailures: { itemIdentifier: string }[];
}

export async function handler(event: FoldEvent, context?: Context): Promise<FoldResponse> {
  if (context) logger.addContext(context);
  const records = event.Records ?? [];
  if (records.length > 0) {
    if (typeof event.shardId !== 'string' || typeof event.eventSourceARN !== 'string')
      throw new Error('the fold needs the shard of its batch: give its event source mapping a tumbling window');
    // The adapters load from their own chunk once there is work, as the routes' ports do.
    const fold = (await import('./wiring')).foldFromEnv();
    const summary = await fold(records, { streamArn: event.eventSourceARN, shardId: event.shardId });
    logger.info('fold', { shardId: event.shardId, ...summary });
  }
  return { state: {}, batchItemFailures: [] };
}
