/**
 * The life of one x402 settlement (one signed EIP-3009 authorization, keyed by token, payer and
 * nonce), as one pure transition: `next(record, observed)` says what to do next from the stored
 * record and what was just observed (a read, or the result of the last write). One loop drives it
 * (settle.ts) for a request and for the confirmation loop alike; every write it asks for is one
 * conditional write (docs/SECURITY.md, I1–I7):
 *
 *   (none) ──verify──▶ refused (nothing stored)
 *     └─verified, claim──▶ claimed ──hold the payer's token (one in flight, I1)──▶ held
 *                            │  busy, same resource in flight ─▶ failed payment_in_flight (answers the earlier one, I6)
 *                            │  busy, another resource ─────────▶ failed payer_settlement_in_flight (retry)
 *                            │  cooling after a revert ─────────▶ failed payer_cooling_down
 *                            ▼
 *                          held ──funds read under the hold──▶ (used: find the transfer) | failed, released
 *                            │    before-send hook (a mandate) refuses ─▶ failed, released
 *                            └─sign, store, broadcast──▶ signed ──receipt: success──▶ settled
 *                                                          │      reverted, authorization used ─▶ settled (the copy mined first)
 *                                                          │      reverted, unused ─────────────▶ failed transaction_failed (cool-down)
 *                                                          └─no receipt within the wait ─▶ unmined (the confirmation loop
 *                                                                                            drives it on, through `next`)
 *   claimed by a request that died (stale) ──used? find the transfer; expired? failed; else take over──▶ claimed (ours)
 *   signed and stale ──rebroadcast the stored bytes──▶ signed | nonce taken: mined? its receipt; used? the transfer;
 *                                                                           expired? failed; else re-sign──▶ signed
 *   settled ──▶ deliver        failed ──▶ its answer (payment_in_flight: the earlier payment's)
 *
 * A refusal before anything was sent ends the record too (I4: an authorization the service saw
 * ends in exactly one terminal record), with a TTL, since it matters no longer than it could move money.
 */
import type { RelayedReceipt, SettlementRecord } from '../ports';
import { CONSUMED, PAYMENT_IN_FLIGHT } from './authorization-life';

/** A claim that was never signed after this long belongs to a request that died: it is taken over. */
export const STALE_CLAIM_MS = 30_000;

/** The clock as one follower of a record sees it, computed by the loop when it reads. */
export interface Clock {
  /** The claim is older than {@link STALE_CLAIM_MS}. */
  stale: boolean;
  /** The authorization's `validBefore` (with its margin) has passed: it can no longer move money. */
  expired: boolean;
  /** This request has waited as long as it waits for another to finish. */
  waitedOut: boolean;
}

/** Why a record is read and judged by someone who does not hold its claim. */
export interface Follower extends Clock {
  /** The resource this request pays for (an authorization settles one resource only). */
  resource: string;
  /** The caller may be the buyer (it claimed it, or proves the wallet): only they wait or get anything. */
  mayBeBuyer: boolean;
}

/** A refusal's reason (x402's or ours), its sentence, and whether the same request can still succeed. */
export interface Refusal {
  reason: string;
  message: string;
  retry: boolean;
  retryAfter?: number | undefined;
  details?: Record<string, unknown> | undefined;
}

/** What the loop just learned. `record` beside it is the latest stored record it knows. */
export type Observed =
  /** The request's first read of the authorization's record (none when new). */
  | ({ kind: 'presented' } & Follower)
  /** x402's verification passed; `repeats`: the payment identifier names an earlier settlement of the same payment (I6). */
  | { kind: 'verified'; ok: true; repeats?: string | undefined }
  | { kind: 'verified'; ok: false; refusal: Refusal }
  /** The payment identifier was used by this payer for another payment. */
  | { kind: 'verified'; ok: false; reusedId: string }
  /** This request's claim was written: the record is its own. */
  | { kind: 'claimed' }
  /** A record read again by a follower (after a wait, a lost claim, a declined send). */
  | ({ kind: 'read' } & Follower)
  /** The payer's hold: `earlier` is a settlement of the same payer and resource in flight (either token). */
  | {
      kind: 'hold';
      outcome: 'held' | 'busy' | 'cooling';
      earlier?: SettlementRecord | undefined;
      coolingUntil?: number | undefined;
      refusal?: Refusal;
    }
  /** The payer's funds, read under the hold. */
  | {
      kind: 'funds';
      problem: 'used' | 'expired' | 'not_yet_valid' | 'insufficient' | 'pending_short' | undefined;
      refusal?: Refusal;
      hook: boolean;
    }
  | { kind: 'admitted'; ok: true }
  | { kind: 'admitted'; ok: false; refusal: Refusal }
  | { kind: 'submitted'; result: 'sent' | 'declined' | 'would_revert' }
  /** A receipt looked for after `after`; `expired` as the clock says now. */
  | { kind: 'receipt'; receipt: RelayedReceipt | undefined; after: 'send' | 'rebroadcast' | 'nonce_taken' | 'loop'; expired: boolean }
  /** Whether the token has used the authorization, looked at after `after`. */
  | { kind: 'used'; used: boolean; after: 'stale_claim' | 'revert' | 'nonce_taken'; expired: boolean; receipt?: RelayedReceipt | undefined }
  /** The transaction that used the authorization, if found (another than the relayer's own). */
  | { kind: 'transfer'; tx: string | undefined; stale: boolean; receipt?: RelayedReceipt | undefined }
  | { kind: 'rebroadcast'; result: 'sent' | 'nonce_taken' }
  | { kind: 'taken_over'; ok: boolean }
  /** The outcome was written (by this request or another): the record is final. */
  | { kind: 'ended'; refusal?: Refusal | undefined };

/** What to do next: one read or one write, or the answer. */
export type Step =
  | { kind: 'verify' }
  | { kind: 'claim' }
  | { kind: 'hold' }
  | { kind: 'read_funds' }
  | { kind: 'before_send' }
  | { kind: 'send' }
  | { kind: 'await_receipt'; after: 'send' | 'rebroadcast' | 'nonce_taken' }
  | { kind: 'check_used'; after: 'stale_claim' | 'revert' | 'nonce_taken'; receipt?: RelayedReceipt | undefined }
  | { kind: 'find_transfer'; receipt?: RelayedReceipt | undefined }
  | { kind: 'take_over' }
  | { kind: 'rebroadcast' }
  | { kind: 'resend' }
  | { kind: 'wait' }
  /** One write of a failed outcome; `unsent` ones carry a TTL; `release`: the settlement's hold is released with it. */
  | { kind: 'end'; failure: string; unsent: boolean; release: boolean; refusal?: Refusal | undefined; pendingFor?: string | undefined }
  /** The one record of an authorization never claimed nor sent (its payment repeats an earlier one): the same write a claim contends for. */
  | { kind: 'end_unclaimed'; failure: string; pendingFor: string }
  | { kind: 'end_settled'; receipt: RelayedReceipt | undefined; transferTx?: string | undefined }
  | { kind: 'end_reverted'; receipt: RelayedReceipt; failure: string }
  | { kind: 'answer'; answer: Decided };

/** An answer `next` decides alone; the loop builds the settled and earlier answers from the record. */
export type Decided =
  | { kind: 'deliver' }
  | { kind: 'earlier'; pk: string }
  | { kind: 'failed' }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'unmined' }
  | { kind: 'consumed' }
  | { kind: 'not_buyer' }
  | { kind: 'payment_id_reused'; id: string }
  /** For the confirmation loop: nothing it can decide now. */
  | { kind: 'receipt_missing' };

const answer = (a: Decided): Step => ({ kind: 'answer', answer: a });
const pending = (message: string): Step =>
  answer({ kind: 'refused', refusal: { reason: 'settlement_pending', message, retry: true, retryAfter: 2 } });

/** The settlement's next step. Pure: the same record and observation always give the same step. */
export function next(record: SettlementRecord | undefined, observed: Observed): Step {
  switch (observed.kind) {
    case 'presented':
      return record ? follow(record, observed) : { kind: 'verify' };
    case 'verified':
      if (observed.ok)
        return observed.repeats ? { kind: 'end_unclaimed', failure: PAYMENT_IN_FLIGHT, pendingFor: observed.repeats } : { kind: 'claim' };
      return 'reusedId' in observed
        ? answer({ kind: 'payment_id_reused', id: observed.reusedId })
        : answer({ kind: 'refused', refusal: observed.refusal });
    case 'read':
      return record ? follow(record, observed) : { kind: 'verify' };
    case 'claimed':
      return { kind: 'hold' };
    case 'hold':
      if (observed.earlier)
        return {
          kind: 'end',
          failure: PAYMENT_IN_FLIGHT,
          unsent: true,
          release: observed.outcome === 'held',
          pendingFor: observed.earlier.pk,
        };
      if (observed.outcome === 'held') return { kind: 'read_funds' };
      return { kind: 'end', failure: observed.refusal!.reason, unsent: true, release: false, refusal: observed.refusal };
    case 'funds':
      switch (observed.problem) {
        case 'used':
          return { kind: 'find_transfer' };
        case 'expired':
          return { kind: 'end', failure: 'authorization_expired', unsent: false, release: true };
        case 'insufficient':
          return { kind: 'end', failure: 'invalid_exact_evm_insufficient_balance', unsent: false, release: true };
        case 'not_yet_valid':
        case 'pending_short':
          return { kind: 'end', failure: observed.refusal!.reason, unsent: true, release: true, refusal: observed.refusal };
        default:
          return observed.hook ? { kind: 'before_send' } : { kind: 'send' };
      }
    case 'admitted':
      return observed.ok
        ? { kind: 'send' }
        : { kind: 'end', failure: observed.refusal.reason, unsent: true, release: true, refusal: observed.refusal };
    case 'submitted':
      if (observed.result === 'sent') return { kind: 'await_receipt', after: 'send' };
      if (observed.result === 'would_revert')
        return { kind: 'end', failure: 'invalid_exact_evm_transaction_simulation_failed', unsent: false, release: true };
      return { kind: 'wait' };
    case 'receipt': {
      const r = observed.receipt;
      if (r?.status === 'success') return { kind: 'end_settled', receipt: r };
      if (r) return { kind: 'check_used', after: 'revert', receipt: r };
      if (observed.after === 'send') return answer({ kind: 'unmined' });
      if (observed.after === 'loop') return answer({ kind: 'receipt_missing' });
      // After a rebroadcast of a transaction whose authorization ran out: it can only revert now.
      if (observed.after === 'rebroadcast')
        return observed.expired
          ? { kind: 'end', failure: 'authorization_expired', unsent: false, release: true }
          : answer({ kind: 'unmined' });
      return { kind: 'check_used', after: 'nonce_taken' };
    }
    case 'used':
      if (observed.used) return { kind: 'find_transfer', receipt: observed.receipt };
      if (observed.after === 'revert') return { kind: 'end_reverted', receipt: observed.receipt!, failure: 'transaction_failed' };
      if (observed.expired) return { kind: 'end', failure: 'authorization_expired', unsent: false, release: true };
      return observed.after === 'stale_claim' ? { kind: 'take_over' } : { kind: 'resend' };
    case 'transfer':
      // The authorization moved the money in a transaction the relayer did not send: the buyer's payment all the same.
      if (observed.tx && observed.tx.toLowerCase() !== record?.txHash?.toLowerCase())
        return { kind: 'end_settled', receipt: observed.receipt, transferTx: observed.tx.toLowerCase() };
      if (observed.receipt) return { kind: 'end_reverted', receipt: observed.receipt, failure: 'authorization_used_elsewhere' };
      // Not found: in a block not visible yet, or cancelled by its signer. A fresh claim waits; an old one ends.
      if (observed.stale) return { kind: 'end', failure: 'authorization_used_elsewhere', unsent: false, release: true };
      return pending('The authorization was used on chain by a transaction that is not visible yet; send the same request again shortly.');
    case 'rebroadcast':
      return observed.result === 'sent' ? { kind: 'await_receipt', after: 'rebroadcast' } : { kind: 'await_receipt', after: 'nonce_taken' };
    case 'taken_over':
      return observed.ok ? { kind: 'hold' } : { kind: 'wait' };
    case 'ended':
      if (observed.refusal) return answer({ kind: 'refused', refusal: observed.refusal });
      if (record?.failure === PAYMENT_IN_FLIGHT && record.pendingFor) return answer({ kind: 'earlier', pk: record.pendingFor });
      return record?.state === 'settled' ? answer({ kind: 'deliver' }) : answer({ kind: 'failed' });
  }
}

/**
 * A record this request does not hold the claim of: an owner's consumed payment, one used for
 * another resource, or one whose buyer this caller cannot be, is answered at once; a final one is
 * answered; one in flight is waited for, taken over once its request died, or driven on.
 */
function follow(record: SettlementRecord, f: Follower): Step {
  if (record.failure === CONSUMED) return answer({ kind: 'consumed' });
  if (record.resource !== f.resource)
    return answer({
      kind: 'refused',
      refusal: {
        reason: 'authorization_used',
        message: 'This authorization was already used for another resource; sign a new one.',
        retry: false,
      },
    });
  if (!f.mayBeBuyer) return answer({ kind: 'not_buyer' });
  if (record.failure === PAYMENT_IN_FLIGHT && record.pendingFor) return answer({ kind: 'earlier', pk: record.pendingFor });
  if (record.state === 'settled') return answer({ kind: 'deliver' });
  if (record.state === 'failed') return answer({ kind: 'failed' });
  if (record.state === 'claimed' && f.stale) return { kind: 'check_used', after: 'stale_claim' };
  if (record.state === 'signed' && (f.stale || f.waitedOut)) return { kind: 'rebroadcast' };
  if (f.waitedOut) return pending('This authorization is being settled by an earlier request; send the same request again shortly.');
  return { kind: 'wait' };
}
