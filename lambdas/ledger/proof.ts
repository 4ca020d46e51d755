import { formatAtomic } from '../contract/chain';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { invalidRequest } from '../platform/errors';
import { optionalInteger, optionalString } from '../platform/query';
import { requireSkill } from '../catalog';
import { unlockFigures } from './figures';
import type { LedgerRow, ProofPorts } from './ports';

export const PROOF_LIMIT = { fallback: 20, min: 1, max: 100 } as const;

export const publicRow = (r: LedgerRow) => ({
  txHash: r.txHash,
  skill: r.skill,
  amount: r.amount,
  amount_usd: Number(formatAtomic(BigInt(r.amount))),
  asset: r.asset,
  asset_contract: r.assetContract,
  payer: r.payer,
  block: Number(r.blockNumber),
  confirmations_at_unlock: r.confirmations,
  time: r.recordedAt,
  // A sale an operator refunded (in part or in full) says so; other rows carry neither key.
  ...(r.refundedAmount !== undefined ? { refunded_amount: r.refundedAmount, refund_txs: refundTxs(r) } : {}),
});

/** A row's refund transactions, oldest first (by block, then hash). */
const refundTxs = (r: LedgerRow): string[] =>
  Object.values(r.refunds ?? {})
    .sort((a, b) => (BigInt(a.block) === BigInt(b.block) ? (a.tx < b.tx ? -1 : 1) : BigInt(a.block) < BigInt(b.block) ? -1 : 1))
    .map((x) => x.tx);

/** What `confirmed` counts, said beside it: refunds do not take a confirmed sale out of the count. */
export const CONFIRMED_COUNTS =
  'Confirmed on-chain transfers claimed for a skill, refunded ones included: a sale an operator refunded stays a confirmed transfer, and its row says so (refunded_amount, refund_txs).';

const badCursor = () =>
  invalidRequest('cursor', 'The cursor is not one this service issued.', 'Use next_cursor from the previous page, or leave it out.');

/**
 * The proof ledger document: the confirmed count (from the figures) and one page of the newest
 * rows (`limit` of them, after `cursor`), never the whole ledger.
 */
export async function proofDocument(ports: ProofPorts, skillParam: string | undefined, limit: number, cursor?: string) {
  const skill = skillParam !== undefined ? requireSkill(ports.catalog, skillParam).id : undefined;
  const [totals, page] = await Promise.all([ports.figures.totals(), ports.ledger.recent(limit, skill, cursor)]);
  if (!page) throw badCursor();
  const figures = unlockFigures(totals);
  return {
    ok: true,
    source: 'ledger',
    network: ports.config.network.name,
    // Where a person checks a row: `<explorer_url>/tx/<txHash>`, `<explorer_url>/address/<payer>` (null: none configured).
    explorer_url: ports.config.explorerUrl ?? null,
    skill: skill ?? null,
    confirmed: skill ? (figures.perSkill[skill] ?? 0) : figures.confirmed,
    confirmed_counts: CONFIRMED_COUNTS,
    recent_unlocks: page.rows.map(publicRow),
    limit,
    next_cursor: page.next ?? null,
    honesty: 'Every row is an on-chain transfer this deployment verified and recorded; nothing is estimated or invented.',
  };
}

/** GET /api/proof: the public ledger of confirmed unlocks, newest first, a page at a time. */
export async function getProof(req: ApiRequest, ports: ProofPorts): Promise<ApiResponse> {
  const cursor = optionalString(req, 'cursor', { maxLength: 400 });
  return json(200, await proofDocument(ports, req.query['skill'], optionalInteger(req, 'limit', PROOF_LIMIT), cursor));
}
