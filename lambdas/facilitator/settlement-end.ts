/**
 * The end of an x402 settlement whose relayer transaction was mined: its gas (priced in US dollars
 * by the configured feed), its state (`settled`, or `failed` for a revert, with the payer cooling
 * down and the gas counted for the hour's alarm), out of the in-flight index, and the payer's hold
 * released, written by whoever drives the settlement to its end (settle.ts: a request, or the
 * confirmation loop once the receipt came after the request stopped waiting), so no settlement
 * whose transaction is mined is left "in flight".
 */
import type { MarketConfig } from '../contract/settings';
import { METRICS } from '../contract/metrics';
import { logger } from '../platform/logger';
import { countMetric } from '../platform/metrics';
import { gasUsdFields, type GasUsdFields } from './core/gas-usd';
import { holdOf, revertHour } from './core/relayer-funds';
import type { RelayedReceipt, SettlementRecord, X402Settlement } from './ports';

/**
 * How long pricing the relayer's gas may take (docs/FINANCE.md, "The relayer's gas in US
 * dollars"): past it the settlement is recorded without a price, never later.
 */
export const PRICE_READ_MS = 2_000;

/** The gas a mined relayer transaction cost, as the settlement records it ('0' when the relayer sent nothing). */
export const gasOf = (receipt: RelayedReceipt | undefined) => ({
  gasUsed: (receipt?.gasUsed ?? 0n).toString(),
  effectiveGasPrice: (receipt?.effectiveGasPrice ?? 0n).toString(),
  gasCostWei: ((receipt?.gasUsed ?? 0n) * (receipt?.effectiveGasPrice ?? 0n)).toString(),
});

/**
 * The relayer's gas in US dollars: the configured ETH / USD feed's round at the receipt's block
 * (one RPC call), as facts beside the gas. A read that fails or takes longer than
 * {@link PRICE_READ_MS}, or an answer of zero or less, leaves the settlement unpriced (a warn
 * line says why): the price is bookkeeping and never holds up or fails a settlement.
 */
export async function gasUsdOf(
  x402: Pick<X402Settlement, 'priceFeed'>,
  feed: string | undefined,
  pk: string,
  receipt: RelayedReceipt | undefined,
): Promise<Partial<GasUsdFields>> {
  if (!receipt || !feed) return {};
  const gasCostWei = receipt.gasUsed * receipt.effectiveGasPrice;
  const unpriced = (reason: string): Partial<GasUsdFields> => {
    logger.warn(`relayer gas left unpriced: ${reason}`, { settlement: pk, feed, blockNumber: receipt.blockNumber.toString() });
    return {};
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const round = await Promise.race([
      x402.priceFeed.roundAt(feed, receipt.blockNumber),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PRICE_READ_MS} ms`)), PRICE_READ_MS);
      }),
    ]);
    return gasUsdFields(feed, gasCostWei, round) ?? unpriced(`the feed's answer ${round.answer} is not a price`);
  } catch (e) {
    return unpriced(`reading the ETH / USD feed failed: ${(e as Error).message?.split('\n')[0] ?? String(e)}`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Writes a settlement's successful end: the outcome once (a second writer finds it written) and
 * the hold's release (once), side by side, so the release does not wait for the gas's price.
 * `receipt` is the relayer's own, mined; with `transferTx`, the money moved in a copy of the
 * authorization mined first, and `receipt` (if any) is the relayer's reverted call, whose gas was
 * lost all the same and is counted by the writer of the outcome (the payer paid: no cool-down).
 * Either write may be left undone by a crash: a hold of an ended settlement is freed by
 * `releaseEnded`, and a settlement still `signed` without its hold is ended by the next reader of
 * its receipt (a resend of the same header, or the loop when it holds the job); the transfer is
 * mined, so the payer's funds are no longer in flight.
 */
export async function recordSettled(
  x402: X402Settlement,
  config: Pick<MarketConfig, 'ethUsdFeed'>,
  record: SettlementRecord,
  receipt: RelayedReceipt | undefined,
  now: Date,
  transferTx?: string,
): Promise<void> {
  const finished = (async () =>
    x402.settlements.finish(record.pk, {
      state: 'settled',
      ...(transferTx ? { transferTx } : {}),
      ...gasOf(receipt),
      ...(await gasUsdOf(x402, config.ethUsdFeed, record.pk, receipt)),
      finishedAt: now.toISOString(),
    }))();
  // The release notes the sale's settlement, so an authorization of the payer for the same resource
  // that passed the owner check before the sale's ledger claim is answered with it (I6).
  const first = await alongside(
    x402.settlements.release(holdOf(record), { settled: { resource: record.resource, at: now.getTime() } }),
    finished,
  );
  if (transferTx && first && receipt) await lostGas(x402, now, receipt);
}

/** `work`'s result once `beside` has finished too; the first failure of either, after both ended (nothing is left running). */
export async function alongside<T>(beside: Promise<void> | undefined, work: Promise<T>): Promise<T> {
  const [b, w] = await Promise.allSettled([beside, work]);
  if (w.status === 'rejected') throw w.reason;
  if (b.status === 'rejected') throw b.reason;
  return w.value;
}

/** A reverted relayer transaction's gas: the hour's total, and the metrics its alarm watches (it refuses nobody, I3). */
export async function lostGas(x402: X402Settlement, at: Date, receipt: RelayedReceipt): Promise<void> {
  const wei = receipt.gasUsed * receipt.effectiveGasPrice;
  await x402.settlements.addRevertedGas(revertHour(at), wei);
  countMetric(METRICS.relayerReverts);
  countMetric(METRICS.relayerRevertGasGwei, {}, Number(wei) / 1e9);
}

/**
 * Writes a signed settlement's end from a receipt that reverted and moved nothing (the payer's
 * funds left first, or it cancelled the authorization): `failed` with the gas the relayer paid
 * anyway, the hold released with the payer cooling down, and the gas counted for the hour's alarm,
 * counted by the writer of the outcome only (a second writer seeing the same receipt adds nothing).
 */
export async function recordReverted(
  x402: X402Settlement,
  config: Pick<MarketConfig, 'ethUsdFeed' | 'relayerRevertCooldownSeconds'>,
  record: SettlementRecord,
  receipt: RelayedReceipt,
  now: Date,
  failure: string,
): Promise<void> {
  const first = await x402.settlements.finish(record.pk, {
    state: 'failed',
    failure,
    ...gasOf(receipt),
    ...(await gasUsdOf(x402, config.ethUsdFeed, record.pk, receipt)),
    finishedAt: now.toISOString(),
  });
  const coolUntil = Math.floor(now.getTime() / 1000) + config.relayerRevertCooldownSeconds;
  await x402.settlements.release(holdOf(record), { coolUntil });
  if (first) await lostGas(x402, now, receipt);
}
