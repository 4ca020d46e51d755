/**
 * The settlements table's payer and hour items against a DynamoDB Local of their own: the conditional
 * hold that keeps what the relayer has in flight for a payer within the payer's balance, however
 * many settlements (on however many instances) ask at once; release once; the cool-down; and the
 * sparse index of the settlements still in flight, which the stuck-settlements watch reads.
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { tableName } from '../../lambdas/platform/table-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLEMENTS_TABLE } from '../../lambdas/contract/tables';
import { dynamoInFlightSettlements, dynamoSettlements } from '../../lambdas/facilitator/adapters/dynamo-settlements';
import type { FundsHold, SettlementRecord } from '../../lambdas/facilitator/ports';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';

let db: ThrowawayDynamo;
let client: DynamoDBClient;

beforeAll(async () => {
  db = await throwawayDynamo([SETTLEMENTS_TABLE]);
  client = db.client;
});
afterAll(() => db?.stop());

const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const NOW = 1_795_000_000;
/** The relayer key that signed (any address: the store records it as the settlement's `relayer`). */
const RELAYER_KEY = '0x71bE63f3384f5fb98995898A86B02Fb2426c5788';
const hold = (payer: string, i: number, amount = 99_000n): FundsHold => ({
  pk: `eip155:8453#usdc#${payer}#${i}`,
  token: TOKEN,
  payer,
  amount,
});

describe('dynamoSettlements: what the relayer holds for a payer', () => {
  it('40 holds at once: exactly one is held (one settlement per payer and token in flight, I1); the same settlement holding again is one hold', async () => {
    const store = dynamoSettlements(client);
    const payer = '0x00000000000000000000000000000000000000a1';
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => store.hold(hold(payer, i), NOW)));
    const held = outcomes.flatMap((o, i) => (o.kind === 'held' ? [i] : []));
    expect(held).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'busy')).toHaveLength(39);
    expect((await store.holds(TOKEN, payer)).map((h) => h.pk)).toEqual([hold(payer, held[0]!).pk]);
    // Holding again: still one hold; nothing was released before it.
    expect(await store.hold(hold(payer, held[0]!), NOW)).toEqual({ kind: 'held', releasedAt: undefined, otherTokens: [] });
    // Another token of the same payer is a slot of its own.
    expect((await store.hold({ ...hold(payer, 200), token: '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA' }, NOW)).kind).toBe('held');
    // Released once (twice is once), the slot is free for another, which learns when it was released.
    const before = Date.now();
    await store.release(hold(payer, held[0]!));
    await store.release(hold(payer, held[0]!));
    const next = await store.hold(hold(payer, 99), NOW);
    expect(next.kind).toBe('held');
    expect(next.kind === 'held' && next.releasedAt! >= before).toBe(true);
    // It names the payer's settlement in flight in its other token (I6 is per payer and resource).
    expect(next.kind === 'held' && next.otherTokens).toEqual([hold(payer, 200).pk]);
    expect(await store.hold(hold(payer, 100), NOW)).toEqual({ kind: 'busy' });
  });

  it("a settled settlement's release notes it on the payer's item: the payer's next hold of that token names it, the last one only (I6)", async () => {
    const store = dynamoSettlements(client);
    const payer = '0x00000000000000000000000000000000000000a4';
    expect(await store.hold(hold(payer, 1), NOW)).toMatchObject({ kind: 'held', lastSettled: undefined });
    await store.release(hold(payer, 1), { settled: { resource: 'some-skill', at: 1_795_000_000_123 } });
    const next = await store.hold(hold(payer, 2), NOW);
    expect(next).toMatchObject({ kind: 'held', lastSettled: { pk: hold(payer, 1).pk, resource: 'some-skill', at: 1_795_000_000_123 } });
    // Holding again reads it too; a release without `settled` (a failure) leaves the note as it was.
    expect(await store.hold(hold(payer, 2), NOW)).toMatchObject({ lastSettled: { pk: hold(payer, 1).pk } });
    await store.release(hold(payer, 2));
    expect(await store.hold(hold(payer, 3), NOW)).toMatchObject({ lastSettled: { pk: hold(payer, 1).pk } });
    await store.release(hold(payer, 3), { settled: { resource: 'other-skill', at: 1_795_000_000_456 } });
    expect(await store.hold(hold(payer, 4), NOW)).toMatchObject({ lastSettled: { pk: hold(payer, 3).pk, resource: 'other-skill' } });
    // Another token's hold knows nothing of it.
    expect(await store.hold({ ...hold(payer, 5), token: '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA' }, NOW)).toMatchObject({
      kind: 'held',
      lastSettled: undefined,
    });
  });

  it('a release with a cool-down refuses every hold of the payer until then', async () => {
    const store = dynamoSettlements(client);
    const payer = '0x00000000000000000000000000000000000000a2';
    expect((await store.hold(hold(payer, 1), NOW)).kind).toBe('held');
    await store.release(hold(payer, 1), { coolUntil: NOW + 3600 });
    expect(await store.hold(hold(payer, 2), NOW + 10)).toEqual({ kind: 'cooling', until: NOW + 3600 });
    expect((await store.hold(hold(payer, 2), NOW + 3600)).kind).toBe('held');
    // A cool-down asked for after the hold was already released still applies.
    await store.release(hold(payer, 2));
    await store.release(hold(payer, 2), { coolUntil: NOW + 7200 });
    expect(await store.hold(hold(payer, 3), NOW + 3601)).toEqual({ kind: 'cooling', until: NOW + 7200 });
  });

  it("an owner's consumed authorization and a settlement's claim contend for one key: the first decides (I4)", async () => {
    const store = dynamoSettlements(client);
    const base: SettlementRecord = {
      pk: 'eip155:8453#usdc#0xabd#0x02',
      resource: 'csv-cleaner',
      payer: '0xabd',
      token: TOKEN.toLowerCase(),
      amount: '990000',
      state: 'claimed',
      lease: 'l',
      claimedAt: new Date(NOW * 1000).toISOString(),
    };
    const [consumed, claimed] = await Promise.all([
      store.consume({ ...base, state: 'failed', failure: 'authorization_consumed', lease: '', expiresAt: NOW + 120 }),
      store.claim(base),
    ]);
    expect([consumed.consumed, claimed.claimed].filter(Boolean)).toHaveLength(1);
    expect(await store.consume({ ...base, state: 'failed', failure: 'authorization_consumed', lease: '' })).toMatchObject({
      consumed: false,
    });
  });

  it("sums an hour's reverted gas, for the alarm's record, in one item per hour", async () => {
    const store = dynamoSettlements(client);
    await Promise.all([store.addRevertedGas('2026-11-26T09', 63_000n * 10n ** 9n), store.addRevertedGas('2026-11-26T09', 1n)]);
    const out = await client.send(
      new GetItemCommand({ TableName: tableName(SETTLEMENTS_TABLE), Key: marshall({ pk: 'REVERTS#2026-11-26T09' }) }),
    );
    expect(unmarshall(out.Item!)).toMatchObject({ wei: 63_000 * 10 ** 9 + 1, reverts: 2 });
  });
});

describe('dynamoInFlightSettlements: the settlements stuck in flight', () => {
  const settlement = (nonce: string, claimedAt: string): SettlementRecord => ({
    pk: `eip155:8453#${TOKEN.toLowerCase()}#0x00000000000000000000000000000000000000b1#${nonce}`,
    resource: 'csv-cleaner',
    payer: '0x00000000000000000000000000000000000000b1',
    token: TOKEN.toLowerCase(),
    amount: '1000',
    state: 'claimed',
    lease: 'mine',
    claimedAt,
  });

  it('holds a settlement from its claim (claimed or signed) until its outcome, in any of its 16 shards, within the window only', async () => {
    const store = dynamoSettlements(client);
    const inFlight = dynamoInFlightSettlements(client);
    const day = '2026-11-20T';
    // One nonce ending in each hex digit, so every shard holds one; claimed a minute apart.
    const records = [...'0123456789abcdef'].map((d, i) =>
      settlement(`0x${'7'.repeat(63)}${d}`, `${day}10:${String(i).padStart(2, '0')}:00.000Z`),
    );
    for (const r of records) expect(await store.claim(r)).toEqual({ claimed: true });
    const window = (): Promise<string[]> =>
      inFlight.claimedBetween(`${day}10:00:00.000Z`, `${day}10:16:00.000Z`).then((rows) => rows.map((r) => r.pk));
    expect(await window()).toEqual(records.map((r) => r.pk));
    // The window is half-open and by claim time.
    expect((await inFlight.claimedBetween(`${day}10:01:00.000Z`, `${day}10:03:00.000Z`)).map((r) => r.claimedAt)).toEqual([
      `${day}10:01:00.000Z`,
      `${day}10:02:00.000Z`,
    ]);

    // Signed is still in flight; settled, failed and abandoned are not.
    expect(await store.signed(records[0]!.pk, 'mine', { txHash: `0x${'1'.repeat(64)}`, raw: '0x02', from: RELAYER_KEY })).toBe(true);
    expect(await store.signed(records[1]!.pk, 'mine', { txHash: `0x${'2'.repeat(64)}`, raw: '0x03', from: RELAYER_KEY })).toBe(true);
    expect(
      await store.finish(records[0]!.pk, {
        state: 'settled',
        gasUsed: '1',
        effectiveGasPrice: '1',
        gasCostWei: '1',
        finishedAt: `${day}10:30:00.000Z`,
      }),
    ).toBe(true);
    expect(
      await store.finish(records[2]!.pk, { state: 'failed', failure: 'authorization_expired', finishedAt: `${day}10:30:00.000Z` }),
    ).toBe(true);
    expect(
      await store.finish(records[3]!.pk, { state: 'failed', failure: 'payer_settlement_in_flight', finishedAt: `${day}10:30:00.000Z` }),
    ).toBe(true);
    expect(await window()).toEqual(
      records
        .slice(1)
        .filter((_, i) => i !== 1 && i !== 2)
        .map((r) => r.pk),
    );
    // A taken-over claim moves to its new claim time.
    expect(await store.takeOver(records[4]!.pk, 'mine', { lease: 'next', claimedAt: `${day}11:00:00.000Z` })).toBe(true);
    expect(await window()).not.toContain(records[4]!.pk);
    expect((await inFlight.claimedBetween(`${day}11:00:00.000Z`, `${day}11:00:01.000Z`)).map((r) => r.pk)).toEqual([records[4]!.pk]);
  });
});
