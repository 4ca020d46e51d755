/** Ledger rows and card sales for the store-level tests: transfer `n` by one of two payers. */
import type { CardSale, LedgerRow } from '../../lambdas/ledger';

export const PAYERS = ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'] as const;
export const tx = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

export const ledgerRow = (n: number, over: Partial<LedgerRow> = {}): LedgerRow => ({
  network: 'base',
  txHash: tx(n),
  skill: 'ten-send',
  amount: '10000',
  price: '10000',
  asset: 'USDC',
  assetContract: '0x0000000000000000000000000000000000000001',
  payer: PAYERS[n % 2]!,
  blockNumber: String(100 + n),
  blockHash: `0x${'b'.repeat(64)}`,
  logIndex: 0,
  confirmations: 1,
  recordedAt: `2026-11-2${n % 3}T12:00:00.000Z`,
  status: 'confirmed',
  ...over,
});

export const cardSale = (id: string, cents: number, recordedAt = '2026-11-21T09:00:00.000Z'): CardSale => ({
  id,
  protocol: 'acp',
  skill: 'csv-cleaner',
  amountCents: cents,
  priceCents: cents,
  currency: 'usd',
  stripeSessionId: `cs_${id}`,
  paymentIntent: undefined,
  livemode: false,
  recordedAt,
  status: 'paid',
});
