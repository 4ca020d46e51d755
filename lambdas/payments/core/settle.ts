/**
 * Settlement: from a proof (txHash, skill) to a claimed unlock, exactly once per transfer.
 * Plain function of its ports; the HTTP routes and the confirmation loop both call it.
 */
import { NETWORK } from '../../contract/chain';
import type { Catalog } from '../../catalog';
import type { CatalogEntry } from '../../contract/catalog-data';
import type { MarketConfig } from '../../contract/settings';
import { REORG_WINDOW_SECONDS } from '../../contract/confirmation-policy';
import type { ChainRead, ChainReader, ConfirmationScheduler, Ledger, LedgerRow } from '../ports';
import { verifyTransfer, type AcceptedAsset, type FailureReason, type Verdict } from './verify-transfer';

export interface SettlePorts {
  config: MarketConfig;
  catalog: Catalog;
  chain: ChainReader;
  ledger: Ledger;
  confirmations: ConfirmationScheduler;
  now: () => Date;
}

export type SettleOutcome =
  | { kind: 'unlocked'; row: LedgerRow; replayed: boolean }
  /** Waiting can help: not found yet, or too few confirmations (a re-verification may have been scheduled). */
  | { kind: 'pending'; message: string; confirmations: number | undefined; scheduled: boolean }
  | { kind: 'refused'; reason: FailureReason | 'already_used' | 'reorged'; message: string }
  /** Every provider failed: nothing was stored; retry later. */
  | { kind: 'unavailable'; message: string }
  | { kind: 'disabled'; message: string };

export function acceptedAssets(config: MarketConfig): AcceptedAsset[] {
  return [
    { symbol: 'USDC' as const, address: config.assets.USDC! },
    { symbol: 'USDbC' as const, address: config.assets.USDbC! },
  ].filter((a) => a.address !== undefined);
}

/**
 * Verifies the transfer on chain and claims it for the skill with one conditional write.
 * A transfer already claimed for this skill replays without a new row; for another skill
 * it is refused. A recent claim is re-checked on chain so a reorg that dropped it is noticed.
 */
export async function settle(
  proof: { txHash: `0x${string}`; skill: CatalogEntry },
  ports: SettlePorts,
  opts: { schedule: boolean },
): Promise<SettleOutcome> {
  const txHash = proof.txHash.toLowerCase() as `0x${string}`;
  const skill = proof.skill;
  const existing = await ports.ledger.get(NETWORK, txHash);

  if (existing?.status === 'confirmed') {
    if (existing.skill !== skill.id) return alreadyUsed(existing);
    const age = (ports.now().getTime() - Date.parse(existing.recordedAt)) / 1000;
    if (age >= REORG_WINDOW_SECONDS) return { kind: 'unlocked', row: existing, replayed: true };
    // Young claim: only positive evidence (a provider answering without the receipt) revokes it.
    const read = await ports.chain.readTransfer(txHash);
    if (
      read.kind === 'not_found' ||
      (read.kind === 'found' &&
        read.receipt.blockHash.toLowerCase() !== existing.blockHash.toLowerCase() &&
        !judge(read, ports, skill, 1).ok)
    ) {
      await ports.ledger.markReorged(NETWORK, txHash);
      return {
        kind: 'refused',
        reason: 'reorged',
        message: 'The transfer is no longer on chain 8453 (a reorganisation dropped it); it cannot unlock. The service issues no refund.',
      };
    }
    return { kind: 'unlocked', row: existing, replayed: true };
  }

  if (!ports.config.paymentsEnabled) return { kind: 'disabled', message: 'Payments are switched off by the operator.' };

  const read = await ports.chain.readTransfer(txHash);
  if (read.kind === 'unavailable')
    return { kind: 'unavailable', message: 'No RPC provider for chain 8453 answered; nothing was recorded.' };
  if (read.kind === 'not_found') {
    return {
      kind: 'pending',
      message: `Transaction ${txHash} was not found on chain 8453 (network base). If you just sent it, it may not be mined yet.`,
      confirmations: undefined,
      scheduled: false,
    };
  }

  const verdict = judge(read, ports, skill, ports.config.minConfirmations);
  if (!verdict.ok) {
    if (verdict.reason === 'too_few_confirmations') {
      const scheduled = opts.schedule && (await ports.confirmations.schedule({ network: NETWORK, txHash, skill: skill.id })) === 'started';
      return { kind: 'pending', message: verdict.message, confirmations: verdict.confirmations, scheduled };
    }
    return { kind: 'refused', reason: verdict.reason, message: verdict.message };
  }

  const row: LedgerRow = {
    network: NETWORK,
    txHash,
    skill: skill.id,
    amount: verdict.amount.toString(),
    price: skill.x402.amount,
    asset: verdict.asset.symbol,
    assetContract: verdict.asset.address,
    payer: verdict.payer,
    blockNumber: read.receipt.blockNumber.toString(),
    blockHash: read.receipt.blockHash,
    logIndex: verdict.logIndex,
    confirmations: verdict.confirmations,
    recordedAt: ports.now().toISOString(),
    status: 'confirmed',
  };
  const claim = await ports.ledger.claim(row);
  if (claim.claimed) return { kind: 'unlocked', row, replayed: false };
  // Lost a race with a concurrent request for the same transfer: its row stands.
  if (claim.existing.skill === skill.id && claim.existing.status === 'confirmed')
    return { kind: 'unlocked', row: claim.existing, replayed: true };
  return alreadyUsed(claim.existing);
}

function alreadyUsed(existing: LedgerRow): SettleOutcome {
  return {
    kind: 'refused',
    reason: 'already_used',
    message: `Transfer already used for ${existing.skill}: one transfer unlocks one skill, once. Pay again for another skill.`,
  };
}

/** The transfer rules applied to what the chain returned, with the server's own price, treasury and assets. */
function judge(read: Extract<ChainRead, { kind: 'found' }>, ports: SettlePorts, skill: CatalogEntry, minConfirmations: number): Verdict {
  return verifyTransfer({
    receipt: read.receipt,
    head: read.head,
    minConfirmations,
    treasury: ports.config.treasury!,
    legacyTreasury: ports.config.legacyTreasury,
    assets: acceptedAssets(ports.config),
    price: BigInt(skill.x402.amount),
  });
}
