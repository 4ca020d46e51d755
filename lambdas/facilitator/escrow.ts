/**
 * The operator's calls on an escrowed payment (x402 `auth-capture`): capture once the resource
 * server has delivered, void when it could not, refund a captured one. core/escrow.ts draws the
 * stages; this drives one call through them with the operator's relayer (one key, under its
 * lease) and the settlement record's conditional writes: stored before it is broadcast, ended from
 * its receipt, resumed by whoever comes next when no receipt came in time.
 */
import { ESCROW_MOVES, escrowDecision, escrowGasUsd } from './core/escrow';
import { gasUsdOf } from './settlement-end';
import type { EscrowAction, EscrowOperator, EscrowStage, SettlementRecord } from './ports';

/** How one call ended. */
export type EscrowOutcome =
  /** Its transaction is mined (now or before): `tx`. */
  | { kind: 'done'; tx: string | undefined }
  /** Sent (or stored) and not mined within the wait: the request's retry or the confirmation loop resumes it. */
  | { kind: 'pending'; tx: string }
  /** The payment is elsewhere: captured before a void, voided before a capture. */
  | { kind: 'refused'; stage: EscrowStage }
  /** Its transaction reverted; the stage went back to where it was. */
  | { kind: 'reverted'; tx: string }
  /** The node says the call reverts now: nothing was signed. */
  | { kind: 'would_revert'; message: string }
  /** No escrowed payment under this key (an `exact` settlement, or none settled), or no escrow configured. */
  | { kind: 'not_escrowed' };

/** The record's stage: a settled escrowed payment with no stage written yet is `authorized`. */
export const stageOf = (record: SettlementRecord): EscrowStage => record.escrowStage ?? 'authorized';

const escrowed = (r: SettlementRecord | undefined): r is SettlementRecord & { paymentInfo: string } =>
  r !== undefined && r.scheme === 'auth-capture' && r.state === 'settled' && r.paymentInfo !== undefined;

/**
 * Runs `action` on the escrowed payment of settlement `pk`: begins it, resumes it, or says it is
 * done or went another way. `amount` is a refund's (the whole payment otherwise). Waits up to
 * `waitMs` for the receipt. The mined call's gas is recorded with when, and priced in US dollars
 * by `ethUsdFeed` at its block as the authorize's is (one RPC call; left unpriced when it fails).
 */
export async function escrowCall(
  pk: string,
  action: EscrowAction,
  x402: EscrowOperator,
  opts: { waitMs: number; now: () => Date; ethUsdFeed: string | undefined; amount?: bigint | undefined },
): Promise<EscrowOutcome> {
  const escrow = x402.escrow;
  if (!escrow) return { kind: 'not_escrowed' };
  const { settlements } = x402;
  const move = ESCROW_MOVES[action];
  let record = await settlements.get(pk);
  // At most a few rounds: a declined write means another request moved the stage; read it and decide again.
  for (let round = 0; round < 3; round++) {
    if (!escrowed(record)) return { kind: 'not_escrowed' };
    const decision = escrowDecision(stageOf(record), action);
    if (decision.kind === 'done') return { kind: 'done', tx: record[move.tx] };
    if (decision.kind === 'refused') return decision;
    const amount = opts.amount ?? BigInt(record.amount);
    const call = escrow.contract.call(action, record.paymentInfo, amount);
    let tx: string;
    if (decision.kind === 'begin') {
      const sent = await escrow.relayer.send(call, (signed, replaces) =>
        replaces === undefined
          ? settlements.escrowStep(pk, { from: move.from, to: move.via }, { [move.tx]: signed.txHash, [move.raw]: signed.raw })
          : settlements.escrowStep(
              pk,
              { from: move.via, to: move.via, tx: { field: move.tx, value: replaces } },
              { [move.tx]: signed.txHash, [move.raw]: signed.raw },
            ),
      );
      if (sent.kind === 'would_revert') return sent;
      if (sent.kind === 'declined') {
        record = await settlements.get(pk);
        continue;
      }
      tx = sent.txHash;
    } else {
      tx = record[move.tx]!;
      const again = await escrow.relayer.rebroadcast(record[move.raw]!);
      if (again === 'nonce_taken' && !(await escrow.relayer.receipt(tx, 1_500))) {
        // The stored transaction's nonce went to another of the operator's: it will never be mined. Signed again in its place.
        const sent = await escrow.relayer.send(call, (signed) =>
          settlements.escrowStep(
            pk,
            { from: move.via, to: move.via, tx: { field: move.tx, value: tx } },
            { [move.tx]: signed.txHash, [move.raw]: signed.raw },
          ),
        );
        if (sent.kind === 'would_revert') return sent;
        if (sent.kind === 'declined') {
          record = await settlements.get(pk);
          continue;
        }
        tx = sent.txHash;
      }
    }
    const receipt = await escrow.relayer.receipt(tx, opts.waitMs);
    if (!receipt) return { kind: 'pending', tx };
    const gas = {
      [move.gasUsed]: receipt.gasUsed.toString(),
      [move.gasCost]: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
      [move.finishedAt]: opts.now().toISOString(),
      ...escrowGasUsd(action, await gasUsdOf(x402, opts.ethUsdFeed, pk, receipt)),
    };
    if (receipt.status === 'success') {
      await settlements.escrowStep(pk, { from: move.via, to: move.to, tx: { field: move.tx, value: tx } }, gas);
      return { kind: 'done', tx };
    }
    // Reverted: back where it was, so the other call (or this one again) can still be made; the gas is the relayer's loss.
    await settlements.escrowStep(
      pk,
      { from: move.via, to: move.from, tx: { field: move.tx, value: tx } },
      {
        ...gas,
        escrowFailure: `${action}_reverted`,
      },
    );
    await settlements.addRevertedGas(opts.now().toISOString().slice(0, 13), receipt.gasUsed * receipt.effectiveGasPrice);
    return { kind: 'reverted', tx };
  }
  return { kind: 'pending', tx: record?.[move.tx] ?? '' };
}

/** How the operator's refund of an escrowed payment ended: as any call, or short of what it takes from the operator. */
export type EscrowRefundOutcome =
  | EscrowOutcome
  /** The operator holds less of the payment's token than the refund takes: nothing was sent. */
  | { kind: 'unfunded'; operator: string; token: string; shortfall: bigint }
  /** The operator's approval of the refund collector is sent and not mined within the wait: nothing refunded yet. */
  | { kind: 'approval_pending'; tx: string };

/**
 * The operator's refund of `amount` of the captured payment of settlement `pk` (escrowCall's
 * `refund`). The escrow's refund collector takes the amount from the operator's own balance, so
 * before the refund begins the operator must hold it (else `unfunded`: whoever funds the operator,
 * the treasury, sends it first) and the collector must be allowed to take it (the operator approves
 * it once, with no limit, if it is not). A refund already under way or done is resumed or answered
 * as escrowCall does, without reading the operator's funds.
 */
export async function escrowRefund(
  pk: string,
  x402: EscrowOperator,
  opts: { waitMs: number; now: () => Date; ethUsdFeed: string | undefined; amount: bigint },
): Promise<EscrowRefundOutcome> {
  const escrow = x402.escrow;
  if (!escrow) return { kind: 'not_escrowed' };
  const record = await x402.settlements.get(pk);
  if (escrowed(record) && escrowDecision(stageOf(record), 'refund').kind === 'begin') {
    const funds = await escrow.contract.refundFunds(record.paymentInfo);
    if (funds.balance < opts.amount)
      return { kind: 'unfunded', operator: escrow.operator, token: record.token, shortfall: opts.amount - funds.balance };
    if (funds.allowance < opts.amount) {
      // Nothing of a payment's to store: an approval moves no money, and a lost one is made again.
      const approval = await escrow.relayer.send(escrow.contract.approveRefunds(record.paymentInfo), async () => true);
      if (approval.kind === 'would_revert') return approval;
      if (approval.kind === 'sent') {
        const receipt = await escrow.relayer.receipt(approval.txHash, opts.waitMs);
        if (!receipt) return { kind: 'approval_pending', tx: approval.txHash };
        if (receipt.status !== 'success') return { kind: 'reverted', tx: approval.txHash };
      }
    }
  }
  return escrowCall(pk, 'refund', x402, opts);
}
