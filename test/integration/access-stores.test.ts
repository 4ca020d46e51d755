/**
 * The access table's stores (mandates, subscriptions, meters) against a DynamoDB Local of their own:
 * every method, and the races that matter for money (parallel spends and draws never pass a
 * budget, a cap or a balance; a retried transfer counts once). the database serialises requests the
 * way DynamoDB serialises writes to one item, so what holds here is the conditions' doing.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoMandates } from '../../lambdas/access/adapters/dynamo-mandates';
import { dynamoMeters } from '../../lambdas/access/adapters/dynamo-meters';
import { dynamoSubscriptions } from '../../lambdas/access/adapters/dynamo-subscriptions';
import type { MandateRecord, MandateStore, MeterStore, SubscriptionStore } from '../../lambdas/access/ports';
import { ACCESS_TABLE } from '../../lambdas/contract/tables';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';

let db: ThrowawayDynamo;
let client: DynamoDBClient;
let mandates: MandateStore;
let subscriptions: SubscriptionStore;
let meters: MeterStore;

beforeAll(async () => {
  db = await throwawayDynamo([ACCESS_TABLE]);
  client = db.client;
  mandates = dynamoMandates(client);
  subscriptions = dynamoSubscriptions(client);
  meters = dynamoMeters(client);
});

afterAll(() => db?.stop());

/** A fresh EIP-55-looking (mixed case) address, so lower-casing is exercised. */
const wallet = (): string => `0x${randomBytes(20).toString('hex').toUpperCase().slice(0, 20)}${randomBytes(10).toString('hex')}`;
const txHash = (): string => `0x${randomBytes(32).toString('hex')}`;
const T0 = new Date('2025-01-15T12:00:00.000Z');

function mandate(owner: string, overrides: Partial<MandateRecord> = {}): MandateRecord {
  return {
    id: `m-${randomBytes(8).toString('hex')}`,
    mandate: {
      vct: 'mandate.payment.open.1',
      wallet: owner,
      cnf: { address: wallet() },
      constraints: [
        { type: 'payment.budget', currency: 'USDC', max: 100 },
        { type: 'payment.amount_range', currency: 'USDC', max: '50', min: undefined },
      ],
      iat: 1_700_000_000,
    },
    signature: `0x${'ab'.repeat(65)}`,
    status: 'active',
    createdAt: new Date().toISOString(),
    spent: 0n,
    occurrences: 0,
    transfers: [],
    ...overrides,
  };
}

describe('mandates', () => {
  it('creates once: a second create returns the stored record untouched', async () => {
    const owner = wallet();
    const m = mandate(owner);
    const first = await mandates.create(m);
    expect(first.created).toBe(true);
    await mandates.spend(m.id, { txHash: txHash(), amount: 7n }, { now: T0 });
    const again = await mandates.create(m);
    expect(again.created).toBe(false);
    expect(again.record.spent).toBe(7n);
    const got = await mandates.get(m.id);
    // The document comes back exactly, undefined members and all as JSON keeps them.
    expect(got?.mandate).toEqual(JSON.parse(JSON.stringify(m.mandate)));
    expect(got).toMatchObject({ id: m.id, signature: m.signature, status: 'active', createdAt: m.createdAt, occurrences: 1 });
    expect(await mandates.get('m-missing')).toBeUndefined();
  });

  it('keeps amounts beyond 2^53 exact', async () => {
    const m = mandate(wallet());
    await mandates.create(m);
    const big = 2n ** 60n + 1n;
    const out = await mandates.spend(m.id, { txHash: txHash(), amount: big }, { budget: big, now: T0 });
    expect(out.kind).toBe('spent');
    expect((await mandates.get(m.id))?.spent).toBe(big);
  });

  it("lists a wallet's mandates newest first, and only its own", async () => {
    const owner = wallet();
    const older = mandate(owner, { createdAt: '2025-01-01T00:00:00.000Z' });
    const newer = mandate(owner, { createdAt: '2025-02-01T00:00:00.000Z' });
    await mandates.create(older);
    await mandates.create(newer);
    await mandates.create(mandate(wallet()));
    // A subscription and a meter in the same wallet partition are not mandates.
    await subscriptions.extend(owner, 'pro', txHash(), 60, T0, { reactivate: true });
    await meters.credit(owner, txHash(), 5n, T0);
    const listed = await mandates.list(owner.toLowerCase());
    expect(listed.map((r) => r.id)).toEqual([newer.id, older.id]);
    expect(await mandates.list(owner)).toHaveLength(2);
  });

  it("revokes once, and only by its own wallet: another wallet's revoke is not_found and changes nothing", async () => {
    const owner = wallet();
    const m = mandate(owner);
    await mandates.create(m);
    expect(await mandates.revoke(m.id, wallet(), T0)).toBe('not_found');
    expect((await mandates.get(m.id))?.status).toBe('active');
    expect(await mandates.revoke('m-missing', owner, T0)).toBe('not_found');
    expect(await mandates.revoke(m.id, owner.toLowerCase(), T0)).toBe('revoked');
    expect(await mandates.revoke(m.id, owner, new Date(T0.getTime() + 1000))).toBe('already_revoked');
    const got = await mandates.get(m.id);
    expect(got?.status).toBe('revoked');
    expect(got?.revokedAt).toBe(T0.toISOString());
  });

  it('counts one transfer once, however often it is spent', async () => {
    const m = mandate(wallet());
    await mandates.create(m);
    const tx = txHash();
    const first = await mandates.spend(m.id, { txHash: tx, amount: 10n }, { budget: 100n, now: T0 });
    expect(first.kind).toBe('spent');
    const second = await mandates.spend(m.id, { txHash: tx.toUpperCase().replace('0X', '0x'), amount: 10n }, { budget: 100n, now: T0 });
    expect(second.kind).toBe('already_counted');
    const got = await mandates.get(m.id);
    expect(got).toMatchObject({ spent: 10n, occurrences: 1, transfers: [tx], lastSpentAt: T0.toISOString() });
  });

  it('never passes the budget: 20 parallel spends of 10 against 100 spend exactly 10 of them', async () => {
    const m = mandate(wallet());
    await mandates.create(m);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => mandates.spend(m.id, { txHash: txHash(), amount: 10n }, { budget: 100n, now: T0 })),
    );
    expect(results.filter((r) => r.kind === 'spent')).toHaveLength(10);
    expect(results.filter((r) => r.kind === 'refused' && r.reason === 'budget')).toHaveLength(10);
    const got = await mandates.get(m.id);
    expect(got?.spent).toBe(100n);
    expect(got?.occurrences).toBe(10);
    expect(got?.transfers).toHaveLength(10);
  });

  it('refuses a transfer bigger than the whole budget without writing', async () => {
    const m = mandate(wallet());
    await mandates.create(m);
    const out = await mandates.spend(m.id, { txHash: txHash(), amount: 101n }, { budget: 100n, now: T0 });
    expect(out).toMatchObject({ kind: 'refused', reason: 'budget' });
    expect((await mandates.get(m.id))?.spent).toBe(0n);
  });

  it('stops at maxOccurrences', async () => {
    const m = mandate(wallet());
    await mandates.create(m);
    const spend = () => mandates.spend(m.id, { txHash: txHash(), amount: 1n }, { maxOccurrences: 2, now: T0 });
    expect((await spend()).kind).toBe('spent');
    expect((await spend()).kind).toBe('spent');
    expect(await spend()).toMatchObject({ kind: 'refused', reason: 'occurrences' });
    expect((await mandates.get(m.id))?.occurrences).toBe(2);
  });

  it('waits minSecondsBetween between transfers', async () => {
    const m = mandate(wallet());
    await mandates.create(m);
    const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
    const spend = (now: Date) => mandates.spend(m.id, { txHash: txHash(), amount: 1n }, { minSecondsBetween: 60, now });
    expect((await spend(at(0))).kind).toBe('spent');
    expect(await spend(at(30))).toMatchObject({ kind: 'refused', reason: 'frequency' });
    expect((await spend(at(60))).kind).toBe('spent');
  });

  it('refuses spends on a revoked or unknown mandate, but a counted transfer stays counted', async () => {
    const owner = wallet();
    const m = mandate(owner);
    await mandates.create(m);
    const tx = txHash();
    await mandates.spend(m.id, { txHash: tx, amount: 5n }, { now: T0 });
    await mandates.revoke(m.id, owner, T0);
    expect(await mandates.spend(m.id, { txHash: txHash(), amount: 5n }, { now: T0 })).toMatchObject({ kind: 'refused', reason: 'revoked' });
    expect((await mandates.spend(m.id, { txHash: tx, amount: 5n }, { now: T0 })).kind).toBe('already_counted');
    expect(await mandates.spend('m-missing', { txHash: txHash(), amount: 5n }, { now: T0 })).toEqual({
      kind: 'refused',
      reason: 'not_found',
      record: undefined,
    });
    expect((await mandates.get(m.id))?.spent).toBe(5n);
  });
});

describe('subscriptions', () => {
  const PERIOD = 30 * 24 * 3600;
  const plus = (d: Date, periods: number): string => new Date(d.getTime() + periods * PERIOD * 1000).toISOString();

  it('extends from now, then from the current end; a transfer applies once', async () => {
    const owner = wallet();
    const tx1 = txHash();
    const first = await subscriptions.extend(owner, 'pro', tx1, PERIOD, T0, { reactivate: false });
    expect(first.kind).toBe('extended');
    expect(first.record).toMatchObject({
      wallet: owner.toLowerCase(),
      plan: 'pro',
      status: 'active',
      startedAt: T0.toISOString(),
      periodEnd: plus(T0, 1),
    });
    const later = new Date(T0.getTime() + 1000);
    const second = await subscriptions.extend(owner, 'pro', txHash(), PERIOD, later, { reactivate: false });
    expect(second.record.periodEnd).toBe(plus(T0, 2));
    expect(second.record.startedAt).toBe(T0.toISOString());
    const replay = await subscriptions.extend(owner, 'pro', tx1, PERIOD, later, { reactivate: false });
    expect(replay.kind).toBe('already_applied');
    expect(replay.record.periodEnd).toBe(plus(T0, 2));
    expect(replay.record.transfers).toHaveLength(2);
  });

  it('starts from now again once the paid time has run out', async () => {
    const owner = wallet();
    await subscriptions.extend(owner, 'pro', txHash(), PERIOD, T0, { reactivate: false });
    const muchLater = new Date(T0.getTime() + 10 * PERIOD * 1000);
    const out = await subscriptions.extend(owner, 'pro', txHash(), PERIOD, muchLater, { reactivate: false });
    expect(out.record.periodEnd).toBe(plus(muchLater, 1));
  });

  it('applies 5 parallel transfers each once: the end moves by 5 periods', async () => {
    const owner = wallet();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => subscriptions.extend(owner, 'team', txHash(), PERIOD, T0, { reactivate: false })),
    );
    expect(results.every((r) => r.kind === 'extended')).toBe(true);
    const got = await subscriptions.get(owner, 'team');
    expect(got?.periodEnd).toBe(plus(T0, 5));
    expect(got?.transfers).toHaveLength(5);
  });

  it('cancels once; a cancelled one is renewed only by a reactivating start', async () => {
    const owner = wallet();
    expect(await subscriptions.cancel(owner, 'pro', T0)).toEqual({ kind: 'not_found' });
    await subscriptions.extend(owner, 'pro', txHash(), PERIOD, T0, { reactivate: false });
    const cancelled = await subscriptions.cancel(owner, 'pro', T0);
    expect(cancelled.kind).toBe('cancelled');
    expect(cancelled).toMatchObject({ record: { status: 'cancelled', cancelledAt: T0.toISOString() } });
    expect((await subscriptions.cancel(owner, 'pro', new Date(T0.getTime() + 1))).kind).toBe('already_cancelled');

    const tx = txHash();
    const refused = await subscriptions.extend(owner, 'pro', tx, PERIOD, T0, { reactivate: false });
    expect(refused.kind).toBe('cancelled');
    expect(refused.record.periodEnd).toBe(plus(T0, 1));

    const restarted = await subscriptions.extend(owner, 'pro', tx, PERIOD, T0, { reactivate: true });
    expect(restarted.kind).toBe('extended');
    expect(restarted.record.status).toBe('active');
    expect(restarted.record.cancelledAt).toBeUndefined();
    expect(restarted.record.periodEnd).toBe(plus(T0, 2));
    // Restarted within its paid time: the same run of access.
    expect(restarted.record.startedAt).toBe(T0.toISOString());
  });

  it("gets and lists a wallet's subscriptions only", async () => {
    const owner = wallet();
    await subscriptions.extend(owner, 'pro', txHash(), PERIOD, T0, { reactivate: false });
    await subscriptions.extend(owner, 'team', txHash(), PERIOD, T0, { reactivate: false });
    await mandates.create(mandate(owner));
    await meters.credit(owner, txHash(), 5n, T0);
    expect(await subscriptions.get(owner, 'basic')).toBeUndefined();
    expect((await subscriptions.get(owner.toLowerCase(), 'pro'))?.plan).toBe('pro');
    expect((await subscriptions.list(owner)).map((r) => r.plan).sort()).toEqual(['pro', 'team']);
    expect(await subscriptions.list(wallet())).toEqual([]);
  });
});

describe('meters', () => {
  const FEB = new Date('2025-02-03T00:00:00.000Z');

  it('credits a top-up once, creating the meter on the first', async () => {
    const owner = wallet();
    expect(await meters.get(owner)).toBeUndefined();
    const tx = txHash();
    const first = await meters.credit(owner, tx, 50n, T0);
    expect(first.kind).toBe('credited');
    expect(first.record).toEqual({
      wallet: owner.toLowerCase(),
      balance: 50n,
      cap: undefined,
      period: '2025-01',
      spentInPeriod: 0n,
      toppedUp: 50n,
      drawn: [],
      credited: [tx],
    });
    const again = await meters.credit(owner, tx, 50n, T0);
    expect(again.kind).toBe('already_credited');
    expect(again.record.balance).toBe(50n);
    const more = await meters.credit(owner, txHash(), 2n ** 60n, T0);
    expect(more.record.balance).toBe(2n ** 60n + 50n);
    expect(more.record.toppedUp).toBe(2n ** 60n + 50n);
  });

  it('draws down to exactly zero, then refuses; a skill drawn twice is charged once', async () => {
    const owner = wallet();
    await meters.credit(owner, txHash(), 20n, T0);
    expect((await meters.draw(owner, 'a', 10n, T0)).kind).toBe('drawn');
    const again = await meters.draw(owner, 'a', 10n, T0);
    expect(again).toMatchObject({ kind: 'already_drawn', record: { balance: 10n } });
    const last = await meters.draw(owner, 'b', 10n, T0);
    expect(last.kind).toBe('drawn');
    expect(last.record).toMatchObject({ balance: 0n, spentInPeriod: 20n, drawn: expect.arrayContaining(['a', 'b']) });
    expect(await meters.draw(owner, 'c', 1n, T0)).toMatchObject({ kind: 'refused', reason: 'balance' });
    expect(await meters.draw(wallet(), 'c', 1n, T0)).toEqual({ kind: 'refused', reason: 'no_meter', record: undefined });
  });

  it('never goes below zero: 20 parallel draws of 10 against 55 draw exactly 5', async () => {
    const owner = wallet();
    await meters.credit(owner, txHash(), 55n, T0);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => meters.draw(owner, `skill-${i}`, 10n, T0)));
    expect(results.filter((r) => r.kind === 'drawn')).toHaveLength(5);
    expect(results.filter((r) => r.kind === 'refused' && r.reason === 'balance')).toHaveLength(15);
    const got = await meters.get(owner);
    expect(got?.balance).toBe(5n);
    expect(got?.drawn).toHaveLength(5);
    expect(got?.spentInPeriod).toBe(50n);
  });

  it('keeps the month within the cap, also under 20 parallel draws', async () => {
    const owner = wallet();
    await meters.credit(owner, txHash(), 100n, T0);
    expect(await meters.setCap(wallet(), 30n, T0)).toBeUndefined();
    const capped = await meters.setCap(owner, 30n, T0);
    expect(capped).toMatchObject({ cap: 30n, balance: 100n });
    for (const skill of ['a', 'b', 'c']) expect((await meters.draw(owner, skill, 10n, T0)).kind).toBe('drawn');
    expect(await meters.draw(owner, 'd', 10n, T0)).toMatchObject({ kind: 'refused', reason: 'cap' });

    const other = wallet();
    await meters.credit(other, txHash(), 1000n, T0);
    await meters.setCap(other, 45n, T0);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => meters.draw(other, `skill-${i}`, 10n, T0)));
    expect(results.filter((r) => r.kind === 'drawn')).toHaveLength(4);
    expect(results.filter((r) => r.kind === 'refused' && r.reason === 'cap')).toHaveLength(16);
    expect(await meters.get(other)).toMatchObject({ balance: 960n, spentInPeriod: 40n });
  });

  it('lowers and removes the cap against what the month has spent', async () => {
    const owner = wallet();
    await meters.credit(owner, txHash(), 100n, T0);
    await meters.setCap(owner, 50n, T0);
    await meters.draw(owner, 'a', 20n, T0);
    // Below what the month already spent: nothing more this month, and no negative headroom.
    await meters.setCap(owner, 10n, T0);
    expect(await meters.draw(owner, 'b', 1n, T0)).toMatchObject({ kind: 'refused', reason: 'cap' });
    const uncapped = await meters.setCap(owner, undefined, T0);
    expect(uncapped?.cap).toBeUndefined();
    expect((await meters.draw(owner, 'b', 1n, T0)).kind).toBe('drawn');
    expect(await meters.setCap(wallet(), undefined, T0)).toBeUndefined();
  });

  it('starts a new month with nothing spent against the cap', async () => {
    const owner = wallet();
    await meters.credit(owner, txHash(), 100n, T0);
    await meters.setCap(owner, 30n, T0);
    for (const skill of ['a', 'b', 'c']) await meters.draw(owner, skill, 10n, T0);
    expect(await meters.draw(owner, 'd', 10n, T0)).toMatchObject({ kind: 'refused', reason: 'cap' });
    const feb = await meters.draw(owner, 'd', 10n, FEB);
    expect(feb.kind).toBe('drawn');
    expect(feb.record).toMatchObject({ period: '2025-02', spentInPeriod: 10n, balance: 60n });
    for (const skill of ['e', 'f']) expect((await meters.draw(owner, skill, 10n, FEB)).kind).toBe('drawn');
    expect(await meters.draw(owner, 'g', 10n, FEB)).toMatchObject({ kind: 'refused', reason: 'cap' });

    // setCap rolls the month over too, and an uncapped meter rolls over on its first draw.
    const march = new Date('2025-03-01T00:00:00.000Z');
    expect(await meters.setCap(owner, 30n, march)).toMatchObject({ period: '2025-03', spentInPeriod: 0n });
    const plain = wallet();
    await meters.credit(plain, txHash(), 100n, T0);
    await meters.draw(plain, 'a', 10n, T0);
    expect((await meters.draw(plain, 'b', 10n, FEB)).record).toMatchObject({ period: '2025-02', spentInPeriod: 10n, balance: 80n });
  });

  it('rolls over once under parallel first draws of a new month', async () => {
    const owner = wallet();
    await meters.credit(owner, txHash(), 1000n, T0);
    await meters.setCap(owner, 30n, T0);
    await meters.draw(owner, 'jan', 30n, T0);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => meters.draw(owner, `feb-${i}`, 10n, FEB)));
    expect(results.filter((r) => r.kind === 'drawn')).toHaveLength(3);
    expect(await meters.get(owner)).toMatchObject({ period: '2025-02', spentInPeriod: 30n, balance: 940n });
  });
});
