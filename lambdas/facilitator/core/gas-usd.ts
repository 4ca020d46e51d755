/**
 * The relayer's gas in US dollars, from a Chainlink ETH / USD round read at the block that mined
 * the relayer's transaction (docs/FINANCE.md, "The relayer's gas in US dollars"). Pure: the
 * round is read through the PriceFeed port; what is stored are the round's facts and one amount
 * derived from them and the stored gasCostWei with integers only.
 */

/** One round of an AggregatorV3Interface feed, as read at a block. */
export interface FeedRound {
  roundId: bigint;
  /** The price, an integer scaled by 10^decimals. */
  answer: bigint;
  decimals: number;
  /** Unix seconds of the round's last update. */
  updatedAt: bigint;
}

/** What a priced settlement stores beside its gas (all facts of the round, and the amount they give). */
export interface GasUsdFields {
  /** The feed read (its address, EIP-55). */
  ethUsdFeed: string;
  /** The round's id, a decimal string (uint80). */
  ethUsdRound: string;
  /** The round's answer, a decimal string of the integer the feed reports. */
  ethUsdAnswer: string;
  /** The feed's decimals: the answer is USD per ETH times 10^ethUsdDecimals. */
  ethUsdDecimals: number;
  /** When the round was last updated (ISO 8601, from its `updatedAt`). */
  ethUsdUpdatedAt: string;
  /** gasCostWei × answer / 10^(18 + decimals − 6), rounded half up: micro-dollars, a decimal string. */
  gasCostUsdMicro: string;
}

/** Micro-dollars per dollar: 10^6. */
const MICRO_DECIMALS = 6;
/** Wei per ETH: 10^18. */
const WEI_DECIMALS = 18;

/**
 * Wei at a price (an integer answer with `decimals` decimals) in micro-dollars, rounded half up:
 * wei × answer / 10^(18 + decimals − 6). Both inputs are non-negative.
 */
export function weiToUsdMicro(wei: bigint, answer: bigint, decimals: number): bigint {
  if (wei < 0n || answer < 0n) throw new RangeError('wei and answer must be non-negative');
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) throw new RangeError(`decimals ${decimals} is not a uint8`);
  const numerator = wei * answer;
  const exponent = WEI_DECIMALS + decimals - MICRO_DECIMALS;
  const divisor = 10n ** BigInt(exponent);
  // Half up: add half the divisor before the (flooring) division of non-negative integers.
  return (numerator * 2n + divisor) / (2n * divisor);
}

/**
 * The price fields of a settlement whose relayer transaction cost `gasCostWei`, from the round
 * read at its block; undefined when the round cannot price it (an answer of zero or less).
 */
export function gasUsdFields(feed: string, gasCostWei: bigint, round: FeedRound): GasUsdFields | undefined {
  if (round.answer <= 0n) return undefined;
  return {
    ethUsdFeed: feed,
    ethUsdRound: round.roundId.toString(),
    ethUsdAnswer: round.answer.toString(),
    ethUsdDecimals: round.decimals,
    ethUsdUpdatedAt: new Date(Number(round.updatedAt) * 1000).toISOString(),
    gasCostUsdMicro: weiToUsdMicro(gasCostWei, round.answer, round.decimals).toString(),
  };
}
