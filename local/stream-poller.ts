/**
 * The local twin of a Lambda event source mapping on DynamoDB streams with a tumbling window:
 * reads the streams of DynamoDB Local's tables and hands each shard's records, in order and one
 * batch at a time, to a handler in the very event Lambda would pass (records with the stream's
 * ARN and epoch-second times, `shardId`, `window`, `state`). As in AWS, a batch the handler
 * throws on is delivered again until it succeeds (locally there is no dead-letter queue, so it is
 * never skipped; each failure is reported loudly), a child shard is read only once its parent is
 * drained, and different shards run side by side.
 *
 * Each shard is read from its trim horizon the first time in a process: a restarted poller hands
 * over again what an earlier one did. That is the contract with the handler, which (like any
 * stream consumer in AWS, which gets at-least-once delivery) applies a record of a shard once
 * whatever the number of deliveries, and it is how a restarted local run catches up.
 *
 * A read DynamoDB Local answers "trimmed" within a day of the shard's last read to its end lost
 * nothing (no record is trimmed younger than 24 h; see readShard): the reader reads on from the
 * trim horizon and says so in one plain line, not as a failure.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type AttributeValue as StreamAttributeValue,
  type Shard,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { TableDefinition } from '../lambdas/contract/tables';
import { tableName } from '../lambdas/platform/table-names';

/** The event Lambda passes a function mapped to a DynamoDB stream with a tumbling window (AWS adds `shardId` only then). */
export interface StreamWindowEvent {
  Records: DynamoDBRecord[];
  shardId: string;
  eventSourceARN: string;
  window: { start: string; end: string };
  state: Record<string, string>;
  isFinalInvokeForWindow: boolean;
  isWindowTerminatedEarly: boolean;
}

export interface StreamPollerOptions {
  /** Where DynamoDB Local answers (the tables' API and the streams' API share it). */
  endpoint: string;
  region?: string | undefined;
  /** Physical names of the tables whose streams are read; each must have a stream. */
  tableNames: readonly string[];
  handler: (event: StreamWindowEvent) => Promise<unknown>;
  /** Records per call at most: the mapping's BatchSize (Lambda's default for DynamoDB streams, 100). */
  batchSize?: number | undefined;
  /** How long a shard that had nothing new rests before it is read again. */
  idleMs?: number | undefined;
  /** The tumbling window's length (the mapping's TumblingWindowInSeconds). */
  windowSeconds?: number | undefined;
  /** Told of every failure (a handler's throw, a read that failed); each is retried. */
  onError?: ((e: Error) => void) | undefined;
  /** Told, in one line, of a recovery that lost nothing (a trim horizon DynamoDB Local moved past a reader). */
  onNotice?: ((line: string) => void) | undefined;
}

export interface StreamPoller {
  /** Resolves once every shard known at the call has been handed over up to where it ended at the call. */
  caughtUp: () => Promise<void>;
  /** Stops reading; waits for a handler call under way. */
  stop: () => Promise<void>;
}

const DEFAULT_BATCH_SIZE = 100;
/** Lambda polls a DynamoDB stream's shards about four times a second. */
const DEFAULT_IDLE_MS = 250;
const DEFAULT_WINDOW_SECONDS = 60;
/** How often the tables and their streams are described again, for shards and streams that appeared. */
const DESCRIBE_EVERY_MS = 2_000;
/** A failed batch or read is tried again after 100 ms, then twice as long each time, up to 2 s. */
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2_000;
/** How long DynamoDB (and DynamoDB Local) keeps a stream record: none is trimmed younger than this. */
const STREAM_RETENTION_MS = 24 * 60 * 60_000;

interface ShardState {
  table: string;
  streamArn: string;
  shardId: string;
  /** Read to its end and closed: nothing more will come. */
  done: boolean;
  /** The last read that found the shard's end (fewer records than asked for), counted once its records were handed over. */
  drainedAt: number;
  /** When (Date.now()) that read was: every record of the shard written before it had been handed over. */
  drainedAtMs: number | undefined;
  finished: Promise<void>;
  finish: () => void;
  /** What the handler returned as `state` within the current window (Lambda passes it to the next call of that window). */
  state: Record<string, string>;
  windowStart: number;
}

/** Starts reading the tables' streams at once; failures to find a stream are reported through `onError` and retried. */
export function startStreamPoller(opts: StreamPollerOptions): StreamPoller {
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  const idleMs = opts.idleMs ?? DEFAULT_IDLE_MS;
  const windowMs = (opts.windowSeconds ?? DEFAULT_WINDOW_SECONDS) * 1000;
  const region = opts.region ?? 'us-east-1';
  const report = opts.onError ?? ((e: Error) => console.error(`stream poller: ${e.message}`));
  const notice = opts.onNotice ?? ((line: string) => console.log(`stream poller: ${line}`));
  const config = {
    endpoint: opts.endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  };
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const abort = new AbortController();
  const send = { abortSignal: abort.signal };

  let stopped = false;
  /** Counts reads as they are sent: a read numbered above a `caughtUp` call's mark began after the call. */
  let reads = 0;
  const shards = new Map<string, ShardState>();
  const streamsOf = new Map<string, Set<string>>();
  const workers = new Set<Promise<void>>();
  const waiters = new Set<{ ready: () => boolean; resolve: () => void; reject: (e: Error) => void }>();
  const sleepers = new Set<() => void>();
  let onStop = (): void => undefined;
  const stopping = new Promise<void>((resolve) => (onStop = resolve));

  const failure = (where: string, e: unknown): Error => {
    const cause = e instanceof Error ? e : new Error(String(e));
    return new Error(`${where}: ${cause.name === 'Error' ? '' : `${cause.name}: `}${cause.message}`, { cause });
  };
  /** Waits `ms`, or less when stopped. */
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (stopped) return resolve();
      const wake = (): void => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });
  const settleWaiters = (): void => {
    for (const w of waiters) {
      if (!w.ready()) continue;
      waiters.delete(w);
      w.resolve();
    }
  };
  const run = (work: Promise<void>): void => {
    workers.add(work);
    void work.finally(() => workers.delete(work));
  };

  /** Describes each table's current stream (and earlier ones not read to their end), starting a reader per new shard. */
  async function discover(): Promise<void> {
    await Promise.all(opts.tableNames.map((table) => discoverTable(table)));
  }

  async function discoverTable(table: string): Promise<void> {
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: table }), send);
    const latest = Table?.LatestStreamArn;
    if (!latest) throw new Error(`table ${table} has no stream to read (its definition must say \`stream: true\`)`);
    const arns = streamsOf.get(table) ?? new Set<string>();
    arns.add(latest);
    streamsOf.set(table, arns);
    for (const arn of arns) {
      let listed: Shard[];
      try {
        listed = await listShards(arn);
      } catch (e) {
        // A stream replaced by a newer one (its table made again) may be gone; the current one must be there.
        if ((e as Error).name === 'ResourceNotFoundException' && arn !== latest) {
          arns.delete(arn);
          continue;
        }
        throw e;
      }
      for (const shard of parentsFirst(listed)) addShard(table, arn, shard);
      if (arn !== latest && listed.every((s) => shards.get(key(arn, s.ShardId!))?.done)) arns.delete(arn);
    }
  }

  async function listShards(streamArn: string): Promise<Shard[]> {
    const all: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }),
        send,
      );
      all.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return all;
  }

  function addShard(table: string, streamArn: string, shard: Shard): void {
    const id = shard.ShardId!;
    if (shards.has(key(streamArn, id)) || stopped) return;
    let finish = (): void => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const state: ShardState = {
      table,
      streamArn,
      shardId: id,
      done: false,
      drainedAt: 0,
      drainedAtMs: undefined,
      finished,
      finish,
      state: {},
      windowStart: 0,
    };
    shards.set(key(streamArn, id), state);
    const parent = shard.ParentShardId ? shards.get(key(streamArn, shard.ParentShardId)) : undefined;
    run(readShard(state, parent));
  }

  /** Reads one shard to its end (or until stopped), handing each batch over before the next is read. */
  async function readShard(s: ShardState, parent: ShardState | undefined): Promise<void> {
    // A child shard holds what came after its parent's records: read only once the parent is done.
    if (parent) await Promise.race([parent.finished, stopping]);
    let iterator: string | undefined;
    let after: string | undefined;
    let retryMs = FIRST_RETRY_MS;
    while (!stopped) {
      try {
        iterator ??= await shardIterator(s, after);
        if (iterator === undefined) return close(s);
        const read = ++reads;
        const readAtMs = Date.now();
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }), send);
        const records = out.Records ?? [];
        if (records.length > 0) {
          if (!(await handOver(s, records))) return;
          after = records.at(-1)!.dynamodb?.SequenceNumber;
        }
        retryMs = FIRST_RETRY_MS;
        iterator = out.NextShardIterator;
        // No next iterator: the shard is closed and read to its end.
        if (iterator === undefined) return close(s, read);
        if (records.length < batchSize) {
          s.drainedAt = read;
          s.drainedAtMs = readAtMs;
          settleWaiters();
          await pause(idleMs);
        }
      } catch (e) {
        if (stopped) return;
        const name = (e as Error).name;
        if (name === 'ResourceNotFoundException') {
          report(failure(`${s.table} ${s.shardId}: the shard is gone; reading it stops`, e));
          return close(s);
        }
        if (name === 'TrimmedDataAccessException') {
          const sinceEnd = s.drainedAtMs === undefined ? undefined : Date.now() - s.drainedAtMs;
          after = undefined;
          iterator = undefined;
          if (sinceEnd !== undefined && sinceEnd < STREAM_RETENTION_MS) {
            // DynamoDB Local numbers every table's records in one sequence, and a TRIM_HORIZON
            // iterator of a shard without records points at the shard's first number; the shard's
            // first record, numbered above it once another table was written, makes the next read
            // "trimmed". Nothing was: every record written since the shard was read to its end is
            // younger than the retention, so still there, and the trim horizon is where they begin.
            notice(
              `${s.table} ${s.shardId}: DynamoDB Local moved the stream's trim horizon past this reader's position, so it reads on from the trim horizon; nothing is lost: the shard was read to its end ${Math.round(sinceEnd / 1000)} s ago and a record is trimmed only 24 h after it is written (one handed over again is applied once by the fold)`,
            );
            continue;
          }
          // Records the handler may never have seen have aged out of the stream: said loudly, then read from what is left.
          report(
            failure(
              `${s.table} ${s.shardId}: records after ${s.drainedAtMs === undefined ? 'the start' : 'its last read'} may have been trimmed before they were handed over; reading on from the trim horizon (npm run reconcile compares the figures with the ledger)`,
              e,
            ),
          );
        } else {
          report(failure(`${s.table} ${s.shardId}: reading the stream failed (retried in ${retryMs} ms)`, e));
        }
        // A fresh iterator after the last record handed over: an expired one is renewed the same way.
        iterator = undefined;
        await pause(retryMs);
        retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
      }
    }
  }

  /** The trim horizon the first time, after the last record handed over since. */
  async function shardIterator(s: ShardState, after: string | undefined): Promise<string | undefined> {
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: s.streamArn,
        ShardId: s.shardId,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
      send,
    );
    return out.ShardIterator;
  }

  function close(s: ShardState, read = ++reads): void {
    s.done = true;
    s.drainedAt = read;
    s.finish();
    settleWaiters();
    // Its children may be listed already, or appear now: look at once rather than at the next round.
    if (!stopped) run(discover().catch((e: unknown) => void (stopped || report(failure('describing the streams failed', e)))));
  }

  /**
   * Calls the handler with the batch until it succeeds; false when stopped first. A returned
   * `batchItemFailures` (ReportBatchItemFailures) has the batch delivered again from the first
   * record it names, as Lambda does; the fold returns none and throws instead.
   */
  async function handOver(s: ShardState, records: _Record[]): Promise<boolean> {
    let batch = records.map((r) => lambdaRecord(r, s.streamArn, region));
    let retryMs = FIRST_RETRY_MS;
    while (!stopped) {
      const now = Date.now();
      const windowStart = now - (now % windowMs);
      if (windowStart !== s.windowStart) {
        s.windowStart = windowStart;
        s.state = {};
      }
      const event: StreamWindowEvent = {
        Records: batch,
        shardId: s.shardId,
        eventSourceARN: s.streamArn,
        window: { start: isoSeconds(windowStart), end: isoSeconds(windowStart + windowMs) },
        state: s.state,
        isFinalInvokeForWindow: false,
        isWindowTerminatedEarly: false,
      };
      try {
        // The payload as the function receives it: JSON, a copy of its own.
        const result: unknown = await opts.handler(JSON.parse(JSON.stringify(event)) as StreamWindowEvent);
        const failedAt = firstFailure(result, batch);
        if (failedAt === undefined) {
          s.state = returnedState(result) ?? s.state;
          return true;
        }
        batch = batch.slice(failedAt);
        throw new Error(`the handler reported record ${batch[0]?.dynamodb?.SequenceNumber} failed`);
      } catch (e) {
        report(
          failure(
            `${s.table} ${s.shardId}: the handler failed on ${batch.length} records from ${batch[0]?.dynamodb?.SequenceNumber}; the same batch is delivered again in ${retryMs} ms, nothing is skipped`,
            e,
          ),
        );
        await pause(retryMs);
        retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
      }
    }
    return false;
  }

  // Shards are looked for now and every few seconds; a failed look is reported and made again.
  run(
    (async () => {
      let retryMs = FIRST_RETRY_MS;
      while (!stopped) {
        try {
          await discover();
          retryMs = FIRST_RETRY_MS;
          await pause(DESCRIBE_EVERY_MS);
        } catch (e) {
          if (stopped) return;
          report(failure('describing the streams failed', e));
          await pause(retryMs);
          retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
        }
      }
    })(),
  );

  return {
    caughtUp: async () => {
      if (stopped) throw new Error('the stream poller is stopped');
      const mark = reads;
      // Looked at again now, so that a shard that appeared since the last look counts.
      await discover();
      const targets = [...shards.values()];
      const ready = (): boolean => targets.every((s) => s.done || s.drainedAt > mark);
      if (ready()) return;
      await new Promise<void>((resolve, reject) => waiters.add({ ready, resolve, reject }));
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      abort.abort();
      onStop();
      for (const wake of [...sleepers]) wake();
      await Promise.allSettled([...workers]);
      for (const w of waiters) w.reject(new Error('the stream poller stopped'));
      waiters.clear();
      dynamo.destroy();
      streams.destroy();
    },
  };
}

/**
 * The fold's event source mappings as the local run has them: every table whose definition says
 * `stream` feeds the handler `load` brings (the Lambda entry, imported on first use like the
 * edge's handlers); failures go to the console, loudly, since nothing locally alarms on them.
 */
export function startStreamFolds(opts: {
  endpoint: string;
  tables: readonly TableDefinition[];
  load: () => Promise<{ handler: (event: StreamWindowEvent) => Promise<unknown> }>;
}): StreamPoller {
  return startStreamPoller({
    endpoint: opts.endpoint,
    region: process.env['AWS_REGION'],
    tableNames: opts.tables.filter((t) => t.stream).map((t) => tableName(t)),
    handler: async (event) => (await opts.load()).handler(event),
    onError: (e) => console.error(`STREAM FOLD FAILED (the figures wait for it): ${e.message}`),
    onNotice: (line) => console.log(`stream fold: ${line}`),
  });
}

const key = (streamArn: string, shardId: string): string => `${streamArn} ${shardId}`;

/** The shards with each parent before its children, so that a child finds its parent among the known shards. */
function parentsFirst(listed: readonly Shard[]): Shard[] {
  const byId = new Map(listed.map((s) => [s.ShardId, s]));
  const ordered: Shard[] = [];
  const placed = new Set<Shard>();
  const place = (s: Shard): void => {
    if (placed.has(s)) return;
    placed.add(s);
    const parent = s.ParentShardId === undefined ? undefined : byId.get(s.ParentShardId);
    if (parent) place(parent);
    ordered.push(s);
  };
  for (const s of listed) place(s);
  return ordered;
}

/** Lambda's format of the window's bounds, whole seconds: `2020-07-30T17:00:00Z`. */
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A stream record as Lambda hands it over: the SDK's Date as epoch seconds, binary values in base64, as in the JSON. */
function lambdaRecord(r: _Record, streamArn: string, region: string): DynamoDBRecord {
  const d = r.dynamodb;
  return {
    eventID: r.eventID,
    eventName: r.eventName,
    eventVersion: r.eventVersion,
    eventSource: r.eventSource ?? 'aws:dynamodb',
    awsRegion: r.awsRegion ?? region,
    dynamodb: d && {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime && Math.floor(d.ApproximateCreationDateTime.getTime() / 1000),
      Keys: d.Keys && image(d.Keys),
      NewImage: d.NewImage && image(d.NewImage),
      OldImage: d.OldImage && image(d.OldImage),
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType,
    },
    eventSourceARN: streamArn,
    // Present on deletions by TTL: { type: 'Service', principalId: 'dynamodb.amazonaws.com' }.
    ...(r.userIdentity ? { userIdentity: { type: r.userIdentity.Type, principalId: r.userIdentity.PrincipalId } } : {}),
  };
}

const image = (item: Record<string, StreamAttributeValue>): Record<string, AttributeValue> =>
  Object.fromEntries(Object.entries(item).map(([k, v]) => [k, plain(v)]));

const base64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

function plain(v: StreamAttributeValue): AttributeValue {
  if (v.B !== undefined) return { B: base64(v.B) };
  if (v.BS !== undefined) return { BS: v.BS.map(base64) };
  if (v.M !== undefined) return { M: image(v.M) };
  if (v.L !== undefined) return { L: v.L.map(plain) };
  if (v.S !== undefined) return { S: v.S };
  if (v.N !== undefined) return { N: v.N };
  if (v.SS !== undefined) return { SS: v.SS };
  if (v.NS !== undefined) return { NS: v.NS };
  if (v.BOOL !== undefined) return { BOOL: v.BOOL };
  if (v.NULL !== undefined) return { NULL: v.NULL };
  // The streams client hands an empty map over as `{}`, its `M` tag lost (measured: DynamoDB Local's
  // `{"M":{}}` comes back from GetRecords as `{}`, while `{"L":[]}` keeps its tag). An empty map is
  // the one value that can lose it, and Lambda's event carries `{"M":{}}`: that is what it was.
  if (Object.keys(v).length === 0) return { M: {} };
  throw new Error(`a stream record holds an attribute value of an unknown type: ${Object.keys(v).join(', ')}`);
}

/** Where a returned `batchItemFailures` asks the batch to resume: its earliest record named, the whole batch for one it cannot place. */
function firstFailure(result: unknown, batch: readonly DynamoDBRecord[]): number | undefined {
  const failures = (result as { batchItemFailures?: unknown } | undefined)?.batchItemFailures;
  if (!Array.isArray(failures) || failures.length === 0) return undefined;
  const at = failures.map((f) =>
    batch.findIndex((r) => r.dynamodb?.SequenceNumber === (f as { itemIdentifier?: unknown })?.itemIdentifier),
  );
  return at.some((i) => i < 0) ? 0 : Math.min(...at);
}

/** The `state` a handler returned, if it is one Lambda would pass on (string values). */
function returnedState(result: unknown): Record<string, string> | undefined {
  const state = (result as { state?: unknown } | undefined)?.state;
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return undefined;
  return Object.values(state).every((v) => typeof v === 'string') ? (state as Record<string, string>) : undefined;
}
