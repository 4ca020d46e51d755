/**
 * The checkout table's stores and the card sales against a DynamoDB Local of their own: the
 * conditions that keep money straight (one sale per session, transitions only from the states
 * named, Idempotency-Keys that replay, refuse another body, and hold a request in flight).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoCheckoutSessions, dynamoHandledEvents, dynamoIdempotencyKeys } from '../../lambdas/checkout/adapters/dynamo-checkout';
import type { CheckoutSession } from '../../lambdas/checkout/ports';
import { CARD_SALES_TABLE, CHECKOUT_TABLE } from '../../lambdas/contract/tables';
import { dynamoCardSales } from '../../lambdas/ledger/adapters/dynamo-card-sales';
import type { CardSale } from '../../lambdas/payments/ports';
import { throwawayDynamo, type ThrowawayDynamo } from '../support/dynamodb-local';

let db: ThrowawayDynamo;
let client: DynamoDBClient;

beforeAll(async () => {
  db = await throwawayDynamo([CHECKOUT_TABLE, CARD_SALES_TABLE]);
  client = db.client;
});
afterAll(() => db?.stop());

const T0 = new Date('2026-11-23T12:00:00Z');
const session = (id: string): CheckoutSession => ({
  id,
  protocol: 'ucp',
  skill: 'csv-cleaner',
  name: 'CSV Cleaner',
  amountCents: 1000,
  currency: 'usd',
  buyerEmail: undefined,
  state: 'open',
  stripeSessionId: `cs_test_${id}`,
  continueUrl: `https://checkout.stripe.test/${id}`,
  createdAt: T0.toISOString(),
  updatedAt: T0.toISOString(),
  expiresAt: T0.toISOString(),
});

describe('sessions', () => {
  it('are found by Stripe id, and change only from the states named', async () => {
    const store = dynamoCheckoutSessions(client);
    await store.create(session('chk_a'));
    await expect(store.create(session('chk_a'))).rejects.toThrow();
    expect((await store.byStripeId('cs_test_chk_a'))?.id).toBe('chk_a');
    expect(await store.byStripeId('cs_test_nope')).toBeUndefined();

    const done = await store.transition(
      'chk_a',
      ['open', 'processing'],
      { state: 'completed', buyerEmail: undefined },
      new Date(T0.getTime() + 1000),
    );
    expect(done).toMatchObject({ ok: true, session: { state: 'completed', updatedAt: '2026-11-23T12:00:01.000Z' } });
    // A late `expired` (only from open) loses, and says what the session now is.
    expect(await store.transition('chk_a', ['open'], { state: 'expired', closedReason: 'expired' }, T0)).toMatchObject({
      ok: false,
      current: { state: 'completed' },
    });
    expect(await store.transition('chk_missing', ['open'], { state: 'canceled' }, T0)).toEqual({ ok: false, current: undefined });
  });

  it('a cancel and an expiry racing from open: exactly one wins; a confirmed payment still completes after it', async () => {
    const store = dynamoCheckoutSessions(client);
    await store.create(session('chk_race'));
    const results = await Promise.all([
      store.transition('chk_race', ['open'], { state: 'canceled', closedReason: 'canceled' }, T0),
      store.transition('chk_race', ['open'], { state: 'expired', closedReason: 'expired' }, T0),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const winner = results.find((r) => r.ok)!;
    expect((await store.get('chk_race'))!.state).toBe(winner.ok ? winner.session.state : '');
    expect(await store.transition('chk_race', ['open', 'processing', 'canceled', 'expired'], { state: 'completed' }, T0)).toMatchObject({
      ok: true,
    });
  });
});

describe('the first delivery for a Stripe session id alone (issue 31, finding 8)', () => {
  it('is one conditional write: of ten callers racing, exactly one is first, and the rest read whose it was', async () => {
    const store = dynamoCheckoutSessions(client);
    await store.create(session('chk_deliver'));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.claimFirstDelivery('chk_deliver', `caller-${i}`, new Date(T0.getTime() + i))),
    );
    const winners = results.filter((r) => r.first);
    expect(winners).toHaveLength(1);
    const stored = (await store.get('chk_deliver'))!;
    expect(stored.deliveredTo).toMatch(/^caller-\d$/);
    for (const r of results)
      if (!r.first) expect(r.current).toMatchObject({ deliveredAt: stored.deliveredAt, deliveredTo: stored.deliveredTo });
    // Later transitions keep it.
    await store.transition('chk_deliver', ['open'], { state: 'completed' }, T0);
    expect(await store.get('chk_deliver')).toMatchObject({ state: 'completed', deliveredTo: stored.deliveredTo });
    expect(await store.claimFirstDelivery('chk_missing', 'caller-x', T0)).toEqual({ first: false, current: undefined });
  });
});

describe('card sales', () => {
  it('the first record wins; a second answers the sale recorded', async () => {
    const sales = dynamoCardSales(client);
    const sale: CardSale = {
      id: 'chk_sale',
      protocol: 'acp',
      skill: 'ten-send',
      amountCents: 1900,
      priceCents: 1900,
      currency: 'usd',
      stripeSessionId: 'cs_test_sale',
      paymentIntent: undefined,
      livemode: false,
      recordedAt: T0.toISOString(),
      status: 'paid',
    };
    const [a, b] = await Promise.all([sales.record(sale), sales.record({ ...sale, recordedAt: '2026-11-23T12:00:05.000Z' })]);
    expect([a.recorded, b.recorded].sort()).toEqual([false, true]);
    const [won, lost] = a.recorded ? [a, b] : [b, a];
    // The loser gets the stored sale (undefined fields are not stored) from the refusal itself.
    const stored = JSON.parse(JSON.stringify(won.sale)) as Record<string, unknown>;
    expect(lost.sale).toMatchObject(stored);
    expect(await sales.get('chk_sale')).toMatchObject(stored);
  });

  it('a late fee is written once, racing deliveries included, and counts as a change a refund after it keeps', async () => {
    const sales = dynamoCardSales(client);
    const sale: CardSale = {
      id: 'chk_fee',
      protocol: 'acp',
      skill: 'ten-send',
      amountCents: 1900,
      priceCents: 1900,
      currency: 'usd',
      stripeSessionId: 'cs_test_fee',
      paymentIntent: 'pi_fee',
      livemode: false,
      recordedAt: T0.toISOString(),
      status: 'paid',
    };
    await sales.record(sale);
    const fee = { balanceTransaction: 'txn_fee', feeCents: 85, netCents: 1815, feeCurrency: 'usd' };
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => sales.recordFee('chk_fee', 'ch_fee', { ...fee, feeCents: 85 + i, netCents: 1815 - i })),
    );
    expect(results.filter((r) => r?.applied)).toHaveLength(1);
    const withFee = (await sales.get('chk_fee'))!;
    expect(withFee.feeCents! + withFee.netCents!).toBe(1900);
    expect(withFee).toMatchObject({ chargeId: 'ch_fee', balanceTransaction: 'txn_fee', feeCurrency: 'usd', changes: 1 });
    expect(await sales.recordFee('chk_fee', 'ch_fee', fee)).toEqual({ applied: false });
    expect(await sales.recordFee('chk_none', 'ch_fee', fee)).toBeUndefined();
    // A refund after it keeps the fee (the refund's write is conditioned on the count the fee bumped).
    await sales.change('chk_fee', { kind: 'refund', refundedCents: 300, at: T0.toISOString(), event: 'evt_r' });
    expect(await sales.get('chk_fee')).toMatchObject({ feeCents: withFee.feeCents, refundedCents: 300, changes: 2 });
  });
});

describe('Idempotency-Keys', () => {
  it('replay the same request, refuse another, hold one in flight, and release a fault', async () => {
    const keys = dynamoIdempotencyKeys(client);
    expect(await keys.begin('acp', 'k1', 'print-a', T0)).toEqual({ kind: 'started' });
    expect(await keys.begin('acp', 'k1', 'print-a', T0)).toMatchObject({ kind: 'in_flight' });
    expect(await keys.begin('acp', 'k1', 'print-b', T0)).toEqual({ kind: 'mismatch' });
    // Keys are per scope: protocol, and whose key it is (protocol-routes.ts).
    expect(await keys.begin('ucp', 'k1', 'print-b', T0)).toEqual({ kind: 'started' });
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"chk_1"}' };
    await keys.finish('acp', 'k1', 'print-a', response, T0);
    expect(await keys.begin('acp', 'k1', 'print-a', T0)).toEqual({ kind: 'replay', response });

    expect(await keys.begin('acp', 'k2', 'print-c', T0)).toEqual({ kind: 'started' });
    await keys.abandon('acp', 'k2', 'print-c');
    expect(await keys.begin('acp', 'k2', 'print-d', T0)).toEqual({ kind: 'started' });
    // A request that died in flight is taken over after its lock, by the same request only.
    const later = new Date(T0.getTime() + 60_000);
    expect(await keys.begin('acp', 'k2', 'print-e', later)).toEqual({ kind: 'mismatch' });
    expect(await keys.begin('acp', 'k2', 'print-d', later)).toEqual({ kind: 'started' });
  });

  it('handled events are remembered', async () => {
    const events = dynamoHandledEvents(client);
    expect(await events.seen('evt_1')).toBe(false);
    await events.remember('evt_1', 'checkout.session.completed', T0);
    expect(await events.seen('evt_1')).toBe(true);
  });
});
