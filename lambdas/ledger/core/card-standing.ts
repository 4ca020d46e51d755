/**
 * What happens to a card sale after it is paid, as pure functions: Stripe refunds part or all of
 * it, or the buyer's bank disputes it (the disputed amount is withdrawn when the dispute opens,
 * and given back if the service wins). Each change is a fact about Stripe's own objects, and
 * applying one twice, or out of order, leaves the sale as applying it once in order does; the
 * adapter stores the result with one conditional write on the sale (dynamo-card-sales.ts).
 *
 * The sale's `status` follows from the facts: a sale refunded in full, or under a dispute that is
 * not won, no longer stands, and its license stops (payments' card-sale.ts reads `status`).
 */

/** Whether a card sale stands: `paid` (its license works), `refunded` in full, or `disputed` (open, or lost). */
export type CardSaleStatus = 'paid' | 'refunded' | 'disputed';

/**
 * Money that left (or came back to) the service after the sale, in cents: positive when it left
 * (a refund, a dispute's withdrawal), negative when it came back (a won dispute's reinstatement).
 */
export interface CardReversal {
  kind: 'refund' | 'dispute_withdrawal' | 'dispute_reinstatement';
  amountCents: number;
  /**
   * Stripe's fee on this movement, in the minor unit of `feeCurrency` (the account's settlement
   * currency), from its balance transaction: positive when Stripe charged it (a dispute's
   * withdrawal carries the dispute fee), negative when Stripe gave it back (a won dispute's
   * reinstatement, where Stripe returns the fee). Absent when Stripe reported no balance
   * transaction for the movement (a refund's original processing fee is not returned).
   */
  feeCents?: number;
  feeCurrency?: string;
  /** When Stripe reported it (the event's time). */
  at: string;
  /** Stripe's event that reported it. */
  event: string;
}

/** A dispute of the sale's payment (Stripe allows one per charge). */
export interface CardDispute {
  /** Stripe's dispute id (dp_…). */
  id: string;
  /** `open` until Stripe closes it; an inquiry (Stripe's `warning_*` states) moves no money. */
  status: 'open' | 'won' | 'lost' | 'closed';
  inquiry: boolean;
  amountCents: number;
  reason: string;
  openedAt: string;
  closedAt?: string;
}

/** The parts of a card sale that its changes touch. */
export interface CardStanding {
  amountCents: number;
  status: CardSaleStatus;
  /** Cents refunded so far in all, as Stripe's charge reports it (`amount_refunded`). */
  refundedCents?: number;
  dispute?: CardDispute;
  /** Every reversal, keyed so that the same fact is recorded once. */
  reversals?: Record<string, CardReversal>;
}

/** Stripe's fee on one movement of money, from its balance transaction (`fee`, `currency`). */
export interface MovementFee {
  feeCents: number;
  currency: string;
}

/**
 * What Stripe's dispute object says the dispute moved, from its `balance_transactions`: the
 * withdrawal (with Stripe's dispute fee) and, once won, the reinstatement (with the fee Stripe
 * gave back, if it did). Absent parts were not reported.
 */
export interface DisputeFees {
  withdrawal?: MovementFee;
  reinstatement?: MovementFee;
}

/**
 * Stripe's processing fee on the sale's charge, from the charge's balance transaction (what Stripe
 * added to the balance): `fee` and `net` in the minor unit of `currency`, the account's settlement
 * currency, and `exchange_rate` when Stripe converted the charge's currency into it.
 */
export interface ChargeFee {
  /** The balance transaction (txn_…). */
  balanceTransaction: string;
  feeCents: number;
  netCents: number;
  feeCurrency: string;
  /** Stripe's `exchange_rate` as Stripe gave it (a decimal string); absent when no conversion happened. */
  exchangeRate?: string;
}

/** One fact Stripe reported about the sale's payment. */
export type CardChange =
  | { kind: 'refund'; refundedCents: number; at: string; event: string }
  | {
      kind: 'dispute_opened';
      dispute: { id: string; amountCents: number; reason: string; inquiry: boolean; fees?: DisputeFees };
      at: string;
      event: string;
    }
  | {
      kind: 'dispute_closed';
      dispute: { id: string; amountCents: number; reason: string; inquiry: boolean; openedAt: string; fees?: DisputeFees };
      outcome: 'won' | 'lost' | 'closed';
      at: string;
      event: string;
    };

/** A reversal's fee fields from a movement's fee, or none when Stripe reported none. */
const feeOf = (fee: MovementFee | undefined): Pick<CardReversal, 'feeCents' | 'feeCurrency'> =>
  fee ? { feeCents: fee.feeCents, feeCurrency: fee.currency } : {};

/** The status the facts give. */
export function cardSaleStatus(s: Pick<CardStanding, 'amountCents' | 'refundedCents' | 'dispute'>): CardSaleStatus {
  const d = s.dispute;
  if (d && !d.inquiry && (d.status === 'open' || d.status === 'lost')) return 'disputed';
  if ((s.refundedCents ?? 0) >= s.amountCents) return 'refunded';
  return 'paid';
}

/** Cents the reversals took back in all (refunds, plus disputes' withdrawals less their reinstatements). */
export const reversedCents = (s: Pick<CardStanding, 'reversals'>): number =>
  Object.values(s.reversals ?? {}).reduce((sum, r) => sum + r.amountCents, 0);

/**
 * The sale after `change`, or `unchanged` when the sale already reflects it (a redelivered
 * event, or an older one arriving after a newer: refunds are cumulative, a dispute closes once).
 */
export function applyCardChange<S extends CardStanding>(sale: S, change: CardChange): S | 'unchanged' {
  const reversals = { ...(sale.reversals ?? {}) };
  const next = (patch: Partial<CardStanding>): S => {
    const merged = { ...sale, ...patch, reversals };
    return { ...merged, status: cardSaleStatus(merged) };
  };
  switch (change.kind) {
    case 'refund': {
      const before = sale.refundedCents ?? 0;
      // Stripe's figure is the charge's refunded total: a smaller one is an older event.
      if (change.refundedCents <= before) return 'unchanged';
      reversals[`refund:${change.refundedCents}`] = {
        kind: 'refund',
        amountCents: change.refundedCents - before,
        at: change.at,
        event: change.event,
      };
      return next({ refundedCents: change.refundedCents });
    }
    case 'dispute_opened': {
      if (sale.dispute?.id === change.dispute.id) return 'unchanged';
      const { id, amountCents, reason, inquiry, fees } = change.dispute;
      // A chargeback withdraws the disputed amount when it opens, and Stripe's dispute fee with it; an inquiry moves nothing.
      if (!inquiry)
        reversals[`dispute:${id}:withdrawn`] = {
          kind: 'dispute_withdrawal',
          amountCents,
          ...feeOf(fees?.withdrawal),
          at: change.at,
          event: change.event,
        };
      return next({ dispute: { id, status: 'open', inquiry, amountCents, reason, openedAt: change.at } });
    }
    case 'dispute_closed': {
      const known = sale.dispute?.id === change.dispute.id ? sale.dispute : undefined;
      if (known && known.status !== 'open') return 'unchanged';
      const { id, amountCents, reason, inquiry, openedAt, fees } = change.dispute;
      // A chargeback's withdrawal is on the sale once, whether its opening was seen first, came
      // late (events arrive in any order) or was an inquiry then (an inquiry can become one).
      const withdrawn = `dispute:${id}:withdrawn`;
      if (!inquiry)
        reversals[withdrawn] ??= { kind: 'dispute_withdrawal', amountCents, ...feeOf(fees?.withdrawal), at: openedAt, event: change.event };
      // The closed dispute still lists the withdrawal's balance transaction: its fee fills in one the opening did not carry.
      const withdrawal = reversals[withdrawn];
      if (withdrawal && withdrawal.feeCents === undefined && fees?.withdrawal)
        reversals[withdrawn] = { ...withdrawal, ...feeOf(fees.withdrawal) };
      if (change.outcome === 'won' && reversals[withdrawn])
        reversals[`dispute:${id}:reinstated`] = {
          kind: 'dispute_reinstatement',
          amountCents: -reversals[withdrawn].amountCents,
          ...feeOf(fees?.reinstatement),
          at: change.at,
          event: change.event,
        };
      return next({ dispute: { id, status: change.outcome, inquiry, amountCents, reason, openedAt, closedAt: change.at } });
    }
  }
}
