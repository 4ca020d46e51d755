import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import type { ChainRead, ChainReader, ClaimResult, ConfirmationJob, Ledger, LedgerRow } from '../../lambdas/payments/ports';
import { confirmationAttempt } from '../../lambdas/payments/core/confirmation-task';
import { skillProduct } from '../../lambdas/payments/core/product';
import { settle, type Claimant, type SettlePorts } from '../../lambdas/payments/core/settle';

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
    markFinal: async (_n, tx) => void rows.set(tx, { ...rows.get(tx)!, final: true }),
    recordCapture: async (_n, tx, captureTx) => void rows.set(tx, { ...rows.get(tx)!, captureTx }),
    recent: async () => ({ rows: [...rows.values()], next: undefined }),
    owned: async (payer, skill, which) => {
      const mine = [...rows.values()]
        .filter(
          (r) =>
            r.payer.toLowerCase() === payer.toLowerCase() &&
            r.skill === skill &&
            r.status === 'confirmed' &&
            (r.kind ?? 'unlock') === 'unlock',
        )
        .sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : 1));
      const r = which === 'first' ? mine[0] : mine.at(-1);
      return r && { network: r.network, txHash: r.txHash, recordedAt: r.recordedAt };
    },
    payerEdge: async () => undefined,
    ofPayer: async () => ({ rows: [], next: undefined }),
    scan: async function* () {
      yield* rows.values();
    },
  };
}

const NOW = new Date('2026-01-01T00:00:00Z');
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** The caller that made the first claim in these tests. */
const BUYER: Claimant = { source: 'caller-a' };

const found = (value = 99000n, block = 10n, head = 10n, blockTimestamp = BigInt(NOW.getTime() / 1000 - 60)): ChainRead => ({
  kind: 'found',
  provider: 'fake',
  head,
  blockTimestamp,
  receipt: {
    status: 'success',
    blockNumber: block,
    blockHash: '0xb10c',
    transferLogs: [{ address: config.assets.USDC!, from: PAYER, to: TREASURY, value, logIndex: 0 }],
  },
});

const { config } = readMarketConfig({ treasury: TREASURY, minConfirmations: '1' }, { requireTreasury: true });

function ports(reads: ChainRead[], now = NOW) {
  const calls: string[] = [];
  const scheduled: ConfirmationJob[] = [];
  const chain: ChainReader = {
    async readTransfer(hash) {
      calls.push(hash);
      return reads.shift() ?? { kind: 'not_found', answered: 1, head: 100n };
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
  it("keeps the ledger on the configured network: a staging stack's claim, job and row say base-sepolia, never base", async () => {
    const sepolia = readMarketConfig(
      { treasury: TREASURY, minConfirmations: '3', network: 'base-sepolia', stage: 'staging' },
      { requireTreasury: true },
    ).config;
    const t = ports([found(99000n, 10n, 10n)]);
    const asked: string[] = [];
    const get = t.ledger.get;
    t.ledger.get = async (n, tx) => (asked.push(n), get(n, tx));
    const read = (r: ChainRead): ChainRead =>
      r.kind === 'found'
        ? { ...r, receipt: { ...r.receipt, transferLogs: r.receipt.transferLogs.map((l) => ({ ...l, address: sepolia.assets.USDC! })) } }
        : r;
    const p = { ...t.p, config: sepolia, chain: { readTransfer: async () => read(found(99000n, 10n, 10n)) } };
    const pending = await settle({ txHash: TX, product: skillProduct(judge) }, p, { schedule: true, claimant: BUYER });
    expect(pending).toMatchObject({ kind: 'pending', scheduled: true });
    expect(t.scheduled[0]).toMatchObject({ network: 'base-sepolia' });
    const deep = { ...p, chain: { readTransfer: async () => read(found(99000n, 10n, 12n)) } };
    const out = await settle({ txHash: TX, product: skillProduct(judge) }, deep, { schedule: true, claimant: BUYER });
    expect(out).toMatchObject({ kind: 'unlocked', row: { network: 'base-sepolia' } });
    expect(t.scheduled[1]).toMatchObject({ network: 'base-sepolia', kind: 'finality' });
    expect(asked).toEqual(['base-sepolia', 'base-sepolia']);
    // A job for another network's partition is not this stack's to settle.
    expect(await confirmationAttempt({ network: 'base', txHash: TX, skill: judge.id }, deep)).toMatchObject({ status: 'failed' });
  });

  it("judges a relayed settlement from the relayer's own receipt: no second read of the receipt, the head or the block", async () => {
    const t = ports([]);
    let gets = 0;
    const get = t.ledger.get;
    t.ledger.get = async (n, tx) => (gets++, get(n, tx));
    const mined = found(99000n, 10n, 10n, undefined);
    if (mined.kind !== 'found') throw new Error('unreachable');
    const out = await settle({ txHash: TX, product: skillProduct(judge) }, t.p, {
      schedule: true,
      claimant: { source: 'caller-a', payer: PAYER },
      relayed: true,
      relayedReceipt: mined.receipt,
    });
    expect(out).toMatchObject({ kind: 'unlocked', row: { blockNumber: '10', confirmations: 1 } });
    expect(t.calls).toEqual([]);
    // Nor is the ledger read before the claim: the conditional write answers a race by itself.
    expect(gets).toBe(0);
    // Without the receipt (a retry, the loop) the chain is read, and a relayed transfer's block time is not asked.
    const asked: { blockTime?: boolean | undefined }[] = [];
    const u = ports([]);
    const chain = {
      readTransfer: async (_h: string, o: { blockTime?: boolean } = {}) => (asked.push(o), found(99000n, 10n, 10n, undefined)),
    };
    expect(
      await settle({ txHash: TX, product: skillProduct(judge) }, { ...u.p, chain }, { schedule: true, claimant: BUYER, relayed: true }),
    ).toMatchObject({ kind: 'unlocked' });
    expect(asked).toEqual([{ blockTime: false }]);
  });

  it('reads the chain for a relayed settlement that needs more confirmations than its own block', async () => {
    const strict = readMarketConfig({ treasury: TREASURY, minConfirmations: '3' }, { requireTreasury: true }).config;
    const t = ports([found(99000n, 10n, 12n)]);
    const mined = found(99000n, 10n, 10n);
    if (mined.kind !== 'found') throw new Error('unreachable');
    const out = await settle(
      { txHash: TX, product: skillProduct(judge) },
      { ...t.p, config: strict },
      {
        schedule: true,
        claimant: BUYER,
        relayed: true,
        relayedReceipt: mined.receipt,
      },
    );
    expect(out).toMatchObject({ kind: 'unlocked', row: { confirmations: 3 } });
    expect(t.calls).toHaveLength(1);
  });

  it('claims a verified transfer once; a replay inside the reorg window re-reads the chain, after it does not', async () => {
    const t = ports([found(), found()]);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
      replayed: false,
    });
    expect(t.calls).toHaveLength(1);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
      replayed: true,
    });
    expect(t.calls).toHaveLength(2);
    t.advance(129);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
      replayed: true,
    });
    expect(t.calls).toHaveLength(2);
  });

  it("records the pack's seal from the server's catalog on an unlock's row (what its receipt states), and none on other kinds", async () => {
    const t = ports([found()]);
    const out = await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    expect(out).toMatchObject({ kind: 'unlocked', row: { packSeal: catalog.packMeta(judge.id)!.seal } });
    expect(t.ledger.rows.get(TX)?.packSeal).toMatch(/^[0-9a-f]{64}$/);
    const plan = catalog.pricing.plans[0]!;
    const s = ports([found(BigInt(plan.amount))]);
    const period = await settle({ txHash: TX, product: { kind: 'subscription', id: plan.id, price: plan.amount } }, s.p, {
      schedule: true,
      claimant: BUYER,
    });
    expect(period).toMatchObject({ kind: 'unlocked' });
    expect(s.ledger.rows.get(TX)).not.toHaveProperty('packSeal');
  });

  it('revokes a young claim when a provider no longer has the receipt, and keeps it when providers are down', async () => {
    const t = ports([found(), { kind: 'unavailable', errors: ['down'] }, { kind: 'not_found', answered: 1, head: 10n }]);
    await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
    });
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'refused',
      reason: 'reorged',
    });
    expect(t.ledger.rows.get(TX)?.status).toBe('reorged');
  });

  it("refuses a first claim of a transfer the service's relayer sent, except from the x402 settlement (or its loop)", async () => {
    const RELAYER = '0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec';
    const relayed = (): ChainRead => {
      const read = found() as Extract<ChainRead, { kind: 'found' }>;
      return { ...read, receipt: { ...read.receipt, sender: RELAYER.toLowerCase() } };
    };
    const t = ports([relayed(), relayed()]);
    // Any key of the relayer's pool: the fake knows one other besides.
    const pool = [RELAYER, '0x71bE63f3384f5fb98995898A86B02Fb2426c5788'].map((a) => a.toLowerCase());
    const p = { ...t.p, x402: { relayer: { isRelayer: async (address: string) => pool.includes(address.toLowerCase()) } } };
    // Anyone who saw the transfer on chain, racing the buyer's own request: refused, nothing stored.
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, p, { schedule: true, claimant: { source: 'racer' } })).toMatchObject({
      kind: 'refused',
      reason: 'relayed',
    });
    expect(t.ledger.rows.size).toBe(0);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, p, { schedule: true, claimant: BUYER, relayed: true })).toMatchObject(
      { kind: 'unlocked', replayed: false },
    );
    // Without a relayer (or for a transfer someone else sent), nothing changes.
    const plain = ports([relayed()]);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, plain.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
    });
  });

  it("a transfer made with the payer's EIP-3009 authorization, whoever sent it, is claimed only by its signer or by the settlement that holds it", async () => {
    const authorized = (): ChainRead => {
      const read = found() as Extract<ChainRead, { kind: 'found' }>;
      return {
        ...read,
        receipt: {
          ...read.receipt,
          sender: '0x000000000000000000000000000000000000bEEF',
          authorizationLogs: [{ address: config.assets.USDC!, authorizer: PAYER, nonce: `0x${'01'.repeat(32)}` }],
        },
      };
    };
    // Someone who copied the authorization (or the relayer's call) and had it mined: not theirs to claim.
    const t = ports([authorized()]);
    expect(
      await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: { source: 'copier' } }),
    ).toMatchObject({
      kind: 'refused',
      reason: 'authorized_transfer',
    });
    expect(t.ledger.rows.size).toBe(0);
    // Its signer, proven by a wallet signature, may.
    const signed = ports([authorized()]);
    expect(
      await settle({ txHash: TX, product: skillProduct(judge) }, signed.p, { schedule: true, claimant: { source: 'b', payer: PAYER } }),
    ).toMatchObject({ kind: 'unlocked', row: { payer: PAYER } });
    // So may the settlement that holds the authorization (it found the transfer by the authorization's own event).
    const relayed = ports([authorized()]);
    expect(
      await settle({ txHash: TX, product: skillProduct(judge) }, relayed.p, { schedule: true, claimant: BUYER, relayed: true }),
    ).toMatchObject({
      kind: 'unlocked',
    });
    // An authorization of another signer beside the payer's transfer changes nothing.
    const other = ports([
      (() => {
        const read = authorized() as Extract<ChainRead, { kind: 'found' }>;
        return {
          ...read,
          receipt: { ...read.receipt, authorizationLogs: [{ ...read.receipt.authorizationLogs![0]!, authorizer: TREASURY }] },
        };
      })(),
    ]);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, other.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
    });
  });

  it('refuses the same transfer for another skill without reading the chain', async () => {
    const t = ports([found()]);
    await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    const other = await settle({ txHash: TX, product: skillProduct(catalog.get('esp-delivery-critic')!) }, t.p, {
      schedule: true,
      claimant: BUYER,
    });
    expect(other).toMatchObject({ kind: 'refused', reason: 'already_used' });
    expect(t.calls).toHaveLength(1);
  });

  it('schedules re-verification once for too few confirmations, and stores nothing', async () => {
    const strict = readMarketConfig({ treasury: TREASURY, minConfirmations: '3' }, { requireTreasury: true }).config;
    const t = ports([found(99000n, 10n, 10n)]);
    const out = await settle({ txHash: TX, product: skillProduct(judge) }, { ...t.p, config: strict }, { schedule: true, claimant: BUYER });
    expect(out).toMatchObject({ kind: 'pending', confirmations: 1, scheduled: true });
    expect(t.scheduled).toEqual([{ network: 'base', txHash: TX, skill: 'esp-outcome-judge', source: 'caller-a' }]);
    expect(t.ledger.rows.size).toBe(0);
  });

  it('stores nothing when every provider is down, or when payments are off', async () => {
    const t = ports([{ kind: 'unavailable', errors: ['a', 'b'] }]);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unavailable',
    });
    const off = readMarketConfig({ treasury: TREASURY, paymentsEnabled: 'false' }, { requireTreasury: true }).config;
    expect(
      await settle({ txHash: TX, product: skillProduct(judge) }, { ...t.p, config: off }, { schedule: true, claimant: BUYER }),
    ).toMatchObject({
      kind: 'disabled',
    });
    expect(t.ledger.rows.size).toBe(0);
  });

  it('keeps a young claim when the providers that answered are behind its block (a lagging provider proves nothing)', async () => {
    const t = ports([found(), { kind: 'not_found', answered: 1, head: 9n }]);
    await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
      replayed: true,
    });
    expect(t.ledger.rows.get(TX)?.status).toBe('confirmed');
  });
});

describe('settle: a claimed transfer goes only to its buyer', () => {
  const stranger: Claimant = { source: 'caller-b' };

  it('refuses anyone else the same way for every skill, without reading the chain or naming the skill', async () => {
    const t = ports([found()]);
    await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    const same = await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: stranger });
    const other = await settle({ txHash: TX, product: skillProduct(catalog.get('esp-delivery-critic')!) }, t.p, {
      schedule: true,
      claimant: stranger,
    });
    expect(same).toEqual({ kind: 'not_yours' });
    expect(other).toEqual({ kind: 'not_yours' });
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: {} })).toEqual({
      kind: 'not_yours',
    });
    expect(t.calls).toHaveLength(1);
  });

  it('lets the first caller retry within the retry window only; the payer, proven by signature, at any time from anywhere', async () => {
    const t = ports([found()]);
    await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    t.advance(config.retryWindowSeconds - 1);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
      replayed: true,
    });
    t.advance(2);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toEqual({
      kind: 'not_yours',
    });
    const payer: Claimant = { source: 'caller-c', payer: PAYER.toLowerCase() };
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: payer })).toMatchObject({
      kind: 'unlocked',
      replayed: true,
    });
    const wrongSkill = await settle({ txHash: TX, product: skillProduct(catalog.get('esp-delivery-critic')!) }, t.p, {
      schedule: true,
      claimant: payer,
    });
    expect(wrongSkill).toMatchObject({ kind: 'refused', reason: 'already_used' });
  });

  it('binds a first claim to the payer when a signature is offered or required', async () => {
    const t = ports([found(), found()]);
    const impostor: Claimant = { source: 'caller-b', payer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' };
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: impostor })).toMatchObject({
      kind: 'refused',
      reason: 'payer_mismatch',
    });
    const strict = readMarketConfig({ treasury: TREASURY, requirePayerProof: 'true' }, { requireTreasury: true }).config;
    expect(
      await settle({ txHash: TX, product: skillProduct(judge) }, { ...t.p, config: strict }, { schedule: true, claimant: stranger }),
    ).toMatchObject({
      kind: 'refused',
      reason: 'payer_proof_required',
    });
    expect(t.ledger.rows.size).toBe(0);
  });

  it('an unsigned first claim of more than the price (a plan or a top-up raced by an observer) gets no pack; the payer signing gets it (issue 50, I5)', async () => {
    const price = BigInt(judge.x402.amount);
    // 9 USDC sent for a subscription, claimed as this pack by whoever saw it on chain first.
    const t = ports([found(9_000_000n), found(9_000_000n), found(price)]);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'refused',
      reason: 'payer_proof_required',
    });
    expect(t.ledger.rows.size).toBe(0);
    // The payer's own signature makes an over-payment its choice: it buys the pack.
    expect(
      await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: { source: 'caller-a', payer: PAYER } }),
    ).toMatchObject({ kind: 'unlocked' });
    // The exact price needs no signature by default, as before.
    const other = `0x${'cd'.repeat(32)}` as const;
    expect(await settle({ txHash: other, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'unlocked',
    });
  });

  it('refuses a first claim of a transfer older than the maximum age, by block timestamp', async () => {
    const old = BigInt(NOW.getTime() / 1000 - config.maxTransferAgeSeconds - 5);
    const t = ports([found(99000n, 10n, 10n, old)]);
    expect(await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER })).toMatchObject({
      kind: 'refused',
      reason: 'too_old',
    });
    expect(t.ledger.rows.size).toBe(0);
  });

  it('schedules one finality check for every first claim', async () => {
    const t = ports([found()]);
    await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    expect(t.scheduled).toEqual([{ network: 'base', txHash: TX, skill: 'esp-outcome-judge', kind: 'finality' }]);
  });
});

describe('the finality check', () => {
  const job = { network: 'base', txHash: TX, skill: 'esp-outcome-judge', kind: 'finality' as const };

  it('marks a claim final when the transfer is still there, reorged when every provider past its block lacks it, and waits on lagging providers', async () => {
    const t = ports([found(), found(99000n, 10n, 80n)]);
    await settle({ txHash: TX, product: skillProduct(judge) }, t.p, { schedule: true, claimant: BUYER });
    expect(await confirmationAttempt(job, t.p)).toMatchObject({ status: 'final' });
    expect(t.ledger.rows.get(TX)?.final).toBe(true);

    const r = ports([found(), { kind: 'not_found', answered: 2, head: 5n }, { kind: 'not_found', answered: 2, head: 90n }]);
    await settle({ txHash: TX, product: skillProduct(judge) }, r.p, { schedule: true, claimant: BUYER });
    expect(await confirmationAttempt(job, r.p)).toMatchObject({ status: 'pending' });
    expect(r.ledger.rows.get(TX)?.status).toBe('confirmed');
    expect(await confirmationAttempt(job, r.p)).toMatchObject({ status: 'reorged' });
    expect(r.ledger.rows.get(TX)?.status).toBe('reorged');
  });
});

describe('the negative cache of unknown transactions', () => {
  it('asks the chain once per moment for a hash no provider knows, and always again for a found one', async () => {
    const { withNegativeCache } = await import('../../lambdas/payments/adapters/cached-chain-reader');
    let calls = 0;
    const reads: ChainRead[] = [{ kind: 'not_found', answered: 1, head: 1n }, found()];
    const reader = withNegativeCache({ readTransfer: async () => (calls++, reads[Math.min(calls - 1, 1)]!) }, 50);
    for (let i = 0; i < 5; i++) expect((await reader.readTransfer(TX)).kind).toBe('not_found');
    expect(calls).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect((await reader.readTransfer(TX)).kind).toBe('found');
    expect((await reader.readTransfer(TX)).kind).toBe('found');
    expect(calls).toBe(3);
  });
});
