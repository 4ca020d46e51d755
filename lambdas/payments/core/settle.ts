/**
 * Settlement: from a proof (txHash, skill) to a claimed unlock, exactly once per transfer, and
 * only ever for its buyer. Plain function of its ports; the HTTP routes, MCP and the
 * confirmation loop all call it.
 *
 * Everything on chain and on the proof ledger is public (a txHash, its payer, its skill), so
 * none of it is enough to get a pack. A claimed transfer is delivered again only to its buyer:
 * the payer, proven by a wallet signature, or the caller that made the first claim, within the
 * retry window (the lost-response retry the spec promises). Licenses are checked by the caller.
 */
import { NETWORK } from '../../contract/chain';
import type { Catalog } from '../../catalog';
import type { CatalogEntry } from '../../contract/catalog-data';
import type { MarketConfig } from '../../contract/settings';
import type { ChainRead, ChainReader, ConfirmationScheduler, Ledger, LedgerRow } from '../ports';
import { same, verifyTransfer, type AcceptedAsset, type FailureReason, type Verdict } from './verify-transfer';

export interface SettlePorts {
  config: MarketConfig;
  catalog: Catalog;
  chain: ChainReader;
  ledger: Ledger;
  confirmations: ConfirmationScheduler;
  now: () => Date;
}

/** Who is asking: what they proved, never what they merely know. */
export interface Claimant {
  /** sha256 of the caller's source address; unknown for callers the surface cannot place. */
  source?: string | undefined;
  /** The address whose wallet signature the caller presented and the service verified. */
  payer?: string | undefined;
}

export type RefusalReason = FailureReason | 'already_used' | 'reorged' | 'payer_mismatch' | 'payer_proof_required' | 'too_old';

export type SettleOutcome =
  | { kind: 'unlocked'; row: LedgerRow; replayed: boolean }
  /** Waiting can help: not found yet, or too few confirmations (a re-verification may have been scheduled). */
  | { kind: 'pending'; message: string; confirmations: number | undefined; scheduled: boolean }
  | { kind: 'refused'; reason: RefusalReason; message: string }
  /** The transfer is claimed and the caller showed nothing that makes it theirs; says nothing about the claim. */
  | { kind: 'not_yours' }
  /** Every provider failed: nothing was stored; retry later. */
  | { kind: 'unavailable'; message: string }
  | { kind: 'disabled'; message: string };

export function acceptedAssets(config: MarketConfig): AcceptedAsset[] {
  return [
    { symbol: 'USDC' as const, address: config.assets.USDC! },
    { symbol: 'USDbC' as const, address: config.assets.USDbC! },
  ].filter((a) => a.address !== undefined);
}

/** Whether the claimant is the buyer of a claimed row: its payer (signed), or its first claimant within the retry window. */
export function isBuyer(row: LedgerRow, claimant: Claimant, config: MarketConfig, now: Date): boolean {
  if (same(claimant.payer, row.payer)) return true;
  const age = (now.getTime() - Date.parse(row.recordedAt)) / 1000;
  return (
    row.claimSource !== undefined &&
    claimant.source !== undefined &&
    row.claimSource === claimant.source &&
    age >= 0 &&
    age < config.retryWindowSeconds
  );
}

/**
 * Verifies the transfer on chain and claims it for the skill with one conditional write.
 * A claimed transfer is delivered again only to its buyer (see {@link isBuyer}); anyone else
 * learns nothing about it, not even its skill. A recent claim is re-checked on chain so a reorg
 * that dropped it is noticed.
 */
export async function settle(
  proof: { txHash: `0x${string}`; skill: CatalogEntry },
  ports: SettlePorts,
  opts: { schedule: boolean; claimant: Claimant },
): Promise<SettleOutcome> {
  const txHash = proof.txHash.toLowerCase() as `0x${string}`;
  const skill = proof.skill;
  const { claimant } = opts;
  const existing = await ports.ledger.get(NETWORK, txHash);

  if (existing?.status === 'confirmed') return replay(existing, skill, ports, claimant);

  if (!ports.config.paymentsEnabled) return { kind: 'disabled', message: 'Payments are switched off by the operator.' };

  const read = await ports.chain.readTransfer(txHash, { blockTime: true });
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
      const job = {
        network: NETWORK,
        txHash,
        skill: skill.id,
        ...(claimant.source ? { source: claimant.source } : {}),
        ...(claimant.payer ? { payer: claimant.payer } : {}),
      };
      const scheduled = opts.schedule && (await ports.confirmations.schedule(job)) === 'started';
      return { kind: 'pending', message: verdict.message, confirmations: verdict.confirmations, scheduled };
    }
    return { kind: 'refused', reason: verdict.reason, message: verdict.message };
  }

  // The first claim. Whoever saw the transfer on chain could send it; bind it to the payer where possible.
  if (claimant.payer !== undefined && !same(claimant.payer, verdict.payer)) {
    return {
      kind: 'refused',
      reason: 'payer_mismatch',
      message: 'The wallet that signed is not the wallet that paid; only the payer can claim this transfer.',
    };
  }
  if (ports.config.requirePayerProof && claimant.payer === undefined) {
    return {
      kind: 'refused',
      reason: 'payer_proof_required',
      message: 'This deployment requires the paying wallet to sign the first claim (header SIGN-IN-WITH-X).',
    };
  }
  // Asked for above; a reader that cannot tell the block's time makes the transfer too old to trust.
  const ageSeconds = read.blockTimestamp === undefined ? Infinity : ports.now().getTime() / 1000 - Number(read.blockTimestamp);
  if (ageSeconds > ports.config.maxTransferAgeSeconds) {
    return {
      kind: 'refused',
      reason: 'too_old',
      message: `The transfer is ${Number.isFinite(ageSeconds) ? `${Math.floor(ageSeconds)} s` : 'of unknown'} old; transfers older than ${ports.config.maxTransferAgeSeconds} s cannot make a first claim. Pay the current challenge.`,
    };
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
    ...(claimant.source ? { claimSource: claimant.source } : {}),
  };
  const claim = await ports.ledger.claim(row);
  if (claim.claimed) {
    // Finality is checked, not hoped for: the claim is re-verified once it is older than the reorg window.
    if (opts.schedule) await ports.confirmations.schedule({ network: NETWORK, txHash, skill: skill.id, kind: 'finality' });
    return { kind: 'unlocked', row, replayed: false };
  }
  // Lost a race with a concurrent request for the same transfer: its row stands, and it is the buyer's only if the caller is.
  return claim.existing.status === 'confirmed' ? replay(claim.existing, skill, ports, claimant) : { kind: 'not_yours' };
}

async function replay(existing: LedgerRow, skill: CatalogEntry, ports: SettlePorts, claimant: Claimant): Promise<SettleOutcome> {
  if (!isBuyer(existing, claimant, ports.config, ports.now())) return { kind: 'not_yours' };
  if (existing.skill !== skill.id) {
    // Only the buyer learns which skill their transfer bought.
    return {
      kind: 'refused',
      reason: 'already_used',
      message: `Transfer already used for ${existing.skill}: one transfer unlocks one skill, once. Pay again for another skill.`,
    };
  }
  const age = (ports.now().getTime() - Date.parse(existing.recordedAt)) / 1000;
  if (existing.final || age >= ports.config.reorgWindowSeconds) return { kind: 'unlocked', row: existing, replayed: true };
  // Young claim: re-checked on chain; it is revoked only on agreement that the transfer is gone.
  const read = await ports.chain.readTransfer(existing.txHash as `0x${string}`);
  if (dropped(existing, read, ports, skill)) {
    await ports.ledger.markReorged(NETWORK, existing.txHash);
    return {
      kind: 'refused',
      reason: 'reorged',
      message: 'The transfer is no longer on chain 8453 (a reorganisation dropped it); it cannot unlock. The service issues no refund.',
    };
  }
  return { kind: 'unlocked', row: existing, replayed: true };
}

/**
 * Whether the chain says a claimed transfer is gone. Only positive evidence counts: every
 * provider that answered is past the claimed block and has no receipt, or the receipt now sits
 * in another block and no longer pays. A lagging provider (head below the block) proves nothing.
 */
export function dropped(row: LedgerRow, read: ChainRead, ports: SettlePorts, skill: CatalogEntry): boolean {
  if (read.kind === 'not_found') return read.head !== undefined && read.head >= BigInt(row.blockNumber);
  if (read.kind === 'found')
    return read.receipt.blockHash.toLowerCase() !== row.blockHash.toLowerCase() && !judge(read, ports, skill, 1).ok;
  return false;
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
