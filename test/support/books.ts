/**
 * The books of the shared local stack, as finance reads them: its tables exported in DynamoDB's
 * export format (as `npm run export` writes them) and the transaction report run over the export
 * with DuckDB (as `npm run revenue -- <dir> --transactions` does).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EXPORTED_TABLES, type FinanceTransactionRow, type NetRollupRow } from '../../lambdas/contract/finance-export';
import { exportTable } from '../../local/export';
import { netRollupFromExport, transactionsFromExport } from '../../local/revenue';

export async function stackBooks(endpoint: string): Promise<{ transactions: FinanceTransactionRow[]; net: NetRollupRow[] }> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const dir = mkdtempSync(join(tmpdir(), 'books-'));
  try {
    const snapshot = new Date();
    for (const t of EXPORTED_TABLES) await exportTable(client, t, dir, snapshot);
    return { transactions: await transactionsFromExport(dir), net: await netRollupFromExport(dir) };
  } finally {
    client.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
