/** The access domain's pure cores: the one access decision and the AP2 mandate rules, on stored facts only. */
import { describe, expect, it } from 'vitest';
import { decide, type AccessDecision, type AccessFacts } from '../../lambdas/access/core/decide-access';
import { accessCoverage, versionOnDay } from '../../lambdas/access/versions';
import { MandateSchema, mandateId, mandateProblem, spendLimits, type MandatedPurchase } from '../../lambdas/access/core/mandate';
import type { AccessPorts, MandateDocument, MandateRecord } from '../../lambdas/access/ports';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';

const catalog = loadCatalogFiles();
const plans = catalog.pricing.plans;
const csv = catalog.get('csv-cleaner')!;
const canary = catalog.get('agent-x402-first-buy')!;
const NOW = new Date('2026-06-15T12:00:00Z');
const WALLET = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const AGENT = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const none: AccessFacts = { purchase: undefined, subscriptions: [], meter: undefined };

/** The wallet's first confirmed unlock of the skill, as the ledger's `owned` index answers it. */
const owned = { network: 'base', txHash: `0x${'a'.repeat(64)}`, recordedAt: '2026-06-01T00:00:00Z' };

const meter = (balance: bigint, over: Partial<NonNullable<AccessFacts['meter']>> = {}) => ({
  wallet: WALLET.toLowerCase(),
  balance,
  cap: undefined,
  period: '2026-06',
  spentInPeriod: 0n,
  toppedUp: balance,
  drawn: [],
  credited: [],
  ...over,
});

describe('decide (the one access decision)', () => {
  it('says none, with the price, for a wallet with nothing', () => {
    expect(decide(none, csv, plans, NOW)).toEqual({
      granted: false,
      via: 'none',
      reason: 'no_access',
      price: csv.x402.amount,
      until: null,
    });
  });

  it('grants a confirmed purchase of this skill forever (the owned index holds confirmed unlocks only: test/integration/ledger-store.test.ts)', () => {
    expect(decide({ ...none, purchase: owned }, csv, plans, NOW)).toEqual({
      granted: true,
      via: 'one-time',
      source: 'transfer',
      txHash: owned.txHash,
      since: owned.recordedAt,
      until: null,
    });
  });

  it('grants a subscription whose plan covers the skill until its period ends, cancelled or not', () => {
    const sub = (plan: string, periodEnd: string, status: 'active' | 'cancelled' = 'active') => ({
      wallet: WALLET,
      plan,
      status,
      startedAt: '2026-06-01T00:00:00Z',
      periodEnd,
      transfers: ['0x1'],
    });
    const dataPlan = plans.find((p) => p.scope.kind === 'category' && p.scope.category === csv.category)!.id;
    const otherPlan = plans.find((p) => p.scope.kind === 'category' && p.scope.category !== csv.category)!.id;
    expect(decide({ ...none, subscriptions: [sub(dataPlan, '2026-07-01T00:00:00Z', 'cancelled')] }, csv, plans, NOW)).toEqual({
      granted: true,
      via: 'subscription',
      plan: dataPlan,
      since: '2026-06-01T00:00:00Z',
      until: '2026-07-01T00:00:00Z',
      cancelled: true,
    });
    expect(decide({ ...none, subscriptions: [sub(dataPlan, '2026-06-15T11:59:59Z')] }, csv, plans, NOW).granted).toBe(false);
    expect(decide({ ...none, subscriptions: [sub(otherPlan, '2027-01-01T00:00:00Z')] }, csv, plans, NOW).granted).toBe(false);
  });

  it('a subscription covers the versions published during it: the one current when it started and every later one (issue 52)', () => {
    const v = (version: number, published: string) => ({
      skill_id: 'x',
      version,
      published,
      digest: '',
      file_count: 0,
      total_bytes: 0,
      files: [],
    });
    const versions = [v(1, '2026-01-10'), v(2, '2026-06-01'), v(3, '2026-06-20')];
    expect(versionOnDay(versions, '2026-06-01T00:00:00Z')).toBe(2);
    expect(versionOnDay(versions, '2026-05-31T23:59:59Z')).toBe(1);
    expect(versionOnDay(versions, '2026-07-01T00:00:00Z')).toBe(3);
    expect(versionOnDay(versions, '2025-01-01T00:00:00Z')).toBe(1);
    expect(versionOnDay(undefined, '2026-07-01T00:00:00Z')).toBe(1);
  });

  it('lets a meter pay only within its balance and its cap for the month, and counts a drawn skill as owned', () => {
    const price = BigInt(csv.x402.amount);
    expect(decide({ ...none, meter: meter(price) }, csv, plans, NOW)).toMatchObject({
      granted: true,
      via: 'meter',
      price: csv.x402.amount,
    });
    expect(decide({ ...none, meter: meter(price - 1n) }, csv, plans, NOW)).toMatchObject({ granted: false, reason: 'meter_balance' });
    expect(decide({ ...none, meter: meter(price * 10n, { cap: price, spentInPeriod: 1n }) }, csv, plans, NOW)).toMatchObject({
      reason: 'meter_cap',
    });
    // Last month's spend does not count against this month's cap.
    expect(
      decide({ ...none, meter: meter(price * 10n, { cap: price, spentInPeriod: price, period: '2026-05' }) }, csv, plans, NOW).granted,
    ).toBe(true);
    expect(decide({ ...none, meter: meter(0n, { drawn: [csv.id] }) }, csv, plans, NOW)).toMatchObject({ via: 'one-time', source: 'meter' });
  });
});

const doc = (constraints: unknown[]): MandateDocument =>
  MandateSchema.parse({ vct: 'mandate.payment.open.1', wallet: WALLET, cnf: { address: AGENT }, constraints }) as MandateDocument;
const record = (d: MandateDocument, over: Partial<MandateRecord> = {}): MandateRecord => ({
  id: mandateId(d),
  mandate: d,
  signature: '0x',
  status: 'active',
  createdAt: '2026-06-01T00:00:00Z',
  spent: 0n,
  occurrences: 0,
  transfers: [],
  ...over,
});
const purchase = (over: Partial<MandatedPurchase> = {}): MandatedPurchase => ({
  txHash: `0x${'b'.repeat(64)}`,
  payer: WALLET,
  amount: BigInt(csv.x402.amount),
  skill: csv,
  treasury: TREASURY,
  chain: 'eip155:8453',
  now: NOW,
  ...over,
});

describe('AP2 mandates', () => {
  it('refuses an unknown constraint type, as AP2 requires, and a constraint given twice', () => {
    const unknown = MandateSchema.safeParse({
      vct: 'mandate.payment.open.1',
      wallet: WALLET,
      cnf: { address: AGENT },
      constraints: [{ type: 'payment.reference', conditional_transaction_id: 'x' }],
    });
    expect(unknown.success).toBe(false);
    expect(unknown.error!.issues[0]!.message).toContain('unknown constraint type');
    const twice = MandateSchema.safeParse({
      vct: 'mandate.payment.open.1',
      wallet: WALLET,
      cnf: { address: AGENT },
      constraints: [
        { type: 'payment.budget', currency: 'USDC', max: 1 },
        { type: 'payment.budget', currency: 'USDC', max: 2 },
      ],
    });
    expect(twice.success).toBe(false);
  });

  it('has one id per content, and reads the budget in major units (AP2) as atomic USDC', () => {
    const a = doc([{ type: 'payment.budget', currency: 'USDC', max: 1.5 }]);
    expect(mandateId(a)).toBe(mandateId(doc([{ currency: 'USDC', max: 1.5, type: 'payment.budget' }])));
    expect(spendLimits(a).budget).toBe(1_500_000n);
  });

  it('checks payer, amount range, payees, dates, scope, budget, occurrences and frequency', () => {
    const d = doc([
      { type: 'payment.amount_range', currency: 'USDC', max: csv.x402.amount },
      { type: 'payment.budget', currency: 'USDC', max: 1 },
      { type: 'payment.allowed_payees', allowed: [{ id: `eip155:8453:${TREASURY}` }] },
      { type: 'payment.execution_date', not_before: '2026-06-01T00:00:00Z', not_after: '2026-07-01T00:00:00Z' },
      { type: 'payment.agent_recurrence', frequency: 'DAILY', max_occurrences: 3 },
      { type: 'skill_market.scope', categories: [csv.category] },
    ]);
    expect(mandateProblem(record(d), purchase())).toBeUndefined();
    expect(mandateProblem(record(d), purchase({ payer: AGENT }))).toContain('not by the mandate');
    expect(mandateProblem(record(d), purchase({ amount: BigInt(csv.x402.amount) + 1n }))).toContain('amount_range');
    expect(mandateProblem(record(d), purchase({ treasury: AGENT }))).toContain('allowed_payees');
    expect(mandateProblem(record(d), purchase({ now: new Date('2026-07-02T00:00:00Z') }))).toContain('not after');
    expect(mandateProblem(record(d), purchase({ skill: canary }))).toContain('scope');
    expect(mandateProblem(record(d, { spent: 999_999n }), purchase())).toContain('payment.budget');
    expect(mandateProblem(record(d, { occurrences: 3 }), purchase())).toContain('occurrences');
    expect(mandateProblem(record(d, { lastSpentAt: '2026-06-15T00:00:00Z', occurrences: 1 }), purchase())).toContain('frequency');
    expect(mandateProblem(record(d, { status: 'revoked' }), purchase())).toContain('revoked');
    // A transfer already counted is delivered again, whatever is left.
    expect(mandateProblem(record(d, { spent: 1_000_000n, transfers: [purchase().txHash] }), purchase())).toBeUndefined();
  });
});

describe('accessCoverage: the first version a wallet’s access covers (issue 52, docs/ACCESS.md "Versions")', () => {
  const v = (version: number, published: string, digest: string) => ({
    skill_id: 'x',
    version,
    published,
    digest,
    file_count: 0,
    total_bytes: 0,
    files: [],
  });
  const versions = [v(1, '2026-01-10', '1'.repeat(64)), v(2, '2026-06-01', '2'.repeat(64)), v(3, '2026-06-20', '3'.repeat(64))];
  const rows: Record<string, { packSeal?: string; status: string }> = {
    '0xbought2': { packSeal: '2'.repeat(64), status: 'reorged' },
    '0xold': { packSeal: 'f'.repeat(64), status: 'reorged' },
  };
  const ports = {
    catalog: { versions: () => versions },
    payments: { config: { network: { name: 'base' } }, ledger: { get: async (_n: string, tx: string) => rows[tx] } },
  } as unknown as AccessPorts;
  const cover = (d: AccessDecision) => accessCoverage(d, 'x', ports, 'https://m.example').then((c) => c.coveredFrom);

  it('a purchase: the version its row recorded; a seal from before versions: 1. A subscription: the version current when it started. A meter draw: 1', async () => {
    const bought = (txHash: string): AccessDecision => ({
      granted: true,
      via: 'one-time',
      source: 'transfer',
      txHash,
      since: '',
      until: null,
    });
    expect(await cover(bought('0xbought2'))).toBe(2);
    expect(await cover(bought('0xold'))).toBe(1);
    const sub = (since: string): AccessDecision => ({
      granted: true,
      via: 'subscription',
      plan: 'p',
      since,
      until: '2027-01-01',
      cancelled: false,
    });
    expect(await cover(sub('2026-06-05T00:00:00Z'))).toBe(2);
    expect(await cover(sub('2026-07-01T00:00:00Z'))).toBe(3);
    expect(await cover({ granted: true, via: 'one-time', source: 'meter', until: null })).toBe(1);
  });
});
