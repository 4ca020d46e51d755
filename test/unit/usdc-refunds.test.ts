/** Which transfers count as a refund of which sale (core/usdc-refunds.ts), and the recording of one with fake ports (refunds.ts). */
import { describe, expect, it } from 'vitest';
import { decideRefund, refundedInFull, type RefundReceipt, type RefundableSale } from '../../lambdas/ledger/core/usdc-refunds';
import { recordRefund, type RefundPorts } from '../../lambdas/ledger/refunds';
import type { LedgerRow, RefundRecord, Refunds } from '../../lambdas/ledger/ports';

const TREASURY = '0x00000000000000000000000000000000000000aa';
const PAYER = '0x00000000000000000000000000000000000000bB';
const payer = PAYER.toLowerCase();
const SALE_TX = `0x${'1'.repeat(64)}`;
const REFUND_TX = `0x${'2'.repeat(64)}`;
const rules = { treasury: TREASURY, minConfirmations: 3 };
const sale: RefundableSale = { txHash: SALE_TX, asset: 'USDC', payer: PAYER, amount: '99000', status: 'confirmed' };
const receipt = (transfers: RefundReceipt['transfers'], over: Partial<RefundReceipt> = {}): RefundReceipt => ({
  txHash: REFUND_TX,
  success: true,
  blockNumber: 100n,
  blockTime: '2026-11-26T10:00:00.000Z',
  confirmations: 3,
  transfers,
  ...over,
});
const back = (amount: string, over: Partial<RefundReceipt['transfers'][number]> = {}) => ({
  asset: 'USDC' as const,
  from: TREASURY,
  to: payer,
  amount,
  logIndex: 0,
  ...over,
});

describe('which transfers are a refund of a sale', () => {
  it('counts the Transfers of the sale asset from the treasury to the payer, and says when the sale is refunded in full', () => {
    expect(decideRefund(sale, receipt([back('40000')]), rules)).toEqual({
      kind: 'refund',
      amount: '40000',
      refundedAmount: '40000',
      full: false,
      logIndexes: [0],
    });
    // Two transfers back in one transaction are one refund of their sum; others beside them are not counted.
    const two = receipt([
      back('9000', { logIndex: 1 }),
      back('50000', { logIndex: 2 }),
      back('7', { to: TREASURY, from: payer, logIndex: 3 }),
    ]);
    expect(decideRefund({ ...sale, refundedAmount: '40000' }, two, rules)).toMatchObject({
      kind: 'refund',
      amount: '59000',
      refundedAmount: '99000',
      full: true,
      logIndexes: [1, 2],
    });
  });

  it('refuses what is not a refund of this sale', () => {
    const reason = (s: RefundableSale | undefined, r: RefundReceipt | undefined) => {
      const d = decideRefund(s, r, rules);
      return d.kind === 'refused' ? d.reason : d.kind;
    };
    expect(reason(undefined, receipt([back('1')]))).toBe('not_a_sale');
    expect(reason({ ...sale, kind: 'subscription' }, receipt([back('1')]))).toBe('not_refundable');
    expect(reason({ ...sale, status: 'reorged' }, receipt([back('1')]))).toBe('not_refundable');
    expect(reason(sale, undefined)).toBe('not_found');
    expect(reason(sale, receipt([back('1')], { txHash: SALE_TX }))).toBe('same_transaction');
    expect(reason(sale, receipt([back('1')], { success: false }))).toBe('reverted');
    expect(reason(sale, receipt([back('1')], { confirmations: 2 }))).toBe('too_few_confirmations');
    expect(reason(sale, receipt([back('1', { asset: 'USDbC' })]))).toBe('wrong_asset');
    expect(reason(sale, receipt([]))).toBe('wrong_asset');
    expect(reason(sale, receipt([back('1', { from: '0x00000000000000000000000000000000000000cc' })]))).toBe('wrong_sender');
    expect(reason(sale, receipt([back('1', { to: '0x00000000000000000000000000000000000000cc' })]))).toBe('wrong_receiver');
    expect(reason(sale, receipt([back('99001')]))).toBe('too_much');
    expect(reason({ ...sale, refundedAmount: '60000' }, receipt([back('39001')]))).toBe('too_much');
    expect(reason({ ...sale, refundedAmount: '99000' }, receipt([back('1')]))).toBe('already_refunded');
  });

  it("an escrowed sale's refund comes from the operator's token store, in a transaction where the escrow refunded its payment", () => {
    const STORE = '0x00000000000000000000000000000000000000dd';
    const OPERATOR = '0x00000000000000000000000000000000000000ee';
    const HASH = `0x${'ab'.repeat(32)}`;
    const escrowed: RefundableSale = { ...sale, paymentHash: HASH };
    // The escrow's refund: the collector takes the amount from the operator into its store, the store pays the payer.
    const viaEscrow = (paymentHash: string) =>
      receipt([back('99000', { from: OPERATOR, to: STORE, logIndex: 1 }), back('99000', { from: STORE, logIndex: 3 })], {
        escrowRefunds: [{ paymentHash, tokenStore: STORE }],
      });
    expect(decideRefund(escrowed, viaEscrow(HASH), rules)).toEqual({
      kind: 'refund',
      amount: '99000',
      refundedAmount: '99000',
      full: true,
      logIndexes: [3],
    });
    // The escrow refunding another payment (or a void, a reclaim: no refund of this one) is not this sale's refund.
    const other = decideRefund(escrowed, viaEscrow(`0x${'cd'.repeat(32)}`), rules);
    expect(other).toMatchObject({ kind: 'refused', reason: 'wrong_sender' });
    expect(other.kind === 'refused' && other.message).toContain("escrow's refund");
    // Nor is it a refund of a sale that was not escrowed.
    expect(decideRefund(sale, viaEscrow(HASH), rules)).toMatchObject({ kind: 'refused', reason: 'wrong_sender' });
    // Past its refund deadline an escrowed sale is refunded from the treasury, as any other.
    expect(decideRefund(escrowed, receipt([back('99000')]), rules)).toMatchObject({ kind: 'refund', amount: '99000', full: true });
  });

  it('a sale is refunded in full only when its whole transfer went back', () => {
    expect(refundedInFull(sale)).toBe(false);
    expect(refundedInFull({ ...sale, refundedAmount: '98999' })).toBe(false);
    expect(refundedInFull({ ...sale, refundedAmount: '99000' })).toBe(true);
  });
});

/** A refunds store over a row and a map, with the write's conditions, as the DynamoDB transaction holds them. */
function fakes(row: LedgerRow, chain: RefundReceipt | undefined) {
  const records = new Map<string, RefundRecord>();
  let moveOnce: (() => void) | undefined;
  const refunds: Refunds = {
    get: async (_n, tx) => records.get(tx),
    async record(record, s) {
      moveOnce?.();
      moveOnce = undefined;
      if (records.has(record.tx)) return 'refund_exists';
      if (row.status !== 'confirmed' || row.refundedAmount !== s.expectedRefunded) return 'sale_changed';
      records.set(record.tx, record);
      const { network: _n, saleTx: _s, skill: _k, payer: _p, asset: _a, ...stored } = record;
      row.refundedAmount = s.refundedAmount;
      row.refunds = { ...(row.refunds ?? {}), [record.tx]: stored };
      return 'recorded';
    },
  };
  const ports: RefundPorts = {
    ledger: { get: async (_n, tx) => (tx === row.txHash ? structuredClone(row) : undefined) },
    refunds,
    chain: { receipt: async () => chain },
    treasury: TREASURY,
    network: 'base',
    minConfirmations: 3,
    now: () => new Date('2026-11-26T12:00:00.000Z'),
  };
  return { ports, records, row, moveBeforeWrite: (f: () => void) => (moveOnce = f) };
}

const ROW: LedgerRow = {
  kind: 'unlock',
  network: 'base',
  txHash: SALE_TX,
  skill: 'csv-cleaner',
  amount: '99000',
  price: '99000',
  asset: 'USDC',
  assetContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payer: PAYER,
  blockNumber: '90',
  blockHash: `0x${'3'.repeat(64)}`,
  logIndex: 0,
  confirmations: 3,
  recordedAt: '2026-11-26T09:00:00.000Z',
  status: 'confirmed',
};

describe('recording a refund', () => {
  it('records once; a replay is refused and changes nothing; the same refund against another sale is refused', async () => {
    const f = fakes(structuredClone(ROW), receipt([back('40000')]));
    const first = await recordRefund(f.ports, SALE_TX, REFUND_TX.toUpperCase().replace('0X', '0x'));
    expect(first).toMatchObject({
      outcome: 'recorded',
      refunded_amount: '40000',
      refunded_in_full: false,
      refund: {
        tx: REFUND_TX,
        amount: '40000',
        block: '100',
        time: '2026-11-26T10:00:00.000Z',
        recordedAt: '2026-11-26T12:00:00.000Z',
        saleTx: SALE_TX,
      },
    });
    const before = structuredClone(f.row);
    expect(await recordRefund(f.ports, SALE_TX, REFUND_TX)).toMatchObject({ outcome: 'refused', reason: 'already_recorded' });
    expect(f.row).toEqual(before);
    const other = await recordRefund(f.ports, `0x${'4'.repeat(64)}`, REFUND_TX);
    expect(other).toMatchObject({ outcome: 'refused', reason: 'already_recorded' });
    expect((other as { message: string }).message).toContain(SALE_TX);
  });

  it('decides again when another refund moved the sale between its read and its write', async () => {
    const f = fakes(structuredClone(ROW), receipt([back('60000')]));
    f.moveBeforeWrite(() => {
      f.row.refundedAmount = '50000';
    });
    // After the other refund only 49,000 are left: this one (60,000) is now too much, and nothing is written.
    expect(await recordRefund(f.ports, SALE_TX, REFUND_TX)).toMatchObject({ outcome: 'refused', reason: 'too_much' });
    expect(f.records.size).toBe(0);
  });
});
