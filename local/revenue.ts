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
import { DuckDBInstance } from '@duckdb/node-api';
import {
  duckItemType,
  EXPORTED_TABLES,
  REVENUE_ROLLUP_SQL,
  revenueCsv,
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

/** Runs the rollup over an export directory; rows in CSV order. */
export async function rollupFromExport(dir: string): Promise<RevenueCsvRow[]> {
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
    const result = await c.runAndReadAll(REVENUE_ROLLUP_SQL, [first.snapshot, first.snapshot]);
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
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, out] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: npm run revenue -- <export dir> [out.csv]   (npm run export writes one)');
    process.exit(2);
  }
  try {
    const csv = revenueCsv(await rollupFromExport(resolve(dir)));
    if (out) writeFileSync(out, csv);
    else process.stdout.write(csv);
  } catch (e) {
    if (!(e instanceof ExportReadError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
}
