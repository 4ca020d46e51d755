/**
 * The ledger's figures as the surfaces report them (ESP, shop, judges, proof, identity), read
 * from the counter items the fold keeps (a scope's items as flat counters): a few small items per
 * question, whatever the number of rows behind it.
 */
import { perProduct, sumsOf, type Channel, type Counters, type TallyAsset } from './core/counters';

export interface UnlockFigures {
  /** Confirmed x402 unlocks. */
  confirmed: number;
  /** Atomic units they paid (USDC and USDbC, both 6 decimals). */
  volumeAtomic: bigint;
  /** Confirmed unlocks per skill, skills with none left out. */
  perSkill: Record<string, number>;
  /** Claims of each skill that a reorg dropped and nobody re-claimed. */
  reorgedPerSkill: Record<string, number>;
}

/** Unlock figures of one scope (all time, or a wallet). */
export function unlockFigures(counters: Counters): UnlockFigures {
  const sums = sumsOf(counters);
  const out: UnlockFigures = { confirmed: 0, volumeAtomic: 0n, perSkill: {}, reorgedPerSkill: {} };
  for (const [skill, { count, amount }] of perProduct(sums, 'x402')) {
    out.confirmed += Number(count);
    out.volumeAtomic += amount;
    if (count > 0n) out.perSkill[skill] = Number(count);
  }
  for (const r of sums.reorged) if (r.channel === 'x402') out.reorgedPerSkill[r.product] = Number(r.count);
  return out;
}

export interface WalletFigures {
  unlocks: number;
  distinctSkills: number;
  subscriptions: number;
  meterTopUps: number;
  /** Atomic units of every confirmed payment, all kinds. */
  volumeAtomic: bigint;
  /** Claims a reorg dropped and nobody re-claimed. */
  reorged: number;
}

/** A wallet's reputation figures from its counters. */
export function walletFigures(counters: Counters): WalletFigures {
  const sums = sumsOf(counters);
  const count = (channel: 'x402' | 'subscriptions' | 'meters') =>
    sums.lines.filter((l) => l.channel === channel).reduce((n, l) => n + Number(l.count), 0);
  return {
    unlocks: count('x402'),
    distinctSkills: [...perProduct(sums, 'x402').values()].filter((p) => p.count > 0n).length,
    subscriptions: count('subscriptions'),
    meterTopUps: count('meters'),
    volumeAtomic: sums.lines.reduce((v, l) => v + l.amount, 0n),
    reorged: sums.reorged.reduce((n, r) => n + Number(r.count), 0),
  };
}

/** Places of each tallied asset's unit: USDC and USDbC in atomic units (6), card sales in cents (2). */
export const TALLY_DECIMALS: Readonly<Record<TallyAsset, number>> = { USDC: 6, USDbC: 6, USD: 2 };

/** Confirmed count and amount (in the asset's unit) of one channel, asset and product. */
export interface RevenueLine {
  channel: Channel;
  asset: TallyAsset;
  product: string;
  count: bigint;
  amount: bigint;
}

/** The confirmed lines of one scope (all time, or a day), sorted by channel, product, asset; zero lines left out. */
export const revenueLines = (counters: Counters): RevenueLine[] => sumsOf(counters).lines;

/** Standing reorged claims per channel and product of one scope. */
export const reorgedLines = (counters: Counters): { channel: Channel; product: string; count: bigint }[] => sumsOf(counters).reorged;

/**
 * Confirmed sales of one scope refunded in full, per channel and product. Each is also counted in
 * `revenueLines` (revenue is gross); a reader of demand subtracts them.
 */
export const refundedLines = (counters: Counters): { channel: Channel; product: string; count: bigint }[] => sumsOf(counters).refunded;
