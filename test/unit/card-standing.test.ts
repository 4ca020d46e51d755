import { describe, expect, it } from 'vitest';
import {
  applyCardChange,
  cardSaleStatus,
  reversedCents,
  type CardChange,
  type CardStanding,
} from '../../lambdas/ledger/core/card-standing';

const paid: CardStanding = { amountCents: 1900, status: 'paid' };
const refund = (cents: number, at = '2026-12-02T10:00:00.000Z', event = `evt_r${cents}`): CardChange => ({
  kind: 'refund',
  refundedCents: cents,
  at,
  event,
});
const facts = { id: 'dp_1', amountCents: 1900, reason: 'fraudulent', inquiry: false };
const opened: CardChange = { kind: 'dispute_opened', dispute: facts, at: '2026-12-03T00:00:00.000Z', event: 'evt_do' };
const closed = (outcome: 'won' | 'lost' | 'closed', inquiry = false): CardChange => ({
  kind: 'dispute_closed',
  dispute: { ...facts, inquiry, openedAt: '2026-12-03T00:00:00.000Z' },
  outcome,
  at: '2026-12-20T00:00:00.000Z',
  event: `evt_dc_${outcome}`,
});

/** Applies changes in order, a change the sale already reflects leaving it as it is. */
const after = (...changes: CardChange[]): CardStanding =>
  changes.reduce<CardStanding>((sale, c) => {
    const next = applyCardChange(sale, c);
    return next === 'unchanged' ? sale : next;
  }, paid);

describe('card sale standing', () => {
  it('a partial refund leaves the sale standing; the rest refunded stops it; each refund is recorded once, on its own day', () => {
    const partial = after(refund(500));
    expect(partial).toMatchObject({ status: 'paid', refundedCents: 500 });
    const full = after(refund(500), refund(1900, '2026-12-09T00:00:00.000Z'));
    expect(full.status).toBe('refunded');
    expect(Object.values(full.reversals!)).toEqual([
      { kind: 'refund', amountCents: 500, at: '2026-12-02T10:00:00.000Z', event: 'evt_r500' },
      { kind: 'refund', amountCents: 1400, at: '2026-12-09T00:00:00.000Z', event: 'evt_r1900' },
    ]);
    expect(reversedCents(full)).toBe(1900);
  });

  it('a redelivered refund, or an older one after a newer, changes nothing', () => {
    const full = after(refund(1900));
    expect(applyCardChange(full, refund(1900))).toBe('unchanged');
    expect(applyCardChange(full, refund(500))).toBe('unchanged');
    // Out of order: the newer total first; the older event then adds nothing.
    expect(after(refund(1900), refund(500))).toEqual(full);
  });

  it('a dispute withdraws its amount and stops the license; won gives both back, lost keeps both', () => {
    const open = after(opened);
    expect(open.status).toBe('disputed');
    expect(reversedCents(open)).toBe(1900);
    const won = after(opened, closed('won'));
    expect(won).toMatchObject({ status: 'paid', dispute: { status: 'won', closedAt: '2026-12-20T00:00:00.000Z' } });
    expect(reversedCents(won)).toBe(0);
    const lost = after(opened, closed('lost'));
    expect(lost.status).toBe('disputed');
    expect(reversedCents(lost)).toBe(1900);
    expect(applyCardChange(won, closed('won'))).toBe('unchanged');
    expect(applyCardChange(won, opened)).toBe('unchanged');
  });

  it('a dispute closed before its opening is seen ends as if seen in order', () => {
    const inOrder = after(opened, closed('won'));
    const closedFirst = after(closed('won'), opened);
    expect(closedFirst.status).toBe('paid');
    expect(reversedCents(closedFirst)).toBe(0);
    expect(Object.keys(closedFirst.reversals!).sort()).toEqual(Object.keys(inOrder.reversals!).sort());
    expect(after(closed('lost'), opened).status).toBe('disputed');
  });

  it('an inquiry moves no money and leaves the license; one that became a chargeback and was lost withdraws once', () => {
    const inquiry: CardChange = { ...opened, dispute: { ...facts, inquiry: true } } as CardChange;
    expect(after(inquiry)).toMatchObject({ status: 'paid', reversals: {} });
    expect(after(inquiry, closed('closed', true))).toMatchObject({ status: 'paid', dispute: { status: 'closed' } });
    const lost = after(inquiry, closed('lost'));
    expect(lost.status).toBe('disputed');
    expect(reversedCents(lost)).toBe(1900);
  });

  it('status follows the facts alone', () => {
    expect(cardSaleStatus({ amountCents: 1900 })).toBe('paid');
    expect(cardSaleStatus({ amountCents: 1900, refundedCents: 1899 })).toBe('paid');
    expect(cardSaleStatus({ amountCents: 1900, refundedCents: 1900 })).toBe('refunded');
    const dispute = { id: 'dp', status: 'won', inquiry: false, amountCents: 1900, reason: 'x', openedAt: 't' } as const;
    expect(cardSaleStatus({ amountCents: 1900, refundedCents: 1900, dispute })).toBe('refunded');
    expect(cardSaleStatus({ amountCents: 1900, dispute: { ...dispute, status: 'open' } })).toBe('disputed');
  });
});

describe("Stripe's dispute fees on the reversals", () => {
  const withdrawal = { feeCents: 1500, currency: 'usd' };
  const withFees = (fees: object): CardChange[] => [
    { kind: 'dispute_opened', dispute: { ...facts, fees: { withdrawal } }, at: '2026-12-03T00:00:00.000Z', event: 'evt_do' },
    {
      kind: 'dispute_closed',
      dispute: { ...facts, openedAt: '2026-12-03T00:00:00.000Z', fees },
      outcome: 'won',
      at: '2026-12-20T00:00:00.000Z',
      event: 'evt_dc',
    },
  ];

  it("the withdrawal carries the dispute fee; a won dispute's reinstatement carries what Stripe gave back", () => {
    const won = after(...withFees({ withdrawal, reinstatement: { feeCents: -1500, currency: 'usd' } }));
    expect(won.reversals!['dispute:dp_1:withdrawn']).toMatchObject({ amountCents: 1900, feeCents: 1500, feeCurrency: 'usd' });
    expect(won.reversals!['dispute:dp_1:reinstated']).toMatchObject({ amountCents: -1900, feeCents: -1500, feeCurrency: 'usd' });
    // Kept: Stripe reported no fee on the reinstatement, so none is recorded (not a zero made up here).
    const kept = after(...withFees({ withdrawal }));
    expect(kept.reversals!['dispute:dp_1:reinstated']!.feeCents).toBeUndefined();
  });

  it('a withdrawal recorded without its fee gets it from the closed dispute; one with its fee keeps it; replays change nothing', () => {
    const bare = after(opened, withFees({ withdrawal: { feeCents: 1500, currency: 'usd' } })[1]!);
    expect(bare.reversals!['dispute:dp_1:withdrawn']).toMatchObject({ feeCents: 1500, at: '2026-12-03T00:00:00.000Z', event: 'evt_do' });
    const [o, c] = withFees({ withdrawal: { feeCents: 9, currency: 'usd' } });
    expect(after(o!, c!).reversals!['dispute:dp_1:withdrawn']!.feeCents).toBe(1500);
    const done = after(o!, c!);
    expect(applyCardChange(done, o!)).toBe('unchanged');
    expect(applyCardChange(done, c!)).toBe('unchanged');
  });

  it('closed first, opened after: the withdrawal has its fee once', () => {
    const [o, c] = withFees({ withdrawal });
    const closedFirst = after(c!, o!);
    expect(closedFirst.reversals!['dispute:dp_1:withdrawn']).toMatchObject({ amountCents: 1900, feeCents: 1500 });
    expect(Object.keys(closedFirst.reversals!)).toHaveLength(2);
  });

  it('refunds carry no fee of their own unless Stripe reports one', () => {
    expect(after(refund(1900)).reversals!['refund:1900']!.feeCents).toBeUndefined();
  });
});
