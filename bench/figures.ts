/**
 * Issue 13 figures: what the figure endpoints read from DynamoDB as the ledger grows. Synthetic
 * confirmed rows (benchmark only) go into a throwaway DynamoDB Local; the marketplace runs in its own
 * process against it through a counting proxy, which asks DynamoDB for the consumed capacity of
 * every read and counts calls, items and read units per request. At 0, 1k, 5k and 20k rows, the
 * mean over N requests per endpoint after 3 warm-ups. Rows fall on the 30 days before today, so the day items the
 * revenue and signal windows read are the same at every level.
 *
 * Rows are written with the ledger adapter's own claim (one conditional put each); the fold, fed
 * by the ledger's real stream through the local poller, brings the figures up to them before each
 * level is measured, and the run ends with a reconcile that must find every figure equal to a
 * recount. One payer holds a fiftieth of the rows: /api/access and /api/agent-identity ask about
 * it, so their reads show whether they grow with a wallet's history.
 * Usage: npx tsx bench/figures.ts [requests=20] [levels=0,1000,5000,20000]
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { buildSite } from '../catalog/build';
import { CARD_SALES_TABLE, LEDGER_TABLE, TABLES, TALLIES_TABLE } from '../lambdas/contract/tables';
import { tableName } from '../lambdas/platform/table-names';
import { dynamoCardSales } from '../lambdas/ledger/adapters/dynamo-card-sales';
import { dynamoCounters } from '../lambdas/ledger/adapters/dynamo-counters';
import { dynamoLedger } from '../lambdas/ledger/adapters/dynamo-ledger';
import { streamChanges } from '../lambdas/ledger/adapters/stream-changes';
import { foldBatch } from '../lambdas/ledger/fold';
import type { LedgerRow } from '../lambdas/ledger';
import { reconcileFigures } from '../lambdas/ledger/reconcile';
import { createTables } from '../local/create-tables';
import { startStreamPoller } from '../local/stream-poller';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startDynamoProxy, startMarket } from './harness';

const requests = Number(process.argv[2] ?? '20');
const levels = (process.argv[3] ?? '0,1000,5000,20000').split(',').map(Number);

const { entries } = await buildSite();
const skills = entries.map((e) => e.id);
const SKILL = 'csv-cleaner';

// The throwaway database, and a proxy in front of it that measures every read.
const database = await startDynamoDbLocal({ port: 0 });
const client = new DynamoDBClient({
  endpoint: database.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
});
for (const def of TABLES) delete process.env[def.env];
await createTables(client, TABLES);

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);
const meter = { calls: 0, items: 0, units: 0 };
const proxy = await startDynamoProxy(database.endpoint, ({ op, status, output }) => {
  if (!READS.has(op) || status !== 200) return;
  const parsed = output as { Count?: number; Item?: unknown; ConsumedCapacity?: { CapacityUnits?: number } };
  meter.calls++;
  meter.items += parsed.Count ?? (parsed.Item ? 1 : 0);
  meter.units += parsed.ConsumedCapacity?.CapacityUnits ?? 0;
});
const proxyUrl = proxy.url;

// Synthetic rows: confirmed USDC unlocks over 30 days by 50 payers; one in ten is SKILL.
const ledger = dynamoLedger(client, tableName(LEDGER_TABLE));
const counters = dynamoCounters(client, tableName(TALLIES_TABLE));
const payerOf = (n: number): string => `0x${(0xabc000 + (n % 50)).toString(16).padStart(40, '0')}`;
const WALLET = payerOf(0);
let seeded = 0;
const rowAt = (n: number): LedgerRow => ({
  network: 'base',
  txHash: `0x${n.toString(16).padStart(64, '0')}`,
  kind: 'unlock',
  skill: n % 10 === 0 ? SKILL : skills[n % skills.length]!,
  amount: String(5000 + (n % 7) * 1000),
  price: '5000',
  asset: 'USDC',
  assetContract: '0x0000000000000000000000000000000000000001',
  payer: payerOf(n),
  blockNumber: String(1000 + n),
  blockHash: `0x${n.toString(16).padStart(64, 'b')}`,
  logIndex: 0,
  confirmations: 1,
  // Spread over the 30 days before today, whatever the count: the revenue and signal windows read
  // the days of their window, so more rows must not mean more days here, or the bench would measure days.
  recordedAt: new Date(Date.now() - (n % 30) * 86_400_000 - (n % 1000) * 1000).toISOString(),
  status: 'confirmed',
});

async function seedTo(total: number): Promise<void> {
  const rows = Array.from({ length: total - seeded }, (_, i) => rowAt(seeded + i + 1));
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < rows.length) await ledger.claim(rows[next++]!);
    }),
  );
  // The fold catches up with the stream, as the event source mapping does in AWS.
  const fold = startStreamPoller({
    endpoint: database.endpoint,
    tableNames: [tableName(LEDGER_TABLE), tableName(CARD_SALES_TABLE)],
    handler: (event) => foldBatch(streamChanges(event.Records), { streamArn: event.eventSourceARN, shardId: event.shardId }, counters),
  });
  await fold.caughtUp();
  await fold.stop();
  seeded = total;
}

const ENDPOINTS = [
  '/api/esp',
  '/api/shop',
  '/api/judges',
  '/api/proof',
  `/api/proof?skill=${SKILL}`,
  `/api/esp?skill=${SKILL}`,
  '/api/revenue',
  '/api/signals',
  '/api/trust',
  `/api/trust?skill=${SKILL}`,
  `/api/access?wallet=${WALLET}&skill=${SKILL}`,
  `/api/agent-identity?address=${WALLET}`,
];
const market = await startMarket({ DYNAMODB_ENDPOINT: proxyUrl });
const results: { rows: number; path: string; calls: number; items: number; units: number }[] = [];
try {
  for (const level of levels) {
    if (level > seeded) await seedTo(level);
    for (const path of ENDPOINTS) {
      for (let i = 0; i < 3; i++) await (await fetch(`${market.url}${path}`)).arrayBuffer(); // warm-up
      const before = { ...meter };
      for (let i = 0; i < requests; i++) {
        const res = await fetch(`${market.url}${path}`);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      }
      results.push({
        rows: level,
        path,
        calls: (meter.calls - before.calls) / requests,
        items: (meter.items - before.items) / requests,
        units: (meter.units - before.units) / requests,
      });
    }
  }
} finally {
  await market.stop();
}

// The figures must be the recount of the rows, as for any other write path.
const report = await reconcileFigures(
  {
    ledger,
    cardSales: dynamoCardSales(client, tableName(CARD_SALES_TABLE)),
    counters,
    now: () => new Date(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  },
  { settleMs: 1000 },
);
await proxy.stop();
await database.stop();

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const reads = (r: (typeof results)[number]) => `${fmt(r.calls)} calls, ${fmt(r.items)} items, ${fmt(r.units)} RCU`;
console.log(`\n| endpoint: reads per request | ${levels.map((l) => `${l} rows`).join(' | ')} |`);
console.log(`|---|${levels.map(() => '---').join('|')}|`);
for (const path of ENDPOINTS) {
  console.log(
    `| \`${path}\` | ${results
      .filter((r) => r.path === path)
      .map(reads)
      .join(' | ')} |`,
  );
}
console.log(
  `\nreconcile after the run: ${JSON.stringify({ state: report.state, rows: report.ledger_rows, differences: report.difference_count })}`,
);
