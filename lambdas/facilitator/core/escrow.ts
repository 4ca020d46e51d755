/**
 * An escrowed payment (x402 `auth-capture`, issue 53) once the escrow's `authorize` is mined: the
 * settlement is `settled` and the buyer's money sits in the operator's token store in the escrow.
 * The operator has three calls on it. Each is one conditional write before its transaction is
 * broadcast (the transaction stored, as a settlement's is) and one after its receipt:
 *
 *   authorized ──capture: sign, store──▶ capturing ──receipt: success──▶ captured ──refund: sign, store──▶ refunding ──▶ refunded
 *     │   ▲                                 │                               ▲                                  │
 *     │   └────────── reverted ─────────────┘                               └─────────── reverted ─────────────┘
 *     └──void: sign, store──▶ voiding ──receipt: success──▶ voided
 *              ▲                 │
 *              └── reverted ─────┘ (back to authorized)
 *
 * Capture and void both leave `authorized` by one conditional write on the record: whichever is
 * written first is the payment's only end, and the other finds the stage moved and does nothing.
 * A step whose transaction is stored but has no receipt yet is resumed (its bytes sent again) by
 * whoever comes next: the request's retry or the confirmation loop. Nothing here is read twice or
 * charged twice: the escrow itself refuses a second capture, and the stage says what was done.
 */
import type { EscrowAction, EscrowGasUsd, EscrowStage } from '../ports';
import type { GasUsdFields } from './gas-usd';

/** Each call: the stage it starts from, the one it is in while its transaction is out, where it ends, and the record's fields it writes. */
export const ESCROW_MOVES: Readonly<
  Record<
    EscrowAction,
    {
      from: EscrowStage;
      via: EscrowStage;
      to: EscrowStage;
      tx: 'captureTx' | 'voidTx' | 'refundTx';
      raw: 'captureRaw' | 'voidRaw' | 'refundRaw';
      gasUsed: 'captureGasUsed' | 'voidGasUsed' | 'refundGasUsed';
      gasCost: 'captureGasCostWei' | 'voidGasCostWei' | 'refundGasCostWei';
      /** When its receipt was read: the day the books put its gas on. */
      finishedAt: 'captureFinishedAt' | 'voidFinishedAt' | 'refundFinishedAt';
    }
  >
> = {
  capture: {
    from: 'authorized',
    via: 'capturing',
    to: 'captured',
    tx: 'captureTx',
    raw: 'captureRaw',
    gasUsed: 'captureGasUsed',
    gasCost: 'captureGasCostWei',
    finishedAt: 'captureFinishedAt',
  },
  void: {
    from: 'authorized',
    via: 'voiding',
    to: 'voided',
    tx: 'voidTx',
    raw: 'voidRaw',
    gasUsed: 'voidGasUsed',
    gasCost: 'voidGasCostWei',
    finishedAt: 'voidFinishedAt',
  },
  refund: {
    from: 'captured',
    via: 'refunding',
    to: 'refunded',
    tx: 'refundTx',
    raw: 'refundRaw',
    gasUsed: 'refundGasUsed',
    gasCost: 'refundGasCostWei',
    finishedAt: 'refundFinishedAt',
  },
};

/** What a call asked of a payment at `stage` does. */
export type EscrowDecision =
  /** Sign, store and send the call's transaction. */
  | { kind: 'begin' }
  /** Its transaction is stored and out: send the same bytes again and read its receipt. */
  | { kind: 'resume' }
  /** Already done. */
  | { kind: 'done' }
  /** The payment went another way (voided before a capture, captured before a void): nothing to do. */
  | { kind: 'refused'; stage: EscrowStage };

/** The call's decision at a stage. Pure. */
export function escrowDecision(stage: EscrowStage, action: EscrowAction): EscrowDecision {
  const move = ESCROW_MOVES[action];
  if (stage === move.from) return { kind: 'begin' };
  if (stage === move.via) return { kind: 'resume' };
  if (stage === move.to) return { kind: 'done' };
  // A refund of a payment captured and refunded already is done; one voided never had anything to refund.
  return { kind: 'refused', stage };
}

/** Whether a stage still holds the buyer's money in the escrow (nothing captured, nothing given back). */
export const heldInEscrow = (stage: EscrowStage): boolean => stage === 'authorized' || stage === 'capturing' || stage === 'voiding';

/**
 * An escrow call's gas in US dollars as the record keeps it: the authorize's price fields
 * (core/gas-usd.ts) under the call's name, `captureEthUsdRound` … `captureGasCostUsdMicro`, each
 * a string. Nothing when the gas was left unpriced.
 */
export const escrowGasUsd = (action: EscrowAction, fields: Partial<GasUsdFields>): Partial<Record<keyof EscrowGasUsd, string>> =>
  Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [`${action}${name.charAt(0).toUpperCase()}${name.slice(1)}`, String(value)]),
  );
