/**
 * Recording an operator's refund of USDC (or USDbC) against a proof-ledger sale (`npm run refund`).
 * The refund itself is a transfer the operator sends from the treasury; this checks it on chain
 * (core/usdc-refunds.ts decides) and records it once: an item of its own in the refunds table,
 * keyed by the refund's transaction, and the sale's row marked (`refunds`, `refundedAmount`), in one
 * DynamoDB transaction. A sale refunded in full leaves what its payer owns and its license stops;
 * it stays `confirmed`, so the figures and the recount keep it as the confirmed sale it was (gross),
 * and the fold, seeing the row's change, counts it refunded in full (`f`), which signals subtract.
 */
import type { NetworkName } from '../contract/networks';
import { decideRefund, type RefundRefusal } from './core/usdc-refunds';
import type { Ledger, RefundChain, RefundRecord, Refunds } from './ports';

export interface RefundPorts {
  ledger: Pick<Ledger, 'get'>;
  refunds: Refunds;
  chain: RefundChain;
  treasury: string;
  /** The ledger partition the sale and the refund are on: the network the service settles on. */
  network: NetworkName;
  minConfirmations: number;
  now: () => Date;
}

export type RefundOutcome =
  | { outcome: 'recorded'; sale_tx: string; refund: RefundRecord; refunded_amount: string; sale_amount: string; refunded_in_full: boolean }
  | { outcome: 'refused'; sale_tx: string; refund_tx: string; reason: RefundRefusal | 'already_recorded'; message: string };

/** A sale's row that moved between the read and the write (another refund recorded meanwhile) is read again, this often. */
const MAX_TRIES = 3;

export async function recordRefund(ports: RefundPorts, saleTx: string, refundTx: string): Promise<RefundOutcome> {
  const sale_tx = saleTx.toLowerCase();
  const refund_tx = refundTx.toLowerCase();
  const refusedAs = (reason: RefundRefusal | 'already_recorded', message: string): RefundOutcome => ({
    outcome: 'refused',
    sale_tx,
    refund_tx,
    reason,
    message,
  });
  const alreadyRecorded = (existing: RefundRecord): RefundOutcome =>
    refusedAs(
      'already_recorded',
      existing.saleTx === sale_tx
        ? `The refund ${refund_tx} is already recorded against this sale (${existing.amount} atomic units at ${existing.recordedAt}); nothing changed.`
        : `The refund ${refund_tx} is already recorded against another sale, ${existing.saleTx}: one refund transfer refunds one sale.`,
    );
  const existing = await ports.refunds.get(ports.network, refund_tx);
  if (existing) return alreadyRecorded(existing);
  const receipt = await ports.chain.receipt(refund_tx);
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const sale = await ports.ledger.get(ports.network, sale_tx);
    const decision = decideRefund(sale, receipt, { treasury: ports.treasury, minConfirmations: ports.minConfirmations });
    if (decision.kind === 'refused') return refusedAs(decision.reason, decision.message);
    const record: RefundRecord = {
      network: ports.network,
      saleTx: sale_tx,
      skill: sale!.skill,
      payer: sale!.payer,
      asset: sale!.asset,
      amount: decision.amount,
      tx: refund_tx,
      block: receipt!.blockNumber.toString(),
      time: receipt!.blockTime,
      recordedAt: ports.now().toISOString(),
    };
    const written = await ports.refunds.record(record, {
      expectedRefunded: sale!.refundedAmount,
      refundedAmount: decision.refundedAmount,
      full: decision.full,
    });
    if (written === 'recorded')
      return {
        outcome: 'recorded',
        sale_tx,
        refund: record,
        refunded_amount: decision.refundedAmount,
        sale_amount: sale!.amount,
        refunded_in_full: decision.full,
      };
    if (written === 'refund_exists') {
      const now = await ports.refunds.get(ports.network, refund_tx);
      if (now) return alreadyRecorded(now);
    }
    // The sale's refunded total moved (another refund recorded meanwhile): decide again from the row as it is now.
  }
  throw new Error(`the sale ${sale_tx} kept changing while its refund was recorded; run again`);
}
