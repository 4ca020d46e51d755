/**
 * `npm run revenue -- <export dir> [out.csv]`: the revenue rollup from DynamoDB exports, with
 * DuckDB (@duckdb/node-api: an embedded SQL engine that reads gzipped JSON lines itself, so the
 * rollup is the same SQL Athena runs in AWS, not a second implementation in TypeScript).
 * Finds the newest snapshot of the ledger export under <dir> and the card-sales export of the
 * same snapshot, takes the data files each export's manifest-files.json lists (never a glob of
 * the folder), runs REVENUE_ROLLUP_SQL and writes the CSV of GET /api/revenue?format=csv.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { formatDecimal } from '../lambdas/contract/chain';
import {
  duckItemType,
  EXPORTED_TABLES,
  RELAYER_COST_SQL,
  REVENUE_ROLLUP_SQL,
  revenueCsv,
  type RelayerCostRow,
  toMicroUsd,
  usdString,
  type ExportedTable,
  type RevenueCsvRow,
} from '../lambdas/contract/finance-export';

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

const RELAYER_COST_COLUMNS = ['day', 'settlements', 'reverted', 'gas_used', 'gas_cost_wei', 'gas_cost_eth'] as const;
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
      gas_used: String(r['gas_used']),
      gas_cost_wei: String(r['gas_cost_wei']),
      gas_cost_eth: formatDecimal(BigInt(String(r['gas_cost_wei'])), 18),
    }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const relayerCost = args.includes('--relayer-cost');
  const [dir, out] = args.filter((a) => a !== '--relayer-cost');
  if (!dir) {
    console.error('usage: npm run revenue -- <export dir> [out.csv] [--relayer-cost]   (npm run export writes one)');
    process.exit(2);
  }
  try {
    const csv = relayerCost ? relayerCostCsv(await relayerCostFromExport(resolve(dir))) : revenueCsv(await rollupFromExport(resolve(dir)));
    if (out) writeFileSync(out, csv);
    else process.stdout.write(csv);
  } catch (e) {
    if (!(e instanceof ExportReadError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
}
