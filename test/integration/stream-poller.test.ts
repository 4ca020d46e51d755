/**
 * The local twin of the fold's event source mapping (local/stream-poller.ts) against a DynamoDB
 * Local of its own: every record handed over once and in order, in the event Lambda passes with a
 * tumbling window; a batch the handler throws on delivered again, never skipped; caughtUp() waits
 * for what is in flight; a new poller replays from the trim horizon. And the local tables it
 * reads: a stream and each index's projection as the contract says, kept tables brought to them.
 */
import {
  DeleteItemCommand,
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDefinition } from '../../lambdas/contract/tables';
import { tableName } from '../../lambdas/platform/table-names';
import { createTables } from '../../local/create-tables';
import { startStreamPoller, type StreamPoller, type StreamPollerOptions, type StreamWindowEvent } from '../../local/stream-poller';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';

let db: ThrowawayDynamo;
let client: DynamoDBClient;
let run = 0;
const pollers: StreamPoller[] = [];

beforeAll(async () => {
  db = await throwawayDynamo();
  client = db.client;
});
afterAll(async () => {
  await Promise.all(pollers.map((p) => p.stop()));
  await db?.stop();
});

/** A streamed table of a test's own (so no test reads another's records). */
async function streamedTable(extra: Partial<TableDefinition> = {}): Promise<{ name: string; streamArn: string }> {
  const def: TableDefinition = {
    logicalName: `StreamProbe${++run}`,
    env: `STREAM_PROBE_${run}_TABLE`,
    partitionKey: { name: 'pk', type: 'S' },
    indexes: [],
    retain: false,
    stream: true,
    description: 'a probe of the stream poller',
    ...extra,
  };
  await createTables(client, [def]);
  const name = tableName(def);
  return { name, streamArn: (await described(name)).LatestStreamArn! };
}

const described = async (name: string): Promise<TableDescription> =>
  (await client.send(new DescribeTableCommand({ TableName: name }))).Table!;

const put = (table: string, pk: string, more: Record<string, AttributeValue> = {}) =>
  client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, ...more } }));

/** Starts a poller on the test's DynamoDB Local that rests 50 ms when idle; stopped after the file at the latest. */
function poller(opts: Omit<StreamPollerOptions, 'endpoint'>): StreamPoller {
  const p = startStreamPoller({ endpoint: db.endpoint, idleMs: 50, ...opts });
  pollers.push(p);
  return p;
}

const keysOf = (events: StreamWindowEvent[]): string[] => events.flatMap((e) => e.Records.map((r) => r.dynamodb!.Keys!['pk']!.S!));
const sequenceOf = (events: StreamWindowEvent[]): string[] => events.flatMap((e) => e.Records.map((r) => r.dynamodb!.SequenceNumber!));
const until = async (done: () => boolean, ms = 5_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('the stream poller', () => {
  it('hands every record over once, in order, in the event Lambda passes with a tumbling window', async () => {
    const { name, streamArn } = await streamedTable();
    const events: StreamWindowEvent[] = [];
    const errors: Error[] = [];
    const p = poller({
      tableNames: [name],
      batchSize: 10,
      handler: async (e) => void events.push(e),
      onError: (e) => errors.push(e),
    });
    const before = Math.floor(Date.now() / 1000);
    const written: string[] = [];
    for (let i = 0; i < 23; i++) {
      const pk = `item-${String(i).padStart(2, '0')}`;
      // The first item holds empty maps, whose tag the streams client loses (the poller puts it back).
      const empties = i === 0 ? { empty: { M: {} }, nested: { M: { inner: { M: {} } } }, none: { L: [] } } : {};
      await put(name, pk, { n: { N: String(i) }, raw: { B: new Uint8Array([i, 255]) }, ...empties });
      written.push(pk);
    }
    await client.send(
      new UpdateItemCommand({
        TableName: name,
        Key: { pk: { S: 'item-03' } },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': { N: '300' } },
      }),
    );
    await client.send(new DeleteItemCommand({ TableName: name, Key: { pk: { S: 'item-04' } } }));
    await p.caughtUp();
    const after = Math.ceil(Date.now() / 1000);

    expect(errors).toEqual([]);
    expect(keysOf(events)).toEqual([...written, 'item-03', 'item-04']);
    const sequence = sequenceOf(events);
    expect(new Set(sequence).size).toBe(sequence.length);
    expect(sequence.map(BigInt)).toEqual(sequence.map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

    const shardIds = new Set(events.map((e) => e.shardId));
    for (const e of events) {
      expect(e.Records.length).toBeGreaterThan(0);
      expect(e.Records.length).toBeLessThanOrEqual(10);
      expect(e).toMatchObject({ eventSourceARN: streamArn, state: {}, isFinalInvokeForWindow: false, isWindowTerminatedEarly: false });
      expect(e.shardId).toMatch(/^shardId-/);
      // One minute, on whole seconds, as Lambda writes it.
      expect(e.window.start).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Date.parse(e.window.end) - Date.parse(e.window.start)).toBe(60_000);
      // The payload is plain JSON, as the function receives it.
      expect(JSON.parse(JSON.stringify(e))).toEqual(e);
      for (const r of e.Records) {
        expect(r).toMatchObject({ eventSourceARN: streamArn, eventSource: 'aws:dynamodb', eventVersion: '1.1' });
        expect(typeof r.awsRegion).toBe('string');
        expect(r.eventID).toEqual(expect.any(String));
        const t = r.dynamodb!.ApproximateCreationDateTime!;
        expect(Number.isInteger(t)).toBe(true);
        // Epoch seconds (DynamoDB Local keeps whole minutes).
        expect(t).toBeGreaterThanOrEqual(before - 60);
        expect(t).toBeLessThanOrEqual(after);
        expect(r.dynamodb!.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
      }
    }
    expect(shardIds.size).toBeGreaterThan(0);

    const records = events.flatMap((e) => e.Records);
    expect(records[0]).toMatchObject({
      eventName: 'INSERT',
      dynamodb: { Keys: { pk: { S: 'item-00' } }, NewImage: { pk: { S: 'item-00' }, n: { N: '0' }, raw: { B: 'AP8=' } } },
    });
    // As Lambda's event carries them.
    expect(records[0]!.dynamodb!.NewImage).toMatchObject({ empty: { M: {} }, nested: { M: { inner: { M: {} } } }, none: { L: [] } });
    expect(records[0]!.dynamodb!.OldImage).toBeUndefined();
    expect(records.at(-2)).toMatchObject({
      eventName: 'MODIFY',
      dynamodb: { Keys: { pk: { S: 'item-03' } }, OldImage: { n: { N: '3' } }, NewImage: { n: { N: '300' }, raw: { B: 'A/8=' } } },
    });
    expect(records.at(-1)).toMatchObject({ eventName: 'REMOVE', dynamodb: { OldImage: { pk: { S: 'item-04' }, n: { N: '4' } } } });
    expect(records.at(-1)!.dynamodb!.NewImage).toBeUndefined();
  });

  it('delivers a batch the handler throws on again, the same records, until it succeeds; then moves on', async () => {
    const { name } = await streamedTable();
    for (const pk of ['a', 'b', 'c']) await put(name, pk);
    const calls: { at: number; event: StreamWindowEvent }[] = [];
    const errors: Error[] = [];
    const p = poller({
      tableNames: [name],
      handler: async (event) => {
        calls.push({ at: Date.now(), event });
        if (calls.length <= 2) throw new Error(`fold failed (${calls.length})`);
      },
      onError: (e) => errors.push(e),
    });
    await p.caughtUp();
    expect(calls).toHaveLength(3);
    expect(keysOf([calls[0]!.event])).toEqual(['a', 'b', 'c']);
    expect(calls[1]!.event.Records).toEqual(calls[0]!.event.Records);
    expect(calls[2]!.event.Records).toEqual(calls[0]!.event.Records);
    expect(calls[2]!.event.shardId).toBe(calls[0]!.event.shardId);
    // Backing off: 100 ms, then 200 ms.
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(90);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(190);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/handler failed on 3 records .*delivered again.*fold failed \(1\)/),
      expect.stringMatching(/fold failed \(2\)/),
    ]);

    // What comes next is handed over, once.
    await put(name, 'd');
    await p.caughtUp();
    expect(keysOf(calls.slice(3).map((c) => c.event))).toEqual(['d']);
  });

  it('caughtUp() waits until the handler has finished with every record written before the call', async () => {
    const { name } = await streamedTable();
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    let running = 0;
    const p = poller({
      tableNames: [name],
      handler: async (e) => {
        running++;
        await gate;
        handled.push(...keysOf([e]));
        running--;
      },
    });
    for (const pk of ['x', 'y', 'z']) await put(name, pk);
    let caughtUp = false;
    const waiting = p.caughtUp().then(() => (caughtUp = true));
    await until(() => running > 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(caughtUp).toBe(false);
    release();
    await waiting;
    expect(running).toBe(0);
    expect(handled).toEqual(['x', 'y', 'z']);
  });

  it('a poller started again replays the stream from its trim horizon; stop() waits for a handler call under way', async () => {
    const { name } = await streamedTable();
    for (const pk of ['one', 'two']) await put(name, pk);
    const first: StreamWindowEvent[] = [];
    const p1 = poller({ tableNames: [name], handler: async (e) => void first.push(e) });
    await p1.caughtUp();
    expect(keysOf(first)).toEqual(['one', 'two']);
    await put(name, 'three');
    await p1.caughtUp();
    await p1.stop();
    expect(keysOf(first)).toEqual(['one', 'two', 'three']);

    let finished = false;
    const second: StreamWindowEvent[] = [];
    const p2 = poller({
      tableNames: [name],
      handler: async (e) => {
        second.push(e);
        await new Promise((r) => setTimeout(r, 200));
        finished = true;
      },
    });
    await until(() => second.length > 0);
    await p2.stop();
    expect(finished).toBe(true);
    // The same records (the same event ids and sequence numbers) from the start; as the first poller had them.
    expect(keysOf(second)).toEqual(['one', 'two', 'three']);
    const ids = (events: StreamWindowEvent[]) => events.flatMap((e) => e.Records.map((r) => `${r.eventID} ${r.dynamodb?.SequenceNumber}`));
    expect(ids(second)).toEqual(ids(first));
    await expect(p2.caughtUp()).rejects.toThrow(/stopped/);
  });

  it('reads a closed stream to its end and follows the table to its new one', async () => {
    const { name, streamArn } = await streamedTable();
    const events: StreamWindowEvent[] = [];
    const p = poller({ tableNames: [name], handler: async (e) => void events.push(e) });
    await put(name, 'before');
    await p.caughtUp();
    await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
    await put(name, 'unstreamed');
    await client.send(
      new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }),
    );
    const newer = (await described(name)).LatestStreamArn!;
    expect(newer).not.toBe(streamArn);
    await put(name, 'after');
    await p.caughtUp();
    expect(keysOf(events)).toEqual(['before', 'after']);
    expect(events.map((e) => e.eventSourceARN)).toEqual([streamArn, newer]);
  });

  it("a trim horizon DynamoDB Local moved past a reader's position is said in one plain line, read from again, and nothing is lost", async () => {
    // DynamoDB Local numbers the records of every table in one sequence, and a TRIM_HORIZON iterator
    // of a shard with no record yet points at the shard's first number. A table written after
    // another one gets its first record numbered above that, and DynamoDB Local then answers the
    // reader's next read with TrimmedDataAccessException, though nothing was ever trimmed (issue 51:
    // printed as STREAM FOLD FAILED on a clean first start).
    const first = await streamedTable();
    const second = await streamedTable();
    const errors: Error[] = [];
    const notices: string[] = [];
    const events: StreamWindowEvent[] = [];
    const p = poller({
      tableNames: [first.name, second.name],
      handler: async (e) => void events.push(e),
      onError: (e) => errors.push(e),
      onNotice: (line) => notices.push(line),
    });
    await p.caughtUp();
    for (const pk of ['a1', 'a2', 'a3']) await put(first.name, pk);
    await put(second.name, 'b1');
    await p.caughtUp();
    await put(second.name, 'b2');
    await p.caughtUp();
    expect(errors.map((e) => e.message)).toEqual([]);
    // Every record handed over, each table's in order (a record handed over again would be applied once by the fold).
    const of = (arn: string) => keysOf(events.filter((e) => e.eventSourceARN === arn));
    expect(of(first.streamArn)).toEqual(['a1', 'a2', 'a3']);
    expect(of(second.streamArn)).toEqual(['b1', 'b2']);
    // Said once for each reader it happened to (the second table's at least), each in one plain line.
    expect(notices.some((line) => line.startsWith(`${second.name} `))).toBe(true);
    const shardsTold = notices.map((line) => line.split(':')[0]);
    expect(new Set(shardsTold).size).toBe(notices.length);
    for (const line of notices) {
      expect(line).toMatch(new RegExp(`^(${first.name}|${second.name}) shardId-\\S+: .*trim horizon.*nothing is lost`));
      expect(line).not.toMatch(/\n|FAIL|ERROR/i);
    }
  });

  it('reports a table without a stream, and reads nothing of it', async () => {
    const def: TableDefinition = {
      logicalName: `StreamProbe${++run}`,
      env: `STREAM_PROBE_${run}_TABLE`,
      partitionKey: { name: 'pk', type: 'S' },
      indexes: [],
      retain: false,
      description: 'a probe without a stream',
    };
    await createTables(client, [def]);
    const errors: Error[] = [];
    const p = poller({ tableNames: [tableName(def)], handler: async () => undefined, onError: (e) => errors.push(e) });
    await expect(p.caughtUp()).rejects.toThrow(/has no stream/);
    await until(() => errors.length > 0);
    expect(errors[0]!.message).toMatch(/has no stream/);
  });
});

describe('local tables: streams and index projections from the contract', () => {
  const indexed = (projections: TableDefinition['indexes'][number]['projection'][]): TableDefinition['indexes'] =>
    projections.map((projection, i) => ({ name: `byG${i}`, partitionKey: { name: `g${i}`, type: 'S' as const }, projection }));
  const projectionsOf = (t: TableDescription) =>
    Object.fromEntries(
      (t.GlobalSecondaryIndexes ?? []).map((i) => [
        i.IndexName,
        [i.Projection?.ProjectionType, [...(i.Projection?.NonKeyAttributes ?? [])].sort()],
      ]),
    );

  it('are created with the stream and each index copying what its definition says', async () => {
    const { name } = await streamedTable({
      indexes: indexed([{ type: 'KEYS_ONLY' }, { type: 'INCLUDE', attributes: ['b', 'a'] }, { type: 'ALL' }]),
    });
    const t = await described(name);
    expect(t.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(projectionsOf(t)).toEqual({ byG0: ['KEYS_ONLY', []], byG1: ['INCLUDE', ['a', 'b']], byG2: ['ALL', []] });
  });

  it('kept from an older version, get their stream in place and are rebuilt for a changed projection, items kept and not streamed again', async () => {
    const n = ++run;
    const older: TableDefinition = {
      logicalName: `StreamProbe${n}`,
      env: `STREAM_PROBE_${n}_TABLE`,
      partitionKey: { name: 'pk', type: 'S' },
      indexes: indexed([{ type: 'ALL' }]),
      retain: false,
      description: 'an older local table: no stream, an index copying everything',
    };
    const name = tableName(older);
    await createTables(client, [older]);
    await put(name, 'kept', { g0: { S: 'g' } });
    const created = (await described(name)).CreationDateTime;

    // The stream alone: turned on in place, as DynamoDB does.
    const streamed = { ...older, stream: true as const };
    expect(await createTables(client, [streamed])).toEqual([name]);
    let t = await described(name);
    expect(t.CreationDateTime).toEqual(created);
    expect(t.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });

    // Another projection: rebuilt with its items; their copies back in the table are no changes to fold.
    const current = { ...streamed, indexes: indexed([{ type: 'INCLUDE', attributes: ['status'] }]) };
    expect(await createTables(client, [current])).toEqual([name]);
    t = await described(name);
    expect(projectionsOf(t)).toEqual({ byG0: ['INCLUDE', ['status']] });
    expect(t.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect((await client.send(new GetItemCommand({ TableName: name, Key: { pk: { S: 'kept' } } }))).Item?.['g0']).toEqual({ S: 'g' });
    const seen: StreamWindowEvent[] = [];
    const p = poller({ tableNames: [name], handler: async (e) => void seen.push(e) });
    await p.caughtUp();
    expect(keysOf(seen)).toEqual([]);
    await put(name, 'new');
    await p.caughtUp();
    expect(keysOf(seen)).toEqual(['new']);
    await p.stop();

    // Nothing to change the second time.
    expect(await createTables(client, [current])).toEqual([]);
  });
});
