/**
 * Operator refunds of USDC as pure decisions: which transfers of a refund transaction count as a
 * refund of which proof-ledger sale, and what a refunded sale still gives. A refund is the
 * treasury's own transfer back to the sale's payer (or, for an escrowed sale, the escrow's refund
 * of its payment), in the sale's own asset, confirmed as deeply as a payment must be, of no more
 * than what is left unrefunded. Nothing here reads or writes.
 */

/** One ERC-20 Transfer log of the refund transaction, of a token the service accepts. */
export interface RefundTransferLog {
  asset: 'USDC' | 'USDbC';
  /** Lower-case sender and receiver. */
  from: string;
  to: string;
  /** Atomic units (6 decimals), as a decimal string. */
  amount: string;
  logIndex: number;
}

/**
 * The escrow's `PaymentRefunded` in the refund transaction (x402 `auth-capture`): the payment it
 * refunded, and the token store it paid the payer from (the sending operator's).
 */
export interface EscrowRefundLog {
  /** Lower-case: the escrow's hash of the payment (a ledger row's `paymentHash`). */
  paymentHash: string;
  /** Lower-case: the operator's token store in the escrow, the sender of the payer's Transfer. */
  tokenStore: string;
}

/** What the chain says of the refund transaction. */
export interface RefundReceipt {
  txHash: string;
  /** False when the transaction reverted (it moved nothing). */
  success: boolean;
  blockNumber: bigint;
  /** The block's time (ISO). */
  blockTime: string;
  /** Blocks at and above it, as the payment check counts them (head - block + 1). */
  confirmations: number;
  transfers: RefundTransferLog[];
  /** The configured escrow's refunds in the transaction (none when there is no escrow, or none refunded). */
  escrowRefunds?: EscrowRefundLog[];
}

/** The fields of a proof-ledger sale a refund decision reads. */
export interface RefundableSale {
  kind?: 'unlock' | 'subscription' | 'meter_top_up';
  txHash: string;
  asset: 'USDC' | 'USDbC';
  payer: string;
  amount: string;
  status: 'confirmed' | 'reorged';
  /** Atomic units refunded so far (absent: none). */
  refundedAmount?: string;
  /** An escrowed (`auth-capture`) sale's payment, as the escrow hashes it. */
  paymentHash?: string;
}

export type RefundRefusal =
  | 'not_a_sale'
  | 'not_refundable'
  | 'same_transaction'
  | 'not_found'
  | 'reverted'
  | 'too_few_confirmations'
  | 'wrong_asset'
  | 'wrong_sender'
  | 'wrong_receiver'
  | 'too_much'
  | 'already_refunded';

export type RefundDecision =
  | {
      kind: 'refund';
      /** Atomic units this refund returns (every matching Transfer of the transaction, summed). */
      amount: string;
      /** The sale's refunded total after this refund. */
      refundedAmount: string;
      /** Whether the sale is now refunded in full: it then stops giving access. */
      full: boolean;
      logIndexes: number[];
    }
  | { kind: 'refused'; reason: RefundRefusal; message: string };

export interface RefundRules {
  /** The treasury the sale paid (payments to the banned legacy treasury never made a sale). */
  treasury: string;
  /** Confirmations a payment needs before it unlocks: a refund is held to the same. */
  minConfirmations: number;
}

const refused = (reason: RefundRefusal, message: string): RefundDecision => ({ kind: 'refused', reason, message });

/** Atomic units of the sale still unrefunded. */
export const unrefunded = (sale: Pick<RefundableSale, 'amount' | 'refundedAmount'>): bigint =>
  BigInt(sale.amount) - BigInt(sale.refundedAmount ?? '0');

/** A sale whose whole transfer went back to its payer: it no longer gives access (license, ownership). */
export const refundedInFull = (sale: Pick<RefundableSale, 'amount' | 'refundedAmount'>): boolean =>
  sale.refundedAmount !== undefined && unrefunded(sale) <= 0n;

/**
 * Whether `receipt` is a refund of `sale`, and how much. The refund is the sum of the transaction's
 * Transfers of the sale's asset from the treasury (or, for an escrowed sale, the escrow's refund of
 * it: below) to the payer; a transaction with none is refused with the nearest reason (a transfer
 * of the other asset, from someone else, to someone else).
 */
export function decideRefund(sale: RefundableSale | undefined, receipt: RefundReceipt | undefined, rules: RefundRules): RefundDecision {
  if (!sale) return refused('not_a_sale', 'No proof-ledger sale has this transaction hash.');
  if ((sale.kind ?? 'unlock') !== 'unlock')
    return refused(
      'not_refundable',
      `The transaction is a ${sale.kind} on the ledger, not a skill sale: only skill sales are refunded here.`,
    );
  if (sale.status !== 'confirmed')
    return refused('not_refundable', 'The sale was dropped by a reorganisation: there is no payment to refund.');
  if (!receipt) return refused('not_found', 'The refund transaction has no receipt on chain 8453 (not mined, or not this chain).');
  if (receipt.txHash.toLowerCase() === sale.txHash.toLowerCase())
    return refused('same_transaction', 'The refund transaction is the sale itself.');
  if (!receipt.success) return refused('reverted', 'The refund transaction reverted: it moved nothing.');
  if (receipt.confirmations < rules.minConfirmations)
    return refused(
      'too_few_confirmations',
      `The refund transaction has ${receipt.confirmations} of the ${rules.minConfirmations} confirmations required; record it once confirmed.`,
    );
  const treasury = rules.treasury.toLowerCase();
  const payer = sale.payer.toLowerCase();
  // An escrowed sale (x402 auth-capture) is refunded through the escrow while its refund deadline
  // lasts: the escrow's `refund` takes the amount from its operator (whom the treasury funded) into
  // the operator's token store and pays the payer from there, so the payer's Transfer comes from
  // that token store, not from the treasury. It counts only in a transaction where the escrow says
  // it refunded this very payment (its PaymentRefunded of the sale's payment hash): the same token
  // store also pays payers back on a void or a reclaim, of payments that never were sales.
  const paymentHash = sale.paymentHash?.toLowerCase();
  const senders = new Set([
    treasury,
    ...(paymentHash ? (receipt.escrowRefunds ?? []).filter((e) => e.paymentHash === paymentHash).map((e) => e.tokenStore) : []),
  ]);
  const matching = receipt.transfers.filter((t) => t.asset === sale.asset && senders.has(t.from) && t.to === payer);
  if (matching.length === 0) {
    const ofAsset = receipt.transfers.filter((t) => t.asset === sale.asset);
    if (ofAsset.length === 0)
      return refused('wrong_asset', `The refund transaction holds no Transfer of ${sale.asset}, the asset the sale was paid in.`);
    if (!ofAsset.some((t) => senders.has(t.from)))
      return refused(
        'wrong_sender',
        `No ${sale.asset} Transfer of the refund transaction comes from the treasury ${rules.treasury}${paymentHash ? " or from the escrow's refund of this sale's payment" : ''}.`,
      );
    return refused(
      'wrong_receiver',
      `No ${sale.asset} Transfer from the treasury in the refund transaction goes to the sale's payer ${sale.payer}.`,
    );
  }
  const amount = matching.reduce((sum, t) => sum + BigInt(t.amount), 0n);
  const left = unrefunded(sale);
  if (left <= 0n) return refused('already_refunded', 'The sale is already refunded in full.');
  if (amount > left)
    return refused('too_much', `The refund returns ${amount} atomic units but only ${left} of the sale's ${sale.amount} are unrefunded.`);
  const refundedAmount = BigInt(sale.refundedAmount ?? '0') + amount;
  return {
    kind: 'refund',
    amount: amount.toString(),
    refundedAmount: refundedAmount.toString(),
    full: refundedAmount === BigInt(sale.amount),
    logIndexes: matching.map((t) => t.logIndex),
  };
}
