/**
 * `npm run revenue [-- <export dir> [out.csv]]`: the revenue rollup from DynamoDB exports, with
 * DuckDB (@duckdb/node-api: an embedded SQL engine that reads gzipped JSON lines itself, so the
 * rollup is the same SQL Athena runs in AWS, not a second implementation in TypeScript).
 * Without a directory, the newest `npm run export` wrote for the running start (its data dir's
 * `exports/`, local/endpoints.ts). Finds the newest snapshot of the ledger export under <dir> and the card-sales export of the
 * same snapshot, takes the data files each export's manifest-files.json lists (never a glob of
 * the folder), runs REVENUE_ROLLUP_SQL and writes the CSV of GET /api/revenue?format=csv.
 * `--transactions` writes the books row by row, `--net` the net rollup (gross, refunds, fees,
 * gas, net by day and channel), `--relayer-cost` the relayer's gas by day (docs/FINANCE.md).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { formatDecimal } from '../lambdas/contract/chain';
import {
  csv,
  duckItemType,
  EXPORTED_TABLES,
  FINANCE_TRANSACTION_COLUMNS,
  FINANCE_TRANSACTIONS_SQL,
  NET_ROLLUP_COLUMNS,
  NET_ROLLUP_SQL,
  type FinanceTransactionRow,
  type NetRollupRow,
  RELAYER_COST_SQL,
  REVENUE_ROLLUP_SQL,
  revenueCsv,
  type RelayerCostRow,
  toMicroUsd,
  USD_PLACES,
  usdString,
  type ExportedTable,
  type RevenueCsvRow,
} from '../lambdas/contract/finance-export';
import { toolEndpoints } from './endpoints';

export class ExportReadError extends Error {}

interface ExportFiles {
  snapshot: string;
  files: string[];
}

/** The export of one table at `snapshot` (the newest present when undefined): its data files, from its manifest. */
export function exportFiles(dir: string, t: ExportedTable, snapshot?: string): ExportFiles {
  const root = join(dir, t.prefix);
  if (!existsSync(root)) throw new ExportReadError(`no ${t.prefix} export under ${dir}`);
  const snapshots = readdirSync(root).sort();
  const chosen = snapshot ?? snapshots.at(-1);
  if (!chosen || !snapshots.includes(chosen))
    throw new ExportReadError(`no ${t.prefix} export of snapshot ${chosen ?? '(none)'} under ${dir}`);
  const exportsDir = join(root, chosen, 'AWSDynamoDB');
  // One snapshot may hold a retried export too: the newest complete one (with its summary) is read.
  const complete = (existsSync(exportsDir) ? readdirSync(exportsDir) : [])
    .map((id) => join(exportsDir, id, 'manifest-summary.json'))
    .filter((f) => existsSync(f))
    .map((f) => ({ f, summary: JSON.parse(readFileSync(f, 'utf8')) as { exportTime: string; manifestFilesS3Key: string } }))
    .sort((a, b) => (a.summary.exportTime < b.summary.exportTime ? -1 : 1));
  const newest = complete.at(-1);
  if (!newest) throw new ExportReadError(`the ${t.prefix} export of ${chosen} has no manifest-summary.json (not finished?)`);
  const manifest = readFileSync(join(dir, newest.summary.manifestFilesS3Key), 'utf8');
  const files = manifest
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => join(dir, (JSON.parse(l) as { dataFileS3Key: string }).dataFileS3Key));
  for (const f of files) if (!existsSync(f)) throw new ExportReadError(`${f} is listed in the manifest but missing`);
  return { snapshot: chosen, files };
}

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

const RELAYER_COST_COLUMNS = ['day', 'settlements', 'reverted', 'escrow_calls', 'gas_used', 'gas_cost_wei', 'gas_cost_eth'] as const;
/** The relayer cost as CSV (every field is a plain number or date: nothing to quote). */
const relayerCostCsv = (rows: readonly RelayerCostRow[]): string =>
  `${[RELAYER_COST_COLUMNS.join(','), ...rows.map((r) => RELAYER_COST_COLUMNS.map((c) => String(r[c])).join(','))].join('\r\n')}\r\n`;

/** Opens DuckDB with a view per exported table over the export in `dir` (the ledger's newest snapshot), and runs `query`. */
async function withExportViews<T>(dir: string, query: (c: DuckDBConnection, snapshot: string) => Promise<T>): Promise<T> {
  const [ledger, ...others] = EXPORTED_TABLES;
  const first = exportFiles(dir, ledger!);
  const all = [{ t: ledger!, e: first }, ...others.map((t) => ({ t, e: exportFiles(dir, t, first.snapshot) }))];
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    for (const { t, e } of all) {
      const source =
        e.files.length === 0
          ? `SELECT CAST(NULL AS ${duckItemType(t)}) AS item, CAST(NULL AS VARCHAR) AS snapshot WHERE false`
          : `SELECT "Item" AS item, ${quote(e.snapshot)} AS snapshot FROM read_json([${e.files.map(quote).join(', ')}], format = 'newline_delimited', compression = 'gzip', columns = {'Item': ${quote(duckItemType(t))}})`;
      await c.run(`CREATE VIEW ${t.view} AS ${source}`);
    }
    return await query(c, first.snapshot);
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** Runs the rollup over an export directory; rows in CSV order. */
export async function rollupFromExport(dir: string): Promise<RevenueCsvRow[]> {
  return withExportViews(dir, async (c, snapshot) => {
    const result = await c.runAndReadAll(REVENUE_ROLLUP_SQL, [snapshot, snapshot]);
    return result.getRowObjectsJS().map((r) => {
      const decimals = Number(r['decimals']);
      const amount = String(r['amount_atomic']);
      return {
        day: String(r['day']),
        channel: String(r['channel']),
        asset: String(r['asset']),
        product: String(r['product']),
        count: Number(r['count']),
        amount_atomic: amount,
        decimals,
        amount_usd: usdString(toMicroUsd(BigInt(amount), decimals)),
      };
    });
  });
}

/** The relayer's gas for the x402 v2 settlements, by day, from the same export (the SQL Athena runs as the RelayerCost query). */
export async function relayerCostFromExport(dir: string): Promise<RelayerCostRow[]> {
  return withExportViews(dir, async (c, snapshot) => {
    const result = await c.runAndReadAll(RELAYER_COST_SQL, [snapshot]);
    return result.getRowObjectsJS().map((r) => ({
      day: String(r['day']),
      settlements: Number(r['settlements']),
      reverted: Number(r['reverted']),
      escrow_calls: Number(r['escrow_calls']),
      gas_used: String(r['gas_used']),
      gas_cost_wei: String(r['gas_cost_wei']),
      gas_cost_eth: formatDecimal(BigInt(String(r['gas_cost_wei'])), 18),
    }));
  });
}

/** A nullable integer column as an exact decimal string of `places` places. */
const decimal = (v: unknown, places: number): string | null =>
  v === null || v === undefined ? null : formatDecimal(BigInt(String(v)), places);
const usd = (v: unknown): string | null => decimal(v, USD_PLACES);

/** Every row of the books, in time order (FINANCE_TRANSACTIONS_SQL, the `finance-transactions` query in Athena). */
export async function transactionsFromExport(dir: string): Promise<FinanceTransactionRow[]> {
  return withExportViews(dir, async (c, snapshot) => {
    const result = await c.runAndReadAll(FINANCE_TRANSACTIONS_SQL, [snapshot, snapshot, snapshot]);
    return result.getRowObjectsJS().map((r) => ({
      time: String(r['time']),
      day: String(r['day']),
      type: String(r['type']) as FinanceTransactionRow['type'],
      step: r['step'] === null ? null : (String(r['step']) as FinanceTransactionRow['step']),
      channel: String(r['channel']),
      scheme: r['scheme'] === null ? null : (String(r['scheme']) as FinanceTransactionRow['scheme']),
      currency: String(r['currency']),
      chain: r['chain'] === null ? null : String(r['chain']),
      product: String(r['product']),
      reference: String(r['reference']),
      sale: r['sale'] === null ? null : String(r['sale']),
      payer: r['payer'] === null ? null : String(r['payer']),
      country: r['country'] === null ? null : String(r['country']),
      amount: decimal(r['amount_atomic'], Number(r['decimals']))!,
      gross_usd: usd(r['gross_micro_usd'])!,
      processor_fee_usd: usd(r['processor_fee_micro_usd']),
      gas_eth: decimal(r['gas_wei'], 18)!,
      gas_usd: usd(r['gas_micro_usd']),
      net_usd: usd(r['net_micro_usd']),
    }));
  });
}

/** The books by day and channel: gross, refunds, fees, gas and net (NET_ROLLUP_SQL, the `net-rollup` query in Athena). */
export async function netRollupFromExport(dir: string): Promise<NetRollupRow[]> {
  return withExportViews(dir, async (c, snapshot) => {
    const result = await c.runAndReadAll(NET_ROLLUP_SQL, [snapshot, snapshot, snapshot]);
    return result.getRowObjectsJS().map((r) => ({
      day: String(r['day']),
      channel: String(r['channel']),
      sales: Number(r['sales']),
      reversals: Number(r['reversals']),
      gross_usd: usd(r['gross_micro_usd'])!,
      refunds_usd: usd(r['refunds_micro_usd'])!,
      fees_usd: usd(r['fees_micro_usd'])!,
      gas_eth: decimal(r['gas_wei'], 18)!,
      gas_usd: usd(r['gas_micro_usd'])!,
      net_usd: usd(r['net_micro_usd'])!,
      unpriced: Number(r['unpriced']),
    }));
  });
}

/** What `npm run revenue` can write, by its flag (none: the gross rollup of GET /api/revenue). */
const REPORTS: Record<string, (dir: string) => Promise<string>> = {
  '--relayer-cost': async (dir) => relayerCostCsv(await relayerCostFromExport(dir)),
  '--transactions': async (dir) => csv(FINANCE_TRANSACTION_COLUMNS, await transactionsFromExport(dir)),
  '--net': async (dir) => csv(NET_ROLLUP_COLUMNS, await netRollupFromExport(dir)),
};

/** The newest export under `root` (`npm run export` names each by its time), or undefined. */
function newestExport(root: string): string | undefined {
  if (!existsSync(root)) return undefined;
  const names = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return names.length > 0 ? join(root, names.at(-1)!) : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flags = args.filter((a) => a.startsWith('--'));
  const [given, out] = args.filter((a) => !a.startsWith('--'));
  const unknown = flags.filter((f) => !(f in REPORTS));
  if (unknown.length > 0 || flags.length > 1) {
    console.error(`usage: npm run revenue [-- <export dir> [out.csv]] [${Object.keys(REPORTS).join(' | ')}]   (npm run export writes one)`);
    process.exit(2);
  }
  const exportsDir = toolEndpoints(process.env).exportsDir;
  const dir = given ?? newestExport(exportsDir);
  if (!dir) {
    console.error(`no export under ${exportsDir}: npm run export writes one (or give its directory: npm run revenue -- <export dir>)`);
    process.exit(2);
  }
  try {
    const report = flags[0] ? REPORTS[flags[0]]! : async (d: string) => revenueCsv(await rollupFromExport(d));
    const text = await report(resolve(dir));
    if (out) writeFileSync(out, text);
    else process.stdout.write(text);
  } catch (e) {
    if (!(e instanceof ExportReadError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
}
