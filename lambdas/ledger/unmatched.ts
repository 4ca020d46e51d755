/**
 * Money received but not delivered: transfers of USDC or USDbC to the treasury that no claim
 * matches (a buyer who paid and never posted the txHash, a wrong amount, a transfer sent by
 * mistake). Support finds them here to deliver or refund; the figures never count them, because
 * nothing is written: the report is read from the chain's logs and the ledger, and only said.
 *
 * A transfer is matched when the proof ledger has a row for its transaction (any kind: an x402
 * unlock by txHash or by the relayer's settlement, a subscription period, a meter top-up). An
 * unclaimed transfer younger than the grace period is not judged (its buyer may be between the
 * transfer and the POST): it is listed apart, as too recent to judge, with the grace named, never
 * left out. The likely purchase is what the catalog sells at exactly that amount.
 */
import type { Catalog } from '../catalog';
import { explorerTx, formatDecimal, USD_DECIMALS } from '../contract/chain';
import type { NetworkName } from '../contract/networks';
import type { Ledger, TreasuryTransfer, TreasuryTransfers } from './ports';

/** How far back the daily run looks: two days of Base blocks (2 s each), so each transfer is seen by two runs. */
export const UNMATCHED_WINDOW_BLOCKS = 86_400n;
/** A transfer younger than this may still be claimed by its buyer: listed as too recent to judge, not as unmatched. */
export const UNMATCHED_GRACE_SECONDS = 600;

export interface UnmatchedPorts {
  transfers: TreasuryTransfers;
  ledger: Pick<Ledger, 'get'>;
  catalog: Pick<Catalog, 'entries' | 'pricing'>;
  /** The ledger partition a claim of these transfers is on: the network the service settles on. */
  network: NetworkName;
  /** Blocks a transfer needs above it before it is judged (the payment setting). */
  minConfirmations: number;
  /** `https://basescan.org` or none (a local chain). */
  explorerUrl: string | undefined;
  now: () => Date;
}

export interface UnmatchedTransfer {
  tx_hash: string;
  log_index: number;
  asset: 'USDC' | 'USDbC';
  amount_atomic: string;
  amount: string;
  payer: string;
  block: string;
  time: string;
  explorer_tx: string | null;
  /** Skills, plans or the meter sold at exactly this amount: what the buyer probably meant to buy. */
  likely: { kind: 'skill' | 'plan'; id: string }[];
}

export interface UnmatchedReport {
  from_block: string;
  to_block: string;
  scanned_at: string;
  /** Transfers to the treasury in the window: `matched` + `unmatched` + `too_recent`. */
  transfers: number;
  matched: number;
  /** Unclaimed and older than the grace: money received, nothing delivered. */
  unmatched: UnmatchedTransfer[];
  /** The grace the report judged by: an unclaimed transfer younger than this is `too_recent`. */
  grace_seconds: number;
  /** Unclaimed but younger than the grace (its buyer may still claim it): too recent to judge. */
  too_recent: UnmatchedTransfer[];
  /** Said when `too_recent` is not empty: how many, and the grace that held them back. */
  note?: string;
  /** In atomic units per asset: what the unmatched transfers hold in all. */
  unmatched_atomic: { USDC: string; USDbC: string };
}

/** What the catalog sells at exactly `amount` (atomic USDC). */
function likelyPurchases(amount: string, catalog: UnmatchedPorts['catalog']): UnmatchedTransfer['likely'] {
  return [
    ...catalog.entries.filter((e) => e.x402.amount === amount).map((e) => ({ kind: 'skill' as const, id: e.id })),
    ...catalog.pricing.plans.filter((p) => p.amount === amount).map((p) => ({ kind: 'plan' as const, id: p.id })),
  ];
}

/**
 * The report of blocks `from`..`to`; both default to the daily window ending at the judged head.
 * An unclaimed transfer younger than `graceSeconds` (default {@link UNMATCHED_GRACE_SECONDS}) is
 * `too_recent`, not `unmatched`.
 */
export async function unmatchedReceipts(
  ports: UnmatchedPorts,
  window: { from?: bigint | undefined; to?: bigint | undefined; graceSeconds?: number | undefined } = {},
): Promise<UnmatchedReport> {
  const head = await ports.transfers.head();
  const to = window.to ?? head - BigInt(Math.max(ports.minConfirmations - 1, 0));
  const from = window.from ?? (to > UNMATCHED_WINDOW_BLOCKS ? to - UNMATCHED_WINDOW_BLOCKS + 1n : 0n);
  const now = ports.now();
  const graceSeconds = window.graceSeconds ?? UNMATCHED_GRACE_SECONDS;
  const cutoff = now.getTime() - graceSeconds * 1000;
  const seen = to >= from ? await ports.transfers.between(from, to) : [];

  // One ledger read per transaction (a transaction with two transfers to the treasury is one claim at most).
  const claimed = new Map<string, boolean>();
  for (const tx of new Set(seen.map((t) => t.txHash))) claimed.set(tx, (await ports.ledger.get(ports.network, tx)) !== undefined);
  const unclaimed = seen.filter((t) => !claimed.get(t.txHash));
  const unmatched = unclaimed.filter((t) => Date.parse(t.time) <= cutoff);
  const tooRecent = unclaimed.filter((t) => Date.parse(t.time) > cutoff);
  const line = (t: TreasuryTransfer): UnmatchedTransfer => ({
    tx_hash: t.txHash,
    log_index: t.logIndex,
    asset: t.asset,
    amount_atomic: t.amount,
    amount: formatDecimal(BigInt(t.amount), USD_DECIMALS),
    payer: t.from,
    block: t.blockNumber.toString(),
    time: t.time,
    explorer_tx: explorerTx(ports.explorerUrl, t.txHash),
    likely: likelyPurchases(t.amount, ports.catalog),
  });

  const total = (asset: TreasuryTransfer['asset']): string =>
    unmatched
      .filter((t) => t.asset === asset)
      .reduce((sum, t) => sum + BigInt(t.amount), 0n)
      .toString();
  return {
    from_block: from.toString(),
    to_block: to.toString(),
    scanned_at: now.toISOString(),
    transfers: seen.length,
    matched: seen.length - unclaimed.length,
    unmatched: unmatched.map(line),
    grace_seconds: graceSeconds,
    too_recent: tooRecent.map(line),
    ...(tooRecent.length > 0 ? { note: tooRecentNote(tooRecent.length, graceSeconds) } : {}),
    unmatched_atomic: { USDC: total('USDC'), USDbC: total('USDbC') },
  };
}

/** What a report with unclaimed transfers inside the grace says of them. */
export const tooRecentNote = (count: number, graceSeconds: number): string =>
  `${count} unclaimed transfer${count === 1 ? ' is' : 's are'} too recent to judge: younger than the ${graceSeconds} s grace, ` +
  'their buyers may still claim them. They are in `too_recent`; run the report again once they are older, or with a grace of 0 to judge them now.';
