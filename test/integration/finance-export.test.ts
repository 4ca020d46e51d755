/**
 * Finance from exports: the local export writes DynamoDB's export format, and the DuckDB
 * rollup over it (the SQL Athena runs in AWS) equals the revenue rows /api/revenue serves from
 * the figures the fold keeps, after claims of every kind, reorgs, re-claims and card sales.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
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
import { exportFiles, netRollupFromExport, relayerCostFromExport, rollupFromExport, transactionsFromExport } from '../../local/revenue';
import { dynamoSettlements } from '../../lambdas/facilitator/adapters/dynamo-settlements';
import { ESCROW_MOVES } from '../../lambdas/facilitator/core/escrow';
import type { EscrowAction } from '../../lambdas/facilitator/ports';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';
import { foldNow } from '../support/fold';
import { cardSale, ledgerRow, PAYERS, tx } from '../support/records';

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

/** The relayer key that signed (any address: the store records it as the settlement's `relayer`). */
const RELAYER_KEY = '0x71bE63f3384f5fb98995898A86B02Fb2426c5788';

/** Transfer `n`: two skills, both assets, four days, amounts that differ. */
const row = (n: number, over: Partial<LedgerRow> = {}): LedgerRow =>
  ledgerRow(n, {
    skill: n % 2 ? 'ten-send' : 'csv-cleaner',
    amount: String(1000 * n),
    asset: n % 3 === 0 ? 'USDbC' : 'USDC',
    recordedAt: `2026-11-${10 + (n % 4)}T12:00:00.000Z`,
    ...over,
  });

/** Sets attributes as the books' writers store them (the fee on a sale, a refund on a row, the gas price on a settlement). */
async function set(
  t: typeof LEDGER_TABLE | typeof CARD_SALES_TABLE | typeof SETTLEMENTS_TABLE,
  key: Record<string, string>,
  fields: Record<string, unknown>,
) {
  const names = Object.keys(fields);
  await client.send(
    new UpdateItemCommand({
      TableName: tableName(t),
      Key: marshall(key),
      UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])),
      ExpressionAttributeValues: marshall(Object.fromEntries(names.map((n) => [`:${n}`, fields[n]]))),
    }),
  );
}

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
        resource: 'csv-cleaner',
        payer: '0xpayer',
        token: '0xusdc',
        amount: '99000',
        state: 'claimed',
        lease,
        claimedAt: `${day}T10:00:00.000Z`,
      });
      await settlements.signed(pk, lease, { txHash: `0x${n.toString(16).padStart(64, '0')}`, raw: '0x02', from: RELAYER_KEY });
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
    await settlements.hold({ pk: 'p', token: '0xusdc', payer: '0xpayer', amount: 99_000n }, 1_795_000_000);
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
      {
        day: '2026-11-12',
        settlements: 2,
        reverted: 0,
        escrow_calls: 0,
        gas_used: '146562',
        gas_cost_wei: '202562000000',
        gas_cost_eth: '0.000000202562',
      },
      {
        day: '2026-11-13',
        settlements: 1,
        reverted: 1,
        escrow_calls: 0,
        gas_used: '119000',
        gas_cost_wei: '119000000000',
        gas_cost_eth: '0.000000119',
      },
    ]);
  });

  it('gives the books row by row, and by day and channel with fees, refunds, gas and net, from stored facts only', async () => {
    // December: no other test of this file writes a row there, so both reports below are this test's rows alone.
    const ledger = dynamoLedger(client, tableName(LEDGER_TABLE));
    const sales = dynamoCardSales(client, tableName(CARD_SALES_TABLE));
    const settlements = dynamoSettlements(client, tableName(SETTLEMENTS_TABLE));
    // An x402 unlock of 0.099 USDC, and 0.04 of it refunded by the operator two days later.
    await ledger.claim(ledgerRow(101, { skill: 'books-x402', amount: '99000', recordedAt: '2026-12-01T10:00:00.000Z' }));
    await set(
      LEDGER_TABLE,
      { pk: `base#${tx(101)}` },
      {
        refundedAmount: '40000',
        refunds: {
          [tx(201)]: {
            amount: '40000',
            tx: tx(201),
            block: '500',
            time: '2026-12-03T08:00:00.000Z',
            recordedAt: '2026-12-03T09:00:00.000Z',
          },
        },
      },
    );
    // A reorged claim is no sale.
    await ledger.claim(ledgerRow(102, { skill: 'books-x402', amount: '99000', recordedAt: '2026-12-01T11:00:00.000Z' }));
    await ledger.markReorged('base', tx(102));
    // A card sale of $19 with Stripe's fee, $5 refunded the next day.
    await sales.record({ ...cardSale('books_1', 1900, '2026-12-01T09:00:00.000Z'), skill: 'books-card', buyerCountry: 'DE' });
    await set(CARD_SALES_TABLE, { id: 'books_1' }, { feeCents: 85, feeCurrency: 'usd' });
    await sales.change('books_1', { kind: 'refund', refundedCents: 500, at: '2026-12-02T09:00:00.000Z', event: 'evt_b1' });
    // A $9.90 card sale disputed (Stripe's $15 fee on the withdrawal), then won.
    await sales.record({ ...cardSale('books_2', 990, '2026-12-01T12:00:00.000Z'), skill: 'books-card' });
    await set(CARD_SALES_TABLE, { id: 'books_2' }, { feeCents: 59, feeCurrency: 'usd' });
    const dispute = { id: 'dp_b2', amountCents: 990, reason: 'fraudulent', inquiry: false };
    await sales.change('books_2', { kind: 'dispute_opened', dispute, at: '2026-12-02T10:00:00.000Z', event: 'evt_b2' });
    await set(
      CARD_SALES_TABLE,
      { id: 'books_2' },
      {
        reversals: {
          'dispute:dp_b2:withdrawn': {
            kind: 'dispute_withdrawal',
            amountCents: 990,
            at: '2026-12-02T10:00:00.000Z',
            event: 'evt_b2',
            feeCents: 1500,
          },
        },
      },
    );
    await sales.change('books_2', {
      kind: 'dispute_closed',
      dispute: { ...dispute, openedAt: '2026-12-02T10:00:00.000Z' },
      outcome: 'won',
      at: '2026-12-03T10:00:00.000Z',
      event: 'evt_b3',
    });
    // A card sale whose fee Stripe has not given yet: its net is not known.
    await sales.record({ ...cardSale('books_3', 500, '2026-12-03T12:00:00.000Z'), skill: 'books-card' });
    // The relayer's gas: 1e11 wei at $3,000.12345678 (300 micro-dollars, as recorded at settlement), and a revert with no price read.
    const relayed = async (n: number, state: 'settled' | 'failed', day: string, usdMicro?: string) => {
      const pk = `eip155:8453#0xusdc#0xpayer#${tx(n)}`;
      await settlements.claim({
        pk,
        resource: 'books-x402',
        payer: '0xpayer',
        token: '0xusdc',
        amount: '99000',
        state: 'claimed',
        lease: 'l',
        claimedAt: `${day}T10:00:00.000Z`,
      });
      await settlements.signed(pk, 'l', { txHash: tx(n), raw: '0x02', from: RELAYER_KEY });
      const gas = { gasUsed: '100000', effectiveGasPrice: '1000000', gasCostWei: '100000000000', finishedAt: `${day}T10:00:01.000Z` };
      await settlements.finish(pk, state === 'settled' ? { state, ...gas } : { state, failure: 'transaction_failed', ...gas });
      if (usdMicro) await set(SETTLEMENTS_TABLE, { pk }, { gasCostUsdMicro: usdMicro });
    };
    await relayed(301, 'settled', '2026-12-01', '300');
    await relayed(302, 'failed', '2026-12-02');

    const books = join(dir, 'books');
    for (const t of EXPORTED_TABLES) await exportTable(client, t, books, new Date('2026-12-04T03:00:00Z'));
    const december = (await transactionsFromExport(books)).filter((r) => r.day.startsWith('2026-12'));
    const row = (over: Partial<(typeof december)[number]>) => ({
      chain: over.channel === 'card' ? null : 'base',
      scheme: over.channel === 'card' ? null : 'exact',
      step: over.type === 'relayer_gas' ? 'transfer' : null,
      sale: over.reference,
      payer: null,
      country: null,
      gas_eth: '0',
      gas_usd: '0',
      processor_fee_usd: '0',
      ...over,
    });
    expect(december).toEqual([
      row({
        time: '2026-12-01T09:00:00.000Z',
        day: '2026-12-01',
        type: 'sale',
        channel: 'card',
        currency: 'USD',
        product: 'books-card',
        reference: 'books_1',
        country: 'DE',
        amount: '19',
        gross_usd: '19',
        processor_fee_usd: '0.85',
        net_usd: '18.15',
      }),
      row({
        time: '2026-12-01T10:00:00.000Z',
        day: '2026-12-01',
        type: 'sale',
        channel: 'x402',
        currency: 'USDC',
        product: 'books-x402',
        reference: tx(101),
        payer: PAYERS[1],
        amount: '0.099',
        gross_usd: '0.099',
        net_usd: '0.099',
      }),
      row({
        time: '2026-12-01T10:00:01.000Z',
        day: '2026-12-01',
        type: 'relayer_gas',
        channel: 'x402',
        currency: 'ETH',
        product: 'books-x402',
        reference: tx(301),
        payer: '0xpayer',
        amount: '0.0000001',
        gross_usd: '0',
        gas_eth: '0.0000001',
        gas_usd: '0.0003',
        net_usd: '-0.0003',
      }),
      row({
        time: '2026-12-01T12:00:00.000Z',
        day: '2026-12-01',
        type: 'sale',
        channel: 'card',
        currency: 'USD',
        product: 'books-card',
        reference: 'books_2',
        amount: '9.9',
        gross_usd: '9.9',
        processor_fee_usd: '0.59',
        net_usd: '9.31',
      }),
      row({
        time: '2026-12-02T09:00:00.000Z',
        day: '2026-12-02',
        type: 'refund',
        channel: 'card',
        currency: 'USD',
        product: 'books-card',
        reference: 'books_1',
        country: 'DE',
        amount: '-5',
        gross_usd: '-5',
        net_usd: '-5',
      }),
      row({
        time: '2026-12-02T10:00:00.000Z',
        day: '2026-12-02',
        type: 'dispute_withdrawal',
        channel: 'card',
        currency: 'USD',
        product: 'books-card',
        reference: 'books_2',
        amount: '-9.9',
        gross_usd: '-9.9',
        processor_fee_usd: '15',
        net_usd: '-24.9',
      }),
      row({
        time: '2026-12-02T10:00:01.000Z',
        day: '2026-12-02',
        type: 'relayer_gas',
        channel: 'x402',
        currency: 'ETH',
        product: 'books-x402',
        reference: tx(302),
        // It reverted and moved nothing: no sale's.
        sale: null,
        payer: '0xpayer',
        amount: '0.0000001',
        gross_usd: '0',
        gas_eth: '0.0000001',
        gas_usd: null,
        net_usd: null,
      }),
      row({
        time: '2026-12-03T08:00:00.000Z',
        day: '2026-12-03',
        type: 'refund',
        channel: 'x402',
        currency: 'USDC',
        product: 'books-x402',
        reference: tx(201),
        sale: tx(101),
        payer: PAYERS[1],
        amount: '-0.04',
        gross_usd: '-0.04',
        net_usd: '-0.04',
      }),
      row({
        time: '2026-12-03T10:00:00.000Z',
        day: '2026-12-03',
        type: 'dispute_reinstatement',
        channel: 'card',
        currency: 'USD',
        product: 'books-card',
        reference: 'books_2',
        amount: '9.9',
        gross_usd: '9.9',
        net_usd: '9.9',
      }),
      row({
        time: '2026-12-03T12:00:00.000Z',
        day: '2026-12-03',
        type: 'sale',
        channel: 'card',
        currency: 'USD',
        product: 'books-card',
        reference: 'books_3',
        amount: '5',
        gross_usd: '5',
        processor_fee_usd: null,
        net_usd: null,
      }),
    ]);
    const net = (await netRollupFromExport(books)).filter((r) => r.day.startsWith('2026-12'));
    expect(net).toEqual([
      {
        day: '2026-12-01',
        channel: 'card',
        sales: 2,
        reversals: 0,
        gross_usd: '28.9',
        refunds_usd: '0',
        fees_usd: '1.44',
        gas_eth: '0',
        gas_usd: '0',
        net_usd: '27.46',
        unpriced: 0,
      },
      {
        day: '2026-12-01',
        channel: 'x402',
        sales: 1,
        reversals: 0,
        gross_usd: '0.099',
        refunds_usd: '0',
        fees_usd: '0',
        gas_eth: '0.0000001',
        gas_usd: '0.0003',
        net_usd: '0.0987',
        unpriced: 0,
      },
      {
        day: '2026-12-02',
        channel: 'card',
        sales: 0,
        reversals: 2,
        gross_usd: '0',
        refunds_usd: '14.9',
        fees_usd: '15',
        gas_eth: '0',
        gas_usd: '0',
        net_usd: '-29.9',
        unpriced: 0,
      },
      {
        day: '2026-12-02',
        channel: 'x402',
        sales: 0,
        reversals: 0,
        gross_usd: '0',
        refunds_usd: '0',
        fees_usd: '0',
        gas_eth: '0.0000001',
        gas_usd: '0',
        net_usd: '0',
        unpriced: 1,
      },
      {
        day: '2026-12-03',
        channel: 'card',
        sales: 1,
        reversals: 0,
        gross_usd: '5',
        refunds_usd: '-9.9',
        fees_usd: '0',
        gas_eth: '0',
        gas_usd: '0',
        net_usd: '14.9',
        unpriced: 1,
      },
      {
        day: '2026-12-03',
        channel: 'x402',
        sales: 0,
        reversals: 1,
        gross_usd: '0',
        refunds_usd: '0.04',
        fees_usd: '0',
        gas_eth: '0',
        gas_usd: '0',
        net_usd: '-0.04',
        unpriced: 0,
      },
    ]);
    // The gross rollup (and /api/revenue) still counts each sale once, on its day.
    expect(
      (await rollupFromExport(books)).filter((r) => r.day.startsWith('2026-12')).map((r) => [r.channel, r.count, r.amount_usd]),
    ).toEqual([
      ['card', 2, '28.9'],
      ['x402', 1, '0.099'],
      ['card', 1, '5'],
    ]);
  });

  it("gives an escrowed sale's authorize, capture and refund each a gas row of the sale, and a voided payment's none of a sale; the relayer cost counts them", async () => {
    // October: no other test of this file writes a row there.
    const ledger = dynamoLedger(client, tableName(LEDGER_TABLE));
    const settlements = dynamoSettlements(client, tableName(SETTLEMENTS_TABLE));
    /** An authorize the operator's relayer had mined (settled), then its escrow calls as the facilitator writes them. */
    const escrowed = async (n: number, authorizedAt: string, steps: { action: EscrowAction; tx: string; at: string; usd?: string }[]) => {
      const pk = `eip155:8453#0xusdc#0xpayer#${tx(n)}`;
      await settlements.claim({
        pk,
        resource: 'books-escrow',
        payer: '0xpayer',
        token: '0xusdc',
        amount: '250000',
        state: 'claimed',
        lease: 'l',
        claimedAt: authorizedAt,
        scheme: 'auth-capture',
        paymentInfo: '{}',
        paymentHash: `0x${'e'.repeat(64)}`,
      });
      await settlements.signed(pk, 'l', { txHash: tx(n), raw: '0x02', from: RELAYER_KEY });
      await settlements.finish(pk, {
        state: 'settled',
        gasUsed: '100000',
        effectiveGasPrice: '1000000',
        gasCostWei: '100000000000',
        gasCostUsdMicro: '300',
        finishedAt: authorizedAt,
      });
      for (const { action, tx: stepTx, at, usd } of steps) {
        const move = ESCROW_MOVES[action];
        const sent = { [move.tx]: stepTx, [move.raw]: '0x02' };
        expect(await settlements.escrowStep(pk, { from: move.from, to: move.via }, sent)).toBe(true);
        const mined = {
          [move.gasUsed]: '50000',
          [move.gasCost]: '50000000000',
          [move.finishedAt]: at,
          ...(usd ? { [`${action}GasCostUsdMicro`]: usd } : {}),
        };
        expect(await settlements.escrowStep(pk, { from: move.via, to: move.to, tx: { field: move.tx, value: stepTx } }, mined)).toBe(true);
      }
    };
    // Authorized, sold, captured at once; refunded through the escrow two days later (that gas not priced).
    await escrowed(401, '2026-10-01T09:59:59.000Z', [
      { action: 'capture', tx: tx(402), at: '2026-10-01T10:00:02.000Z', usd: '150' },
      { action: 'refund', tx: tx(403), at: '2026-10-03T08:00:01.000Z' },
    ]);
    await ledger.claim(
      ledgerRow(401, {
        skill: 'books-escrow',
        amount: '250000',
        recordedAt: '2026-10-01T10:00:00.000Z',
        scheme: 'auth-capture',
        escrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
        paymentHash: `0x${'e'.repeat(64)}`,
        settlement: `eip155:8453#0xusdc#0xpayer#${tx(401)}`,
        captureTx: tx(402),
      }),
    );
    await set(
      LEDGER_TABLE,
      { pk: `base#${tx(401)}` },
      {
        refundedAmount: '250000',
        refunds: {
          [tx(403)]: {
            amount: '250000',
            tx: tx(403),
            block: '900',
            time: '2026-10-03T08:00:00.000Z',
            recordedAt: '2026-10-03T08:05:00.000Z',
          },
        },
      },
    );
    // Authorized, then voided (the pack could not be delivered): gas, and no sale.
    await escrowed(404, '2026-10-02T10:00:01.000Z', [{ action: 'void', tx: tx(405), at: '2026-10-02T10:00:03.000Z', usd: '150' }]);

    const books = join(dir, 'escrow-books');
    for (const t of EXPORTED_TABLES) await exportTable(client, t, books, new Date('2026-10-04T03:00:00Z'));
    const october = (await transactionsFromExport(books)).filter((r) => r.day.startsWith('2026-10'));
    const gasRow = (time: string, step: string, reference: string, sale: string | null, eth: string, usd: string | null) => ({
      time,
      day: time.slice(0, 10),
      type: 'relayer_gas',
      step,
      channel: 'x402',
      scheme: 'auth-capture',
      currency: 'ETH',
      chain: 'base',
      product: 'books-escrow',
      reference,
      sale,
      payer: '0xpayer',
      country: null,
      amount: eth,
      gross_usd: '0',
      processor_fee_usd: '0',
      gas_eth: eth,
      gas_usd: usd,
      net_usd: usd === null ? null : `-${usd}`,
    });
    const money = (time: string, type: 'sale' | 'refund', reference: string, amount: string) => ({
      time,
      day: time.slice(0, 10),
      type,
      step: null,
      channel: 'x402',
      scheme: 'auth-capture',
      currency: 'USDC',
      chain: 'base',
      product: 'books-escrow',
      reference,
      sale: tx(401),
      payer: PAYERS[1],
      country: null,
      amount,
      gross_usd: amount,
      processor_fee_usd: '0',
      gas_eth: '0',
      gas_usd: '0',
      net_usd: amount,
    });
    expect(october).toEqual([
      gasRow('2026-10-01T09:59:59.000Z', 'authorize', tx(401), tx(401), '0.0000001', '0.0003'),
      money('2026-10-01T10:00:00.000Z', 'sale', tx(401), '0.25'),
      gasRow('2026-10-01T10:00:02.000Z', 'capture', tx(402), tx(401), '0.00000005', '0.00015'),
      gasRow('2026-10-02T10:00:01.000Z', 'authorize', tx(404), null, '0.0000001', '0.0003'),
      gasRow('2026-10-02T10:00:03.000Z', 'void', tx(405), null, '0.00000005', '0.00015'),
      money('2026-10-03T08:00:00.000Z', 'refund', tx(403), '-0.25'),
      gasRow('2026-10-03T08:00:01.000Z', 'refund', tx(403), tx(401), '0.00000005', null),
    ]);
    // The sale's whole cost is the sum of its rows: authorize and capture gas, per sale.
    const ofSale = october.filter((r) => r.sale === tx(401) && r.type === 'relayer_gas' && r.day === '2026-10-01');
    expect(ofSale.map((r) => [r.step, r.gas_eth])).toEqual([
      ['authorize', '0.0000001'],
      ['capture', '0.00000005'],
    ]);

    const net = (await netRollupFromExport(books)).filter((r) => r.day.startsWith('2026-10'));
    expect(net).toEqual([
      {
        day: '2026-10-01',
        channel: 'x402',
        sales: 1,
        reversals: 0,
        gross_usd: '0.25',
        refunds_usd: '0',
        fees_usd: '0',
        gas_eth: '0.00000015',
        gas_usd: '0.00045',
        net_usd: '0.24955',
        unpriced: 0,
      },
      {
        day: '2026-10-02',
        channel: 'x402',
        sales: 0,
        reversals: 0,
        gross_usd: '0',
        refunds_usd: '0',
        fees_usd: '0',
        gas_eth: '0.00000015',
        gas_usd: '0.00045',
        net_usd: '-0.00045',
        unpriced: 0,
      },
      {
        day: '2026-10-03',
        channel: 'x402',
        sales: 0,
        reversals: 1,
        gross_usd: '0',
        refunds_usd: '0.25',
        fees_usd: '0',
        gas_eth: '0.00000005',
        gas_usd: '0',
        net_usd: '-0.25',
        unpriced: 1,
      },
    ]);
    // The relayer's cost by day counts every one of those transactions, each on the day of its receipt.
    expect((await relayerCostFromExport(books)).filter((r) => r.day.startsWith('2026-10'))).toEqual([
      {
        day: '2026-10-01',
        settlements: 1,
        reverted: 0,
        escrow_calls: 1,
        gas_used: '150000',
        gas_cost_wei: '150000000000',
        gas_cost_eth: '0.00000015',
      },
      {
        day: '2026-10-02',
        settlements: 1,
        reverted: 0,
        escrow_calls: 1,
        gas_used: '150000',
        gas_cost_wei: '150000000000',
        gas_cost_eth: '0.00000015',
      },
      {
        day: '2026-10-03',
        settlements: 0,
        reverted: 0,
        escrow_calls: 1,
        gas_used: '50000',
        gas_cost_wei: '50000000000',
        gas_cost_eth: '0.00000005',
      },
    ]);
  });

  it('refuses a directory with no export', async () => {
    await expect(rollupFromExport(join(dir, 'nothing'))).rejects.toThrow(/no ledger export/);
  });
});
