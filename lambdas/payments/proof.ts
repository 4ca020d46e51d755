import { formatAtomic, NETWORK } from '../contract/chain';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { optionalInteger } from '../platform/query';
import { requireSkill } from '../catalog';
import type { LedgerRow, PaymentsPorts } from './ports';

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
});

/** The proof ledger document: confirmed count and newest rows, from stored rows only. */
export async function proofDocument(ports: Pick<PaymentsPorts, 'ledger' | 'catalog'>, skillParam: string | undefined, limit: number) {
  const skill = skillParam !== undefined ? requireSkill(ports.catalog, skillParam).id : undefined;
  const [confirmed, rows] = await Promise.all([ports.ledger.count(skill), ports.ledger.recent(limit, skill)]);
  return {
    ok: true,
    source: 'ledger',
    network: NETWORK,
    skill: skill ?? null,
    confirmed,
    recent_unlocks: rows.map(publicRow),
    honesty: 'Every row is an on-chain transfer this deployment verified and recorded; nothing is estimated or invented.',
  };
}

/** GET /api/proof: the public ledger of confirmed unlocks. */
export async function getProof(req: ApiRequest, ports: Pick<PaymentsPorts, 'ledger' | 'catalog'>): Promise<ApiResponse> {
  return json(200, await proofDocument(ports, req.query['skill'], optionalInteger(req, 'limit', PROOF_LIMIT)));
}
