/**
 * The end of an x402 settlement whose relayer transaction was mined and succeeded: its gas (priced
 * in US dollars by the configured feed), its state `settled` (out of the in-flight index), and the
 * payer's hold released. The request that reads the receipt writes it (authorization.ts); when the
 * receipt came after the request stopped waiting, the confirmation loop writes it once it has
 * claimed the transfer (confirmation.ts), so no delivered sale is left "in flight".
 */
import { logger } from '../platform/logger';
import { gasUsdFields, type GasUsdFields } from './core/gas-usd';
import { holdOf } from './core/relayer-funds';
import type { PaymentsPorts, RelayedReceipt, SettlementRecord, X402Settlement } from './ports';

/**
 * How long pricing the relayer's gas may take (docs/FINANCE.md, "The relayer's gas in US
 * dollars"): past it the settlement is recorded without a price, never later.
 */
export const PRICE_READ_MS = 2_000;

/**
 * How long the loop waits for a receipt its own claim has just read (a provider that lags behind
 * the one that answered): short, as the loop tries again.
 */
const LOOP_RECEIPT_WAIT_MS = 2_000;

/** The gas a mined relayer transaction cost, as the settlement records it ('0' when the relayer sent nothing). */
export const gasOf = (receipt: RelayedReceipt | undefined) => ({
  gasUsed: (receipt?.gasUsed ?? 0n).toString(),
  effectiveGasPrice: (receipt?.effectiveGasPrice ?? 0n).toString(),
  gasCostWei: ((receipt?.gasUsed ?? 0n) * (receipt?.effectiveGasPrice ?? 0n)).toString(),
});

/** What pricing the gas needs: the feed port and the configured feed. */
type Pricing = { x402: Pick<X402Settlement, 'priceFeed'>; feed: string | undefined };

/**
 * The relayer's gas in US dollars: the configured ETH / USD feed's round at the receipt's block
 * (one RPC call), as facts beside the gas. A read that fails or takes longer than
 * {@link PRICE_READ_MS}, or an answer of zero or less, leaves the settlement unpriced (a warn
 * line says why): the price is bookkeeping and never holds up or fails a settlement.
 */
export async function gasUsdOf(pricing: Pricing, pk: string, receipt: RelayedReceipt | undefined): Promise<Partial<GasUsdFields>> {
  const { feed } = pricing;
  if (!receipt || !feed) return {};
  const gasCostWei = receipt.gasUsed * receipt.effectiveGasPrice;
  const unpriced = (reason: string): Partial<GasUsdFields> => {
    logger.warn(`relayer gas left unpriced: ${reason}`, { settlement: pk, feed, blockNumber: receipt.blockNumber.toString() });
    return {};
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const round = await Promise.race([
      pricing.x402.priceFeed.roundAt(feed, receipt.blockNumber),
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
 * Writes a signed settlement's successful end from its relayer's receipt: the outcome once (a
 * second writer finds it written), then the hold's release (once). A crash between the two leaves
 * the hold to `releaseEnded`, which frees holds of ended settlements.
 */
export async function recordSettled(
  x402: X402Settlement,
  feed: string | undefined,
  record: SettlementRecord,
  receipt: RelayedReceipt,
  finishedAt: string,
): Promise<void> {
  await x402.settlements.finish(record.pk, {
    state: 'settled',
    ...gasOf(receipt),
    ...(await gasUsdOf({ x402, feed }, record.pk, receipt)),
    finishedAt,
  });
  await x402.settlements.release(holdOf(record));
}

/**
 * The confirmation loop's part: once it has claimed a relayed transfer for its buyer, the
 * settlement that sent it ends as the request would have ended it. Nothing to do when no
 * settlement is signed with this transaction (a request ended it already, or stored a
 * replacement). `receipt_missing`: the relayer's receipt could not be read now (a lagging
 * provider, or a receipt that no longer says success); the loop tries again.
 */
export async function endRelayedSettlement(
  pk: string,
  txHash: string,
  ports: Pick<PaymentsPorts, 'x402' | 'config' | 'now'>,
): Promise<'ended' | 'nothing_to_end' | 'receipt_missing'> {
  const x402 = ports.x402;
  if (!x402) return 'nothing_to_end';
  const record = await x402.settlements.get(pk);
  if (record?.state !== 'signed' || record.txHash?.toLowerCase() !== txHash.toLowerCase()) return 'nothing_to_end';
  const receipt = await x402.relayer.receipt(txHash, LOOP_RECEIPT_WAIT_MS);
  if (receipt?.status !== 'success') return 'receipt_missing';
  await recordSettled(x402, ports.config.ethUsdFeed, record, receipt, ports.now().toISOString());
  return 'ended';
}
