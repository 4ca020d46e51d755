/**
 * The operator's refund of an escrowed sale (x402 `auth-capture`, issue 53), what `npm run refund
 * -- <sale tx>` runs: while the sale's refund deadline lasts, the refund is the escrow's own
 * `refund`, sent by the operator (the facilitator's escrowRefund: the refund collector takes the
 * amount from the operator's balance, the escrow pays the payer), and once mined it is recorded in
 * the books exactly as a treasury transfer is (the ledger's recordRefund: the row's `refunds` and
 * `refundedAmount`, the Refunds table), so a sale refunded in full stops its license the same way.
 * Any other sale (paid by a transfer, or past its deadline) is refunded from the treasury by hand
 * and recorded with `npm run refund -- <sale tx> <refund tx>`; this says so and sends nothing.
 *
 * Payments holds this because it is where a sale and its escrowed payment meet (as the capture
 * does): the ledger knows the sale, the facilitator the payment, neither the other.
 */
import type { NetworkName } from '../contract/networks';
import { escrowRefund, type EscrowOperator } from '../facilitator';
import { unrefunded, type Ledger, type RefundOutcome } from '../ledger';

export interface EscrowRefundPorts {
  ledger: Pick<Ledger, 'get'>;
  /** The escrow operator (its key, the escrow, the settlement records); undefined without an operator key or an escrow. */
  operator: EscrowOperator | undefined;
  /** The ledger's recording of a mined refund transaction against a sale. */
  record(saleTx: string, refundTx: string): Promise<RefundOutcome>;
  network: NetworkName;
  /** The ETH / USD feed the refund's gas is priced with at its block (the `ethUsdFeed` setting). */
  ethUsdFeed: string | undefined;
  now: () => Date;
}

export type EscrowRefundRefusal =
  | 'not_a_sale'
  | 'not_escrowed'
  | 'no_operator'
  | 'refund_deadline_passed'
  | 'already_refunded'
  | 'too_much'
  | 'escrow_refunded'
  | 'not_refundable'
  | 'operator_unfunded'
  | 'escrow_refused';

export type SaleRefundOutcome =
  /** Recorded, or refused by the ledger's recording (e.g. `too_few_confirmations`: run again once confirmed). */
  | RefundOutcome
  | {
      outcome: 'refused';
      sale_tx: string;
      reason: EscrowRefundRefusal;
      message: string;
      /** `operator_unfunded`: who must receive how much (atomic units) of which token, before the refund can be sent. */
      operator?: string;
      asset?: string;
      token?: string;
      shortfall?: string;
    }
  /** A transaction is out and not mined yet (the refund, or the operator's approval before it): run again. */
  | { outcome: 'pending'; sale_tx: string; tx: string; message: string };

/**
 * The refund is not begun this close to the deadline: the escrow refuses a refund mined at or after
 * it, and one sent now could wait that long in the mempool.
 */
export const REFUND_DEADLINE_MARGIN_SECONDS = 300;
/** How long the refund (and the operator's approval before it) is waited for. */
const REFUND_WAIT_MS = 30_000;

/** Refunds `amount` (atomic units; default all that is unrefunded) of the escrowed sale `saleTx` through the escrow, and records it. */
export async function refundEscrowedSale(ports: EscrowRefundPorts, saleTx: string, amount?: bigint): Promise<SaleRefundOutcome> {
  const sale_tx = saleTx.toLowerCase();
  const refused = (
    reason: EscrowRefundRefusal,
    message: string,
    more: { operator?: string; asset?: string; token?: string; shortfall?: string } = {},
  ) => ({
    outcome: 'refused' as const,
    sale_tx,
    reason,
    message,
    ...more,
  });
  const byTreasury = `send the refund from the treasury to the payer and record it with \`npm run refund -- ${sale_tx} <refund tx>\``;
  const sale = await ports.ledger.get(ports.network, sale_tx);
  if (!sale) return refused('not_a_sale', 'No proof-ledger sale has this transaction hash.');
  if (sale.scheme !== 'auth-capture' || sale.settlement === undefined)
    return refused('not_escrowed', `The sale was paid by a transfer to the treasury, not through the escrow: ${byTreasury}.`);
  if (!ports.operator)
    return refused(
      'no_operator',
      'No escrow operator is configured (ESCROW_OPERATOR_KMS_KEY_ID or ESCROW_OPERATOR_PRIVATE_KEY, and an escrow): only the operator can refund through the escrow.',
    );
  const left = unrefunded(sale);
  if (left <= 0n) return refused('already_refunded', 'The sale is already refunded in full.');
  const asked = amount ?? left;
  if (asked <= 0n || asked > left)
    return refused('too_much', `A refund of ${asked} atomic units: only 1 to ${left} of the sale's ${sale.amount} are unrefunded.`);

  const record = await ports.operator.settlements.get(sale.settlement);
  if (!record?.paymentInfo)
    return refused('not_escrowed', `The sale's escrowed payment (${sale.settlement}) has no record: ${byTreasury}.`);
  const stage = record.escrowStage ?? 'authorized';
  const { refundExpiry } = JSON.parse(record.paymentInfo) as { refundExpiry: number };
  // A refund already out (or mined) is resumed and recorded whatever the time; a new one only well before the deadline.
  if (stage === 'captured' && Math.floor(ports.now().getTime() / 1000) + REFUND_DEADLINE_MARGIN_SECONDS >= refundExpiry)
    return refused(
      'refund_deadline_passed',
      `The escrow's refund deadline (${new Date(refundExpiry * 1000).toISOString()}) has passed or is too near: ${byTreasury}.`,
    );

  const out = await escrowRefund(sale.settlement, ports.operator, {
    waitMs: REFUND_WAIT_MS,
    now: ports.now,
    ethUsdFeed: ports.ethUsdFeed,
    amount: asked,
  });
  switch (out.kind) {
    case 'done': {
      if (!out.tx) return refused('escrow_refused', 'The escrow says the payment is refunded, but no refund transaction is on its record.');
      // The escrow's stages allow one refund of a payment: a second one asked for finds the first, already in the books.
      if (sale.refunds?.[out.tx.toLowerCase()])
        return refused(
          'escrow_refunded',
          `The escrow refunded this sale once already (${out.tx}, recorded); it refunds a payment once: for the rest, ${byTreasury}.`,
        );
      return ports.record(sale_tx, out.tx);
    }
    case 'pending':
      return {
        outcome: 'pending',
        sale_tx,
        tx: out.tx,
        message: `The escrow's refund ${out.tx} is sent and not mined yet: run again to record it.`,
      };
    case 'approval_pending':
      return {
        outcome: 'pending',
        sale_tx,
        tx: out.tx,
        message: `The operator's approval of the refund collector (${out.tx}) is not mined yet; nothing is refunded: run again.`,
      };
    case 'unfunded':
      return refused(
        'operator_unfunded',
        `The escrow's refund takes ${asked} atomic units of ${sale.asset} from its operator, who is ${out.shortfall} short: send that from the treasury to the operator ${out.operator}, then run again.`,
        { operator: out.operator, asset: sale.asset, token: out.token, shortfall: out.shortfall.toString() },
      );
    case 'refused':
      return refused(
        'not_refundable',
        out.stage === 'capturing'
          ? 'The escrowed payment is still being captured: run again once its capture is mined.'
          : `The escrowed payment is ${out.stage}: the escrow has nothing of this sale to refund.`,
      );
    case 'reverted':
      return refused(
        'escrow_refused',
        `The transaction ${out.tx} (the escrow's refund, or the operator's approval before it) reverted: nothing was refunded.`,
      );
    case 'would_revert':
      return refused('escrow_refused', `The escrow refuses the refund now: ${out.message}`);
    case 'not_escrowed':
      return refused('not_escrowed', `No escrowed payment is under the sale's settlement: ${byTreasury}.`);
  }
}
