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
import { chainLabel } from '../../contract/networks';
import { refundedInFull } from '../../ledger';
import type { Catalog } from '../../catalog';
import type { MarketConfig } from '../../contract/settings';
import type { ChainRead, ChainReader, ConfirmationScheduler, Ledger, LedgerRow, Relayer } from '../ports';
import { rowKind, type Product } from './product';
import {
  authorizationOf,
  same,
  verifyTransfer,
  type AcceptedAsset,
  type FailureReason,
  type ReceiptView,
  type Verdict,
} from './verify-transfer';

export interface SettlePorts {
  config: MarketConfig;
  catalog: Catalog;
  chain: ChainReader;
  ledger: Ledger;
  confirmations: ConfirmationScheduler;
  now: () => Date;
  /** The relayer that submits x402 v2 authorizations (every key of its pool), where there is one. */
  x402?: { relayer: Pick<Relayer, 'isRelayer'> } | undefined;
}

/** Who is asking: what they proved, never what they merely know. */
export interface Claimant {
  /** sha256 of the caller's source address; unknown for callers the surface cannot place. */
  source?: string | undefined;
  /** The address whose wallet signature the caller presented and the service verified. */
  payer?: string | undefined;
}

export type RefusalReason =
  | FailureReason
  | 'already_used'
  | 'reorged'
  | 'refunded'
  | 'payer_mismatch'
  | 'payer_proof_required'
  | 'too_old'
  | 'relayed'
  | 'authorized_transfer';

/** A verified transfer as a purchase policy (an AP2 mandate) sees it, before it is claimed or delivered again. */
export interface Purchase {
  txHash: string;
  payer: string;
  /** Atomic units transferred. */
  amount: bigint;
  product: Product;
}

/**
 * A rule the caller brings that a verified purchase must also pass (an AP2 mandate's
 * constraints and spend). It is asked before the first claim and before every replay, so a
 * purchase it refuses is never delivered; it must be idempotent per transfer.
 */
export type Admission = (purchase: Purchase) => Promise<{ ok: true } | { ok: false; message: string }>;

export type SettleOutcome =
  | { kind: 'unlocked'; row: LedgerRow; replayed: boolean }
  /** Waiting can help: not found yet, or too few confirmations (a re-verification may have been scheduled). */
  | { kind: 'pending'; message: string; confirmations: number | undefined; scheduled: boolean }
  | { kind: 'refused'; reason: RefusalReason; message: string }
  /** The transfer is claimed and the caller showed nothing that makes it theirs; says nothing about the claim. */
  | { kind: 'not_yours' }
  /** The caller's own policy (its mandate) refused the purchase; nothing was claimed or delivered. */
  | { kind: 'not_admitted'; message: string }
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
  proof: { txHash: `0x${string}`; product: Product },
  ports: SettlePorts,
  opts: {
    schedule: boolean;
    claimant: Claimant;
    admit?: Admission | undefined;
    /** The claim comes from the x402 v2 settlement that submitted this transfer (or its confirmation loop). */
    relayed?: boolean | undefined;
    /**
     * With `relayed`: the relayer's own receipt of the transfer, read in this request. The claim is
     * judged from it (status, logs, block) instead of reading the receipt, the head and the block
     * again: the receipt exists, so its block is the first confirmation. Only when more are required
     * is the chain read (receipt and head in one batch).
     */
    relayedReceipt?: ReceiptView | undefined;
    /**
     * With `relayed`: the transfer is the escrow's `authorize` of an x402 `auth-capture` payment
     * (issue 53): the buyer's money went to the escrow's token collector for the treasury, which
     * the capture pays once the pack is delivered. The row names the payment and its settlement.
     */
    escrow?: { paymentHash: string; settlement: string } | undefined;
  },
): Promise<SettleOutcome> {
  const txHash = proof.txHash.toLowerCase() as `0x${string}`;
  const product = proof.product;
  const { claimant } = opts;
  // The ledger's partition is the configured network's: a staging stack's rows say base-sepolia.
  const network = ports.config.network;
  // A transfer the relayer just had mined has no row yet but in a race, which the claim's
  // conditional write settles on its own (the row it loses to is answered as a replay below): not read first.
  const fresh = opts.relayed === true && opts.relayedReceipt !== undefined;
  const existing = fresh ? undefined : await ports.ledger.get(network.name, txHash);

  if (existing?.status === 'confirmed') return replay(existing, product, ports, claimant, opts.admit);

  if (!ports.config.paymentsEnabled) return { kind: 'disabled', message: 'Payments are switched off by the operator.' };

  // A relayed transfer's age is not asked (below), so its block's time is not read either.
  const read: ChainRead =
    opts.relayed && opts.relayedReceipt && ports.config.minConfirmations <= 1
      ? { kind: 'found', receipt: opts.relayedReceipt, head: opts.relayedReceipt.blockNumber, provider: 'relayer' }
      : await ports.chain.readTransfer(txHash, { blockTime: !opts.relayed });
  if (read.kind === 'unavailable')
    return { kind: 'unavailable', message: `No RPC provider for ${chainLabel(network)} answered; nothing was recorded.` };
  if (read.kind === 'not_found') {
    return {
      kind: 'pending',
      message: `Transaction ${txHash} was not found on ${chainLabel(network)}. If you just sent it, it may not be mined yet.`,
      confirmations: undefined,
      scheduled: false,
    };
  }

  const escrowed = opts.relayed === true && opts.escrow !== undefined;
  const verdict = judge(read, ports, product.price, ports.config.minConfirmations, escrowed);
  if (!verdict.ok) {
    if (verdict.reason === 'too_few_confirmations') {
      const job = {
        network: network.name,
        txHash,
        skill: product.id,
        ...(product.kind !== 'unlock' ? { product: product.kind } : {}),
        ...(claimant.source ? { source: claimant.source } : {}),
        ...(claimant.payer ? { payer: claimant.payer } : {}),
        ...(opts.relayed ? { relayed: true } : {}),
      };
      const scheduled = opts.schedule && (await ports.confirmations.schedule(job)) === 'started';
      return { kind: 'pending', message: verdict.message, confirmations: verdict.confirmations, scheduled };
    }
    return { kind: 'refused', reason: verdict.reason, message: verdict.message };
  }

  // The first claim. Whoever saw the transfer on chain could send it; bind it to the payer where possible.
  // A transfer the service's relayer submitted was paid with a signed authorization: it belongs to
  // the request that brought the signature, so nobody who merely saw it on chain can race that buyer.
  // Any key of the relayer's pool counts, one short of ETH (out of the pool for new settlements) too.
  if (!opts.relayed && ports.x402 && read.receipt.sender !== undefined && (await ports.x402.relayer.isRelayer(read.receipt.sender))) {
    return {
      kind: 'refused',
      reason: 'relayed',
      message:
        'This transfer was submitted by the service for a signed x402 authorization; it unlocks only for the request that brought that authorization.',
    };
  }
  // A transfer made with an EIP-3009 authorization carries the payer's signature for it, whoever
  // submitted the call (the relayer, or someone who copied the authorization or the relayer's
  // pending call and had it mined first). It belongs to that signer: it is claimed by the
  // settlement that holds the authorization, or by the signer's own wallet signature, never by
  // whoever merely saw it.
  if (!opts.relayed && authorizationOf(read.receipt, verdict.asset.address, verdict.payer) && !same(claimant.payer, verdict.payer)) {
    return {
      kind: 'refused',
      reason: 'authorized_transfer',
      message:
        "This transfer was made with the payer's signed authorization (EIP-3009); only that wallet can claim it: sign the claim with it (SIGN-IN-WITH-X), or send the same PAYMENT-SIGNATURE again.",
    };
  }
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
  // A transfer of more than the pack's price was made for something else (a plan, a top-up, a
  // second pack): whoever saw it on chain could otherwise claim it as this pack before its payer
  // claims what it paid for. Over-paying is the payer's choice only when the payer signs (I5).
  // Plans and top-ups credit the payer's own wallet, so an unsigned claim of one gives a racer nothing.
  if (!opts.relayed && product.kind === 'unlock' && claimant.payer === undefined && verdict.amount !== BigInt(product.price)) {
    return {
      kind: 'refused',
      reason: 'payer_proof_required',
      message: `The transfer moved ${verdict.amount} atomic units, not this pack's price of ${product.price}: only the paying wallet can claim it as this pack (header SIGN-IN-WITH-X).`,
    };
  }
  // Asked for above; a reader that cannot tell the block's time makes the transfer too old to trust.
  // The age rule keeps an old transfer to the treasury from being claimed by whoever finds it; a
  // relayed transfer has an owner already (the settlement that claimed its authorization before
  // signing), so its age is not asked: a claim the loop finishes late is still its buyer's.
  const ageSeconds = read.blockTimestamp === undefined ? Infinity : ports.now().getTime() / 1000 - Number(read.blockTimestamp);
  if (!opts.relayed && ageSeconds > ports.config.maxTransferAgeSeconds) {
    return {
      kind: 'refused',
      reason: 'too_old',
      message: `The transfer is ${Number.isFinite(ageSeconds) ? `${Math.floor(ageSeconds)} s` : 'of unknown'} old; transfers older than ${ports.config.maxTransferAgeSeconds} s cannot make a first claim. Pay the current challenge.`,
    };
  }

  if (opts.admit) {
    const admission = await opts.admit({ txHash, payer: verdict.payer, amount: verdict.amount, product });
    if (!admission.ok) return { kind: 'not_admitted', message: admission.message };
  }

  // The pack as sold, from the server's catalog, kept on the buyer's own row: what its receipt states.
  const seal = product.kind === 'unlock' ? ports.catalog.packMeta(product.id)?.seal : undefined;
  const row: LedgerRow = {
    ...(product.kind !== 'unlock' ? { kind: product.kind } : {}),
    network: network.name,
    txHash,
    skill: product.id,
    amount: verdict.amount.toString(),
    price: product.price,
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
    ...(seal ? { packSeal: seal } : {}),
    // The escrow it was authorized in, as configured now: the receipt states it from the row alone.
    ...(escrowed
      ? {
          scheme: 'auth-capture' as const,
          escrow: ports.config.authCapture!.escrow,
          paymentHash: opts.escrow!.paymentHash,
          settlement: opts.escrow!.settlement,
        }
      : {}),
  };
  const claim = await ports.ledger.claim(row);
  if (claim.claimed) {
    // Finality is checked, not hoped for: the claim is re-verified once it is older than the reorg window.
    if (opts.schedule) {
      await ports.confirmations.schedule({
        network: network.name,
        txHash,
        skill: product.id,
        ...(product.kind !== 'unlock' ? { product: product.kind } : {}),
        kind: 'finality',
      });
    }
    return { kind: 'unlocked', row, replayed: false };
  }
  // Lost a race with a concurrent request for the same transfer: its row stands, and it is the buyer's only if the caller is.
  return claim.existing.status === 'confirmed' ? replay(claim.existing, product, ports, claimant, opts.admit) : { kind: 'not_yours' };
}

async function replay(
  existing: LedgerRow,
  product: Product,
  ports: SettlePorts,
  claimant: Claimant,
  admit: Admission | undefined,
): Promise<SettleOutcome> {
  if (!isBuyer(existing, claimant, ports.config, ports.now())) return { kind: 'not_yours' };
  if (existing.skill !== product.id || rowKind(existing) !== product.kind) {
    // Only the buyer learns what their transfer bought.
    return {
      kind: 'refused',
      reason: 'already_used',
      message: `Transfer already used for ${existing.skill}: one transfer pays for one thing, once. Pay again for another.`,
    };
  }
  if (refundedInFull(existing)) {
    // The operator sent the whole transfer back (npm run refund): the sale no longer gives the pack.
    return {
      kind: 'refused',
      reason: 'refunded',
      message: 'The transfer was refunded in full to its payer; it no longer unlocks. Pay again to buy the skill.',
    };
  }
  if (admit) {
    const admission = await admit({ txHash: existing.txHash, payer: existing.payer, amount: BigInt(existing.amount), product });
    if (!admission.ok) return { kind: 'not_admitted', message: admission.message };
  }
  const age = (ports.now().getTime() - Date.parse(existing.recordedAt)) / 1000;
  if (existing.final || age >= ports.config.reorgWindowSeconds) return { kind: 'unlocked', row: existing, replayed: true };
  // Young claim: re-checked on chain; it is revoked only on agreement that the transfer is gone.
  const read = await ports.chain.readTransfer(existing.txHash as `0x${string}`);
  if (dropped(existing, read, ports)) {
    await ports.ledger.markReorged(ports.config.network.name, existing.txHash);
    return {
      kind: 'refused',
      reason: 'reorged',
      message: `The transfer is no longer on ${chainLabel(ports.config.network)} (a reorganisation dropped it); it cannot unlock. The service issues no refund.`,
    };
  }
  return { kind: 'unlocked', row: existing, replayed: true };
}

/**
 * Whether the chain says a claimed transfer is gone. Only positive evidence counts: every
 * provider that answered is past the claimed block and has no receipt, or the receipt now sits
 * in another block and no longer pays. A lagging provider (head below the block) proves nothing.
 */
export function dropped(row: LedgerRow, read: ChainRead, ports: SettlePorts): boolean {
  if (read.kind === 'not_found') return read.head !== undefined && read.head >= BigInt(row.blockNumber);
  // Judged at the price the claim was made at: a later price change says nothing about the transfer.
  if (read.kind === 'found')
    return (
      read.receipt.blockHash.toLowerCase() !== row.blockHash.toLowerCase() &&
      !judge(read, ports, row.price, 1, row.scheme === 'auth-capture').ok
    );
  return false;
}

/**
 * The transfer rules applied to what the chain returned, with the server's own price, treasury and
 * assets. An escrow's `authorize` (`escrowed`) pays the escrow's token collector, for the treasury.
 */
function judge(
  read: Extract<ChainRead, { kind: 'found' }>,
  ports: SettlePorts,
  price: string,
  minConfirmations: number,
  escrowed = false,
): Verdict {
  return verifyTransfer({
    receipt: read.receipt,
    head: read.head,
    minConfirmations,
    treasury: escrowed ? ports.config.authCapture!.tokenCollector : ports.config.treasury!,
    legacyTreasury: ports.config.legacyTreasury,
    assets: acceptedAssets(ports.config),
    price: BigInt(price),
  });
}
