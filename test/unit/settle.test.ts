import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import type { ChainRead, ChainReader, ClaimResult, ConfirmationJob, Ledger, LedgerRow } from '../../lambdas/payments/ports';
import { settle, type SettlePorts } from '../../lambdas/payments/core/settle';

const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const TX = `0x${'ab'.repeat(32)}` as const;
const catalog = loadCatalogFiles();
const judge = catalog.get('esp-outcome-judge')!;

function fakeLedger(): Ledger & { rows: Map<string, LedgerRow> } {
  const rows = new Map<string, LedgerRow>();
  return {
    rows,
    async claim(row): Promise<ClaimResult> {
      const existing = rows.get(row.txHash);
      if (existing && !(existing.status === 'reorged' && existing.skill === row.skill)) return { claimed: false, existing };
      rows.set(row.txHash, row);
      return { claimed: true };
    },
    get: async (_n, tx) => rows.get(tx),
    markReorged: async (_n, tx) => void rows.set(tx, { ...rows.get(tx)!, status: 'reorged' }),
    recent: async () => [...rows.values()],
    count: async () => rows.size,
    summary: async () => ({ confirmed: rows.size, volumeAtomic: 0n, perSkill: {}, newest: undefined }),
  };
}

const found = (value = 99000n, block = 10n, head = 10n): ChainRead => ({
  kind: 'found',
  provider: 'fake',
  head,
  receipt: {
    status: 'success',
    blockNumber: block,
    blockHash: '0xb10c',
    transferLogs: [{ address: config.assets.USDC!, from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', to: TREASURY, value, logIndex: 0 }],
  },
});

const { config } = readMarketConfig({ treasury: TREASURY, minConfirmations: '1' }, { requireTreasury: true });

function ports(reads: ChainRead[], now = new Date('2026-01-01T00:00:00Z')) {
  const calls: string[] = [];
  const scheduled: ConfirmationJob[] = [];
  const chain: ChainReader = {
    async readTransfer(hash) {
      calls.push(hash);
      return reads.shift() ?? { kind: 'not_found', answered: 1 };
    },
  };
  const ledger = fakeLedger();
  let clock = now;
  const p: SettlePorts = {
    config,
    catalog,
    chain,
    ledger,
    confirmations: { schedule: async (job) => (scheduled.push(job), 'started') },
    now: () => clock,
  };
  return { p, calls, scheduled, ledger, advance: (s: number) => (clock = new Date(clock.getTime() + s * 1000)) };
}

describe('settle', () => {
  it('claims a verified transfer once; a replay inside the reorg window re-reads the chain, after it does not', async () => {
    const t = ports([found(), found()]);
    expect(await settle({ txHash: TX, skill: judge }, t.p, { schedule: true })).toMatchObject({ kind: 'unlocked', replayed: false });
    expect(t.calls).toHaveLength(1);
    expect(await settle({ txHash: TX, skill: judge }, t.p, { schedule: true })).toMatchObject({ kind: 'unlocked', replayed: true });
    expect(t.calls).toHaveLength(2);
    t.advance(129);
    expect(await settle({ txHash: TX, skill: judge }, t.p, { schedule: true })).toMatchObject({ kind: 'unlocked', replayed: true });
    expect(t.calls).toHaveLength(2);
  });

  it('revokes a young claim when a provider no longer has the receipt, and keeps it when providers are down', async () => {
    const t = ports([found(), { kind: 'unavailable', errors: ['down'] }, { kind: 'not_found', answered: 1 }]);
    await settle({ txHash: TX, skill: judge }, t.p, { schedule: true });
    expect(await settle({ txHash: TX, skill: judge }, t.p, { schedule: true })).toMatchObject({ kind: 'unlocked' });
    expect(await settle({ txHash: TX, skill: judge }, t.p, { schedule: true })).toMatchObject({ kind: 'refused', reason: 'reorged' });
    expect(t.ledger.rows.get(TX)?.status).toBe('reorged');
  });

  it('refuses the same transfer for another skill without reading the chain', async () => {
    const t = ports([found()]);
    await settle({ txHash: TX, skill: judge }, t.p, { schedule: true });
    const other = await settle({ txHash: TX, skill: catalog.get('esp-delivery-critic')! }, t.p, { schedule: true });
    expect(other).toMatchObject({ kind: 'refused', reason: 'already_used' });
    expect(t.calls).toHaveLength(1);
  });

  it('schedules re-verification once for too few confirmations, and stores nothing', async () => {
    const strict = readMarketConfig({ treasury: TREASURY, minConfirmations: '3' }, { requireTreasury: true }).config;
    const t = ports([found(99000n, 10n, 10n)]);
    const out = await settle({ txHash: TX, skill: judge }, { ...t.p, config: strict }, { schedule: true });
    expect(out).toMatchObject({ kind: 'pending', confirmations: 1, scheduled: true });
    expect(t.scheduled).toEqual([{ network: 'base', txHash: TX, skill: 'esp-outcome-judge' }]);
    expect(t.ledger.rows.size).toBe(0);
  });

  it('stores nothing when every provider is down, or when payments are off', async () => {
    const t = ports([{ kind: 'unavailable', errors: ['a', 'b'] }]);
    expect(await settle({ txHash: TX, skill: judge }, t.p, { schedule: true })).toMatchObject({ kind: 'unavailable' });
    const off = readMarketConfig({ treasury: TREASURY, paymentsEnabled: 'false' }, { requireTreasury: true }).config;
    expect(await settle({ txHash: TX, skill: judge }, { ...t.p, config: off }, { schedule: true })).toMatchObject({ kind: 'disabled' });
    expect(t.ledger.rows.size).toBe(0);
  });
});
