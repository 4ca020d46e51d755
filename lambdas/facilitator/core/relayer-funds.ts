/**
 * What the x402 relayer may risk for a payer, as pure decisions (docs/PAYMENTS.md, "What the
 * relayer risks"). The relayer pays the gas of every transfer it submits; a transfer reverts when
 * the payer's funds leave first, and then only the relayer has paid. So it never has more in
 * flight for a payer than one settlement at a time, covered by its balance at the pending block
 * read after its hold was taken, and it stops settling for a payer whose transfer reverted. An
 * hour's reverts past the operator's budget raise an alarm; they never stop anyone else's
 * settlements, or an attacker could switch the service off (issue 50, I3).
 */
import type { FundsAhead, FundsHold, SettlementRecord } from '../ports';

/** Seconds of margin under `validBefore`: a call signed closer to its end may be mined after it and revert. */
export const VALIDITY_MARGIN_SECONDS = 6;

/** Why a signed authorization is not sent now, before anything is held or broadcast; undefined when it may be. */
export type FundsVerdict =
  { kind: 'used' } | { kind: 'expired' } | { kind: 'not_yet_valid' } | { kind: 'insufficient'; balance: bigint } | undefined;

/**
 * The payer's funds at the pending block against one authorization: already used (by anyone: the
 * transfer may be the buyer's after all), outside its window, or short of its value.
 */
export function judgeFunds(
  funds: FundsAhead,
  authorization: { value: string; validAfter: string; validBefore: string },
  nowSeconds: number,
): FundsVerdict {
  if (funds.authorizationUsed) return { kind: 'used' };
  if (Number(authorization.validBefore) <= nowSeconds + VALIDITY_MARGIN_SECONDS) return { kind: 'expired' };
  if (Number(authorization.validAfter) >= nowSeconds) return { kind: 'not_yet_valid' };
  if (funds.balance < BigInt(authorization.value)) return { kind: 'insufficient', balance: funds.balance };
  return undefined;
}

/**
 * Whether a hold outlived its settlement: the settlement is gone (abandoned), ended, or its
 * authorization can no longer move money (past `validBefore`). Such holds are released before a
 * payer is told its funds are all in flight.
 */
export function holdEnded(record: SettlementRecord | undefined, nowSeconds: number): boolean {
  if (!record) return true;
  if (record.state === 'settled' || record.state === 'failed') return true;
  return record.validBefore !== undefined && Number(record.validBefore) + VALIDITY_MARGIN_SECONDS < nowSeconds;
}

/**
 * Until when a payer cools down for a settlement that ended in a revert the relayer paid for (its
 * gas recorded on a `failed` outcome), counted from its end; undefined for any other end.
 */
export function revertCoolUntil(record: SettlementRecord | undefined, cooldownSeconds: number): number | undefined {
  if (record?.state !== 'failed' || record.gasCostWei === undefined || record.gasCostWei === '0' || !record.finishedAt) return undefined;
  return Math.floor(Date.parse(record.finishedAt) / 1000) + cooldownSeconds;
}

/** The UTC hour a reverted transfer's gas counts against: `yyyy-mm-ddThh`. */
export const revertHour = (now: Date): string => now.toISOString().slice(0, 13);

/**
 * Whether the pending block shows the payer's funds leaving already: it holds less than this
 * authorization's value, and nothing else of the relayer's is in flight for it (one at a time, I1),
 * so the shortfall is the payer's own doing.
 */
export const pendingShortfall = (funds: FundsAhead, value: string): boolean => funds.pendingBalance < BigInt(value);

/** The hold of a settlement: its payer's token and the authorization's value. */
export const holdOf = (record: Pick<SettlementRecord, 'pk' | 'token' | 'payer' | 'amount'>): FundsHold => ({
  pk: record.pk,
  token: record.token,
  payer: record.payer,
  amount: BigInt(record.amount),
});
