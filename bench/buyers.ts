/**
 * What a sale writes as buyers are added (issue 33): real purchases of distinct skills (the
 * buyer's own USDC transfer, then POST /api/pay with its proof) by 1 buyer, then by N at once, on
 * the local stack (the same handlers, DynamoDB Local, anvil). DynamoDB is counted at a proxy that
 * asks for DynamoDB Local's consumed capacity on every call, index writes included; a write whose
 * condition failed is counted apart, with the units DynamoDB Local reports for it, or one when it
 * reports none (it reports none; DynamoDB bills such a write at the existing item's size, so on
 * DynamoDB the failures cost more than counted here). Per unlock: DynamoDB calls, write and read units, failed conditional writes; and
 * purchases per second, the unlock's p50.
 * On 2 cores one buyer already keeps most of the machine busy: the purchases-per-second ratio
 * measures CPU here; the units per unlock measure the design.
 * With a third argument `verify`, the run then makes that many more purchases by the N buyers at
 * once (skills may repeat: any buyer may buy any pack again with a new transfer), waits for the fold,
 * and runs the reconcile job on the same database: every figure must equal a recount of the rows.
 * Usage: npx tsx bench/buyers.ts [buyers=8] [purchasesPerBuyer=15] [verify=0]
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CARD_SALES_TABLE, LEDGER_TABLE, TALLIES_TABLE } from '../lambdas/contract/tables';
import { tableName } from '../lambdas/platform/table-names';
import { dynamoCardSales } from '../lambdas/ledger/adapters/dynamo-card-sales';
import { dynamoCounters } from '../lambdas/ledger/adapters/dynamo-counters';
import { dynamoLedger } from '../lambdas/ledger/adapters/dynamo-ledger';
import { reconcileFigures, type ReconcileReport } from '../lambdas/ledger/reconcile';
import type { Address } from 'viem';
import { ensureTestTokens, startAnvil, testAccount, TREASURY_ACCOUNT_INDEX } from '../local/anvil';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { chainTools } from '../test/support/chain';
import { requestFrom } from '../test/support/source-address';
import { percentile, startDynamoProxy, startMarket, transferForChallenge } from './harness';

const buyers = Number(process.argv[2] ?? '8');
const perBuyer = Number(process.argv[3] ?? '15');
const verify = Number(process.argv[4] ?? '0');

interface Counts {
  calls: number;
  wru: number;
  rru: number;
  failedWrites: number;
  failedWru: number;
}
const zero = (): Counts => ({ calls: 0, wru: 0, rru: 0, failedWrites: 0, failedWru: 0 });
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

const anvil = await startAnvil({ port: 0 });
const tokens = await ensureTestTokens(anvil.rpcUrl);
const database = await startDynamoDbLocal({ port: 0 });
let counts = zero();
const proxy = await startDynamoProxy(database.endpoint, ({ op, status, output }) => {
  counts.calls++;
  const out = output as { __type?: string; ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] };
  const units = [out.ConsumedCapacity ?? []].flat().reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
  if (status !== 200) {
    if (WRITES.has(op) && (out.__type ?? '').includes('ConditionalCheckFailed')) {
      counts.failedWrites++;
      counts.failedWru += units || 1;
      counts.wru += units || 1;
    }
  } else if (WRITES.has(op)) counts.wru += units;
  else counts.rru += units;
});
const treasury = testAccount(TREASURY_ACCOUNT_INDEX).address;
const market = await startMarket({
  RPC_URLS: anvil.rpcUrl,
  DYNAMODB_ENDPOINT: proxy.url,
  USDC_ADDRESS: tokens.USDC,
  USDBC_ADDRESS: tokens.USDbC,
  TREASURY_ADDRESS: treasury,
});
const chain = chainTools(anvil.rpcUrl);

// Every purchase is of a skill no one bought before: the catalog's skills, in order.
const skills = (JSON.parse(readFileSync(new URL('../dist/catalog/entries.json', import.meta.url), 'utf8')) as { id: string }[]).map(
  (e) => e.id,
);
if (skills.length < 1 + perBuyer * (1 + buyers)) throw new Error(`${skills.length} skills are too few for this run`);
let next = 0;

/** One purchase by buyer account `index`: challenge, transfer, proof. Answers the unlock's milliseconds. */
async function buy(index: number): Promise<number> {
  const skill = skills[next++ % skills.length]!;
  const hash = await transferForChallenge({
    marketUrl: market.url,
    rpcUrl: anvil.rpcUrl,
    usdc: tokens.USDC as Address,
    treasury,
    account: testAccount(index),
    skill,
  });
  const started = performance.now();
  // Each buyer is its own caller (its own loopback address), as buyers behind CloudFront are: the
  // per-caller limit on unlocks (300 a minute) is one caller's, not the whole run's.
  const res = await requestFrom(`127.0.0.${10 + index}`, `${market.url}/api/pay`, {
    method: 'POST',
    headers: { 'x-payment': JSON.stringify({ txHash: hash, skill }) },
  });
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`purchase of ${skill} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return ms;
}

/** `n` buyers at once, `perBuyer` purchases each; the counts are the phase's alone. */
async function phase(n: number) {
  const accounts = Array.from({ length: n }, (_, i) => 20 + i);
  for (const a of accounts) {
    await chain.setTokenBalance(tokens.USDC, testAccount(a).address, 10n ** 12n);
    await chain.setEthBalance(testAccount(a).address, 10n ** 20n);
  }
  counts = zero();
  const started = performance.now();
  const ms = (await Promise.all(accounts.map((a) => runBuyer(a)))).flat();
  const seconds = (performance.now() - started) / 1000;
  // The fold follows the purchases off their path, a poll behind: its writes belong to this phase.
  await proxy.quiet(2_000);
  const unlocks = ms.length;
  const c = counts;
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    buyers: n,
    unlocks,
    perSecond: unlocks / seconds,
    p50: percentile(sorted, 50),
    calls: c.calls / unlocks,
    wru: c.wru / unlocks,
    rru: c.rru / unlocks,
    failedWrites: c.failedWrites / unlocks,
    failedWru: c.failedWru / unlocks,
  };
}
async function runBuyer(account: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < perBuyer; i++) out.push(await buy(account));
  return out;
}

/** `total` purchases by the N buyers at once, then the reconcile job on the same tables, once the fold is quiet. */
async function verifyFigures(total: number): Promise<ReconcileReport> {
  const per = Math.ceil(total / buyers);
  await Promise.all(
    Array.from({ length: buyers }, async (_, b) => {
      for (let i = 0; i < per && b * per + i < total; i++) await buy(20 + b);
    }),
  );
  await proxy.quiet(2_000);
  const client = new DynamoDBClient({
    endpoint: database.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  return reconcileFigures(
    {
      ledger: dynamoLedger(client, tableName(LEDGER_TABLE)),
      cardSales: dynamoCardSales(client, tableName(CARD_SALES_TABLE)),
      counters: dynamoCounters(client, tableName(TALLIES_TABLE)),
      now: () => new Date(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    },
    { settleMs: 2_000 },
  );
}

const rows: Awaited<ReturnType<typeof phase>>[] = [];
let verified: ReconcileReport | undefined;
try {
  // A first purchase: the process loads its chunks and reads each provider's chain id once.
  await chain.setTokenBalance(tokens.USDC, testAccount(19).address, 10n ** 12n);
  await chain.setEthBalance(testAccount(19).address, 10n ** 20n);
  await buy(19);
  rows.push(await phase(1));
  rows.push(await phase(buyers));
  if (verify > 0) verified = await verifyFigures(verify);
} finally {
  await market.stop();
  await proxy.stop();
  await database.stop();
  await anvil.stop();
}

console.log(`\n| per unlock | ${rows.map((r) => `${r.buyers} buyer${r.buyers > 1 ? 's' : ''}`).join(' | ')} |`);
console.log(`|---|${rows.map(() => '---').join('|')}|`);
const line = (label: string, f: (r: (typeof rows)[number]) => string) => console.log(`| ${label} | ${rows.map(f).join(' | ')} |`);
line('unlocks measured', (r) => String(r.unlocks));
line('DynamoDB calls', (r) => r.calls.toFixed(1));
line('write units (index writes and failed conditional writes included)', (r) => r.wru.toFixed(1));
line(
  'failed conditional writes (units DynamoDB Local reports, else 1 each)',
  (r) => `${r.failedWrites.toFixed(2)} (${r.failedWru.toFixed(1)} WRU)`,
);
line('read units', (r) => r.rru.toFixed(1));
line('purchases per second', (r) => r.perSecond.toFixed(1));
line('unlock p50 (POST /api/pay)', (r) => `${r.p50.toFixed(0)} ms`);
if (verified)
  console.log(
    `\nafter ${verify} more purchases by ${buyers} buyers at once: reconcile ${JSON.stringify({ state: verified.state, ledger_rows: verified.ledger_rows, counter_items: verified.counter_items, differences: verified.difference_count })}`,
  );
