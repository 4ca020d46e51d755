/**
 * The local fold's event source mapping (local/stream-poller.ts) on this machine, against a
 * DynamoDB Local of its own:
 * - throughput: N items written before the poller starts (BatchWriteItem), then the records per
 *   second it hands a handler that does nothing, from its start to caughtUp(), per batch size;
 * - delay at idle: single PutItems at random moments 50–450 ms apart to a poller at rest with
 *   the idle pause given (the default: 250 ms); from sending the PutItem to the handler's call with its record
 *   (p50, p95, max).
 * Usage: npx tsx bench/stream-poller.ts [items=5000] [samples=40] [idleMs=250, the poller's default]
 */
import { BatchWriteItemCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { TableDefinition } from '../lambdas/contract/tables';
import { tableName } from '../lambdas/platform/table-names';
import { createTables } from '../local/create-tables';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startStreamPoller } from '../local/stream-poller';

const items = Number(process.argv[2] ?? '5000');
const samples = Number(process.argv[3] ?? '40');
const idleMs = process.argv[4] === undefined ? undefined : Number(process.argv[4]);

const database = await startDynamoDbLocal({ port: 0 });
const client = new DynamoDBClient({
  endpoint: database.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
});
let tables = 0;
async function streamedTable(): Promise<string> {
  const def: TableDefinition = {
    logicalName: `StreamBench${++tables}`,
    env: `STREAM_BENCH_${tables}_TABLE`,
    partitionKey: { name: 'pk', type: 'S' },
    indexes: [],
    retain: false,
    stream: true,
    description: 'stream poller bench',
  };
  await createTables(client, [def]);
  return tableName(def);
}
// A ledger row's size, about: ~300 bytes of attributes.
const item = (pk: string) => ({ pk: { S: pk }, payload: { S: 'x'.repeat(280) }, n: { N: '1' } });

for (const batchSize of [100, 1000]) {
  const table = await streamedTable();
  for (let i = 0; i < items; i += 25) {
    const puts = Array.from({ length: Math.min(25, items - i) }, (_, j) => ({ PutRequest: { Item: item(`k${i + j}`) } }));
    await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: puts } }));
  }
  let handed = 0;
  let calls = 0;
  const started = performance.now();
  const poller = startStreamPoller({
    endpoint: database.endpoint,
    tableNames: [table],
    batchSize,
    handler: async (e) => {
      calls++;
      handed += e.Records.length;
    },
  });
  await poller.caughtUp();
  const seconds = (performance.now() - started) / 1000;
  await poller.stop();
  if (handed !== items) throw new Error(`handed over ${handed} records of ${items}`);
  console.log(
    `batch size ${batchSize}: ${items} records in ${seconds.toFixed(2)} s, ${Math.round(items / seconds)} records/s, ${calls} handler calls`,
  );
}

{
  const table = await streamedTable();
  const written = new Map<string, number>();
  const delays: number[] = [];
  const poller = startStreamPoller({
    endpoint: database.endpoint,
    tableNames: [table],
    idleMs,
    handler: async (e) => {
      const now = performance.now();
      for (const r of e.Records) {
        const at = written.get(r.dynamodb!.Keys!['pk']!.S!);
        if (at !== undefined) delays.push(now - at);
      }
    },
  });
  await poller.caughtUp();
  for (let i = 0; i < samples; i++) {
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 400));
    written.set(`d${i}`, performance.now());
    await client.send(new PutItemCommand({ TableName: table, Item: item(`d${i}`) }));
  }
  await poller.caughtUp();
  await poller.stop();
  const sorted = delays.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
  console.log(
    `PutItem to handler at idle (idle pause ${idleMs ?? 'default'} ms, ${sorted.length} samples): p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`,
  );
}

client.destroy();
await database.stop();
