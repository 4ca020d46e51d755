import { describe, expect, it } from 'vitest';
import { formatAtomic } from '../../lambdas/contract/chain';
import { verifyTransfer, type TransferLog, type VerifyInput } from '../../lambdas/payments/core/verify-transfer';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const USDBC = '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA';
const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const LEGACY = '0xBaD000000000000000000000000000000000DeAD';
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const log = (over: Partial<TransferLog>): TransferLog => ({
  address: USDC,
  from: PAYER,
  to: TREASURY,
  value: 99000n,
  logIndex: 0,
  ...over,
});
const input = (logs: TransferLog[], over: Partial<VerifyInput> = {}): VerifyInput => ({
  receipt: { status: 'success', blockNumber: 100n, blockHash: '0xabc', transferLogs: logs },
  head: 100n,
  minConfirmations: 1,
  treasury: TREASURY,
  legacyTreasury: LEGACY,
  assets: [
    { symbol: 'USDC', address: USDC },
    { symbol: 'USDbC', address: USDBC },
  ],
  price: 99000n,
  ...over,
});

describe('verifyTransfer', () => {
  it('accepts a USDC transfer of the price to the treasury, whatever the address case', () => {
    const v = verifyTransfer(input([log({ address: USDC.toLowerCase(), to: TREASURY.toUpperCase().replace('0X', '0x') })]));
    expect(v).toMatchObject({ ok: true, amount: 99000n, payer: PAYER, confirmations: 1, asset: { symbol: 'USDC' } });
  });

  it('accepts USDbC, and over-payment recorded as paid', () => {
    expect(verifyTransfer(input([log({ address: USDBC, value: 150000n })]))).toMatchObject({
      ok: true,
      amount: 150000n,
      asset: { symbol: 'USDbC' },
    });
  });

  it('records the largest qualifying log when several qualify, and never sums partial logs', () => {
    expect(verifyTransfer(input([log({ value: 99000n, logIndex: 1 }), log({ value: 200000n, logIndex: 2 })]))).toMatchObject({
      ok: true,
      amount: 200000n,
      logIndex: 2,
    });
    expect(verifyTransfer(input([log({ value: 50000n }), log({ value: 49000n, logIndex: 1 })]))).toMatchObject({
      ok: false,
      reason: 'underpaid',
    });
  });

  it.each([
    ['reverted', input([log({})], { receipt: { status: 'reverted', blockNumber: 100n, blockHash: '0x', transferLogs: [log({})] } })],
    ['legacy_treasury', input([log({ to: LEGACY.toLowerCase() })])],
    ['underpaid', input([log({ value: 98999n })])],
    ['wrong_asset', input([log({ address: '0x0000000000000000000000000000000000000001' })])],
    ['wrong_receiver', input([log({ to: PAYER })])],
    ['no_transfer', input([])],
  ] as const)('refuses %s without retry', (reason, i) => {
    expect(verifyTransfer(i)).toMatchObject({ ok: false, reason, retry: false });
  });

  it('asks to wait, with retry, when confirmations are short; counts the block itself as one', () => {
    expect(verifyTransfer(input([log({})], { minConfirmations: 3, head: 101n }))).toMatchObject({
      ok: false,
      reason: 'too_few_confirmations',
      retry: true,
      confirmations: 2,
    });
    expect(verifyTransfer(input([log({})], { minConfirmations: 3, head: 102n }))).toMatchObject({ ok: true, confirmations: 3 });
    // A provider whose head lags the receipt: zero confirmations, not a negative number.
    expect(verifyTransfer(input([log({})], { head: 99n }))).toMatchObject({ ok: false, reason: 'too_few_confirmations', confirmations: 0 });
  });

  it('judges the payment before the confirmations, so a wrong transfer is not made to wait', () => {
    expect(verifyTransfer(input([log({ to: PAYER })], { minConfirmations: 5 }))).toMatchObject({ reason: 'wrong_receiver', retry: false });
  });

  it('formats atomic amounts', () => {
    expect([formatAtomic(5000n), formatAtomic(99000n), formatAtomic(1_000_000n), formatAtomic(1_500_000n)]).toEqual([
      '0.005',
      '0.099',
      '1',
      '1.5',
    ]);
  });
});
