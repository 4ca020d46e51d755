/**
 * Finance from exports: the local export writes DynamoDB's export format, and the DuckDB
 * rollup over it (the SQL Athena runs in AWS) equals the revenue rows /api/revenue serves from
 * the figures the fold keeps, after claims of every kind, reorgs, re-claims and card sales.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORTED_TABLES, revenueCsv } from '../../lambdas/contract/finance-export';
import { CARD_SALES_TABLE, LEDGER_TABLE, SETTLEMENTS_TABLE, TALLIES_TABLE } from '../../lambdas/contract/tables';
import { tableName } from '../../lambdas/platform/table-names';
import { revenueRows } from '../../lambdas/insights/revenue';
import { dynamoCardSales } from '../../lambdas/ledger/adapters/dynamo-card-sales';
import { dynamoCounters } from '../../lambdas/ledger/adapters/dynamo-counters';
import { dynamoLedger } from '../../lambdas/ledger/adapters/dynamo-ledger';
import type { LedgerRow } from '../../lambdas/ledger';
import { exportTable } from '../../local/export';
import { exportFiles, relayerCostFromExport, rollupFromExport } from '../../local/revenue';
import { dynamoSettlements } from '../../lambdas/payments/adapters/dynamo-settlements';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';
import { foldNow } from '../support/fold';
import { cardSale, ledgerRow, tx } from '../support/records';

let db: ThrowawayDynamo;
let client: DynamoDBClient;
let dir: string;

beforeAll(async () => {
  db = await throwawayDynamo([LEDGER_TABLE, CARD_SALES_TABLE, TALLIES_TABLE, SETTLEMENTS_TABLE]);
  client = db.client;
  dir = mkdtempSync(join(tmpdir(), 'skill-market-export-'));
});
afterAll(async () => {
  await db?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Transfer `n`: two skills, both assets, four days, amounts that differ. */
const row = (n: number, over: Partial<LedgerRow> = {}): LedgerRow =>
  ledgerRow(n, {
    skill: n % 2 ? 'ten-send' : 'csv-cleaner',
    amount: String(1000 * n),
    asset: n % 3 === 0 ? 'USDbC' : 'USDC',
    recordedAt: `2026-11-${10 + (n % 4)}T12:00:00.000Z`,
    ...over,
  });

describe('the revenue rollup from a DynamoDB export', () => {
  it('equals the rows /api/revenue serves from the tallies', async () => {
    const ledger = dynamoLedger(client, tableName(LEDGER_TABLE));
    const sales = dynamoCardSales(client, tableName(CARD_SALES_TABLE));
    const tallies = dynamoCounters(client, tableName(TALLIES_TABLE));
    for (let n = 1; n <= 14; n++) {
      const kind =
        n % 5 === 0
          ? { kind: 'subscription' as const, skill: 'pro-monthly' }
          : n % 7 === 0
            ? { kind: 'meter_top_up' as const, skill: 'meter' }
            : {};
      await ledger.claim(row(n, kind));
    }
    await ledger.markReorged('base', tx(2));
    await ledger.markReorged('base', tx(3));
    await ledger.claim(row(3, { recordedAt: '2026-11-13T18:00:00.000Z' }));
    await sales.record(cardSale('chk_1', 1900, '2026-11-11T09:00:00.000Z'));
    await sales.record(cardSale('chk_2', 99, '2026-11-12T09:00:00.000Z'));
    // Refunded in full later: still a sale of its day in both (the figures are gross until the books issue adds reversals).
    await sales.change('chk_2', { kind: 'refund', refundedCents: 99, at: '2026-11-13T10:00:00.000Z', event: 'evt_refund' });
    // The fold brings the figures up to the tables' streams, as the event source mapping does in AWS.
    await foldNow({
      endpoint: db.endpoint,
      client,
      streams: [tableName(LEDGER_TABLE), tableName(CARD_SALES_TABLE)],
      counters: tableName(TALLIES_TABLE),
    });

    const snapshot = new Date('2026-11-14T03:00:00Z');
    for (const t of EXPORTED_TABLES) await exportTable(client, t, dir, snapshot);
    // The layout and files of DynamoDB's export.
    const ledgerExport = exportFiles(dir, EXPORTED_TABLES[0]!);
    expect(ledgerExport.snapshot).toBe('2026-11-14T03:00:00Z');
    const lines = ledgerExport.files.flatMap((f) => gunzipSync(readFileSync(f)).toString().trim().split('\n'));
    expect(lines).toHaveLength(14);
    expect(JSON.parse(lines[0]!).Item.pk.S).toMatch(/^base#0x/);
    const exportDir = join(dir, 'ledger', '2026-11-14T03:00:00Z', 'AWSDynamoDB');
    const [exportId] = readdirSync(exportDir);
    expect(JSON.parse(readFileSync(join(exportDir, exportId!, 'manifest-summary.json'), 'utf8'))).toMatchObject({
      itemCount: 14,
      outputFormat: 'DYNAMODB_JSON',
      exportType: 'FULL_EXPORT',
    });

    const fromExport = await rollupFromExport(dir);
    const fromTallies = revenueRows(await tallies.days('2026-11-01', '2026-11-30'));
    expect(fromExport.length).toBeGreaterThan(5);
    expect(fromExport).toEqual(fromTallies);
    expect(revenueCsv(fromExport)).toBe(revenueCsv(fromTallies));
    // The dropped claim (tx 2) is in neither; the card sales are in both.
    expect(fromExport.filter((r) => r.channel === 'card').map((r) => r.amount_usd)).toEqual(['19', '0.99']);
  });

  it("gives the relayer's gas per day for settled x402 authorizations and its reverted transfers, from the same export", async () => {
    const settlements = dynamoSettlements(client, tableName(SETTLEMENTS_TABLE));
    const settle = async (n: number, outcome: 'settled' | 'failed' | 'signed', day: string, gasUsed: bigint, price: bigint) => {
      const pk = `eip155:8453#0xusdc#0xpayer#0x${n.toString(16).padStart(64, '0')}`;
      const lease = `lease-${n}`;
      await settlements.claim({
        pk,
        skill: 'csv-cleaner',
        payer: '0xpayer',
        token: '0xusdc',
        amount: '99000',
        state: 'claimed',
        lease,
        claimedAt: `${day}T10:00:00.000Z`,
      });
      await settlements.signed(pk, lease, { txHash: `0x${n.toString(16).padStart(64, '0')}`, raw: '0x02' });
      const finishedAt = `${day}T10:00:01.000Z`;
      if (outcome === 'settled')
        await settlements.finish(pk, {
          state: 'settled',
          gasUsed: String(gasUsed),
          effectiveGasPrice: String(price),
          gasCostWei: String(gasUsed * price),
          finishedAt,
        });
      if (outcome === 'failed')
        await settlements.finish(pk, {
          state: 'failed',
          failure: 'transaction_failed',
          finishedAt,
          ...(gasUsed > 0n ? { gasUsed: String(gasUsed), effectiveGasPrice: String(price), gasCostWei: String(gasUsed * price) } : {}),
        });
    };
    await settle(1, 'settled', '2026-11-12', 90_562n, 1_000_000n);
    await settle(2, 'settled', '2026-11-12', 56_000n, 2_000_000n);
    await settle(3, 'settled', '2026-11-13', 56_000n, 1_000_000n);
    await settle(4, 'failed', '2026-11-13', 0n, 0n);
    // A transfer that reverted: the relayer paid for it.
    await settle(6, 'failed', '2026-11-13', 63_000n, 1_000_000n);
    // A payer's hold and an hour's revert total live beside the settlements: never counted here.
    await settlements.hold({ pk: 'p', token: '0xusdc', payer: '0xpayer', amount: 99_000n }, 10n ** 6n, 1_795_000_000);
    await settlements.addRevertedGas('2026-11-13T10', 63_000n * 1_000_000n);
    await settle(5, 'signed', '2026-11-13', 0n, 0n);
    // A second finish never changes the first one's figures.
    await settlements.finish(`eip155:8453#0xusdc#0xpayer#0x${(1).toString(16).padStart(64, '0')}`, {
      state: 'failed',
      failure: 'late',
      finishedAt: '2026-11-13T00:00:00.000Z',
    });
    const cost = join(dir, 'cost');
    const snapshot = new Date('2026-11-14T03:00:00Z');
    for (const t of EXPORTED_TABLES) await exportTable(client, t, cost, snapshot);
    expect(await relayerCostFromExport(cost)).toEqual([
      { day: '2026-11-12', settlements: 2, reverted: 0, gas_used: '146562', gas_cost_wei: '202562000000', gas_cost_eth: '0.000000202562' },
      { day: '2026-11-13', settlements: 1, reverted: 1, gas_used: '119000', gas_cost_wei: '119000000000', gas_cost_eth: '0.000000119' },
    ]);
  });

  it('refuses a directory with no export', async () => {
    await expect(rollupFromExport(join(dir, 'nothing'))).rejects.toThrow(/no ledger export/);
  });
});
