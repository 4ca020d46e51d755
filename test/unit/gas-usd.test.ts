/** The relayer's gas in micro-dollars (lambdas/payments/core/gas-usd.ts): integers only, rounded half up. */
import { describe, expect, it } from 'vitest';
import { gasUsdFields, weiToUsdMicro } from '../../lambdas/facilitator/core/gas-usd';

describe('weiToUsdMicro', () => {
  it('is wei × answer / 10^(18 + decimals − 6) at 8 decimals', () => {
    // 1 ETH at 3000.00000000 USD is 3000 dollars.
    expect(weiToUsdMicro(10n ** 18n, 3_000_00000000n, 8)).toBe(3_000_000_000n);
    // 21000 gas at 1 gwei (0.000021 ETH) at 2500 USD: 0.0525 USD.
    expect(weiToUsdMicro(21_000n * 10n ** 9n, 2_500_00000000n, 8)).toBe(52_500n);
    expect(weiToUsdMicro(0n, 3_000_00000000n, 8)).toBe(0n);
  });

  it('rounds half up, and only at the half', () => {
    // At 1.00000000 USD per ETH a micro-dollar is 10^12 wei: the half is 5 × 10^11.
    expect(weiToUsdMicro(5n * 10n ** 11n - 1n, 1_00000000n, 8)).toBe(0n);
    expect(weiToUsdMicro(5n * 10n ** 11n, 1_00000000n, 8)).toBe(1n);
    expect(weiToUsdMicro(15n * 10n ** 11n - 1n, 1_00000000n, 8)).toBe(1n);
    expect(weiToUsdMicro(15n * 10n ** 11n, 1_00000000n, 8)).toBe(2n);
  });

  it('follows the feed’s decimals, whatever they are', () => {
    // The same price, 2000 USD per ETH, at 18, 6 and 0 decimals gives the same amount.
    const wei = 123_456_789_012_345n;
    const at8 = weiToUsdMicro(wei, 2_000n * 10n ** 8n, 8);
    expect(weiToUsdMicro(wei, 2_000n * 10n ** 18n, 18)).toBe(at8);
    expect(weiToUsdMicro(wei, 2_000n * 10n ** 6n, 6)).toBe(at8);
    expect(weiToUsdMicro(wei, 2_000n, 0)).toBe(at8);
    expect(at8).toBe(246_914n); // 0.000123456789012345 ETH × 2000 = 0.24691357... USD
    // At 18 decimals the divisor is 10^30: half up there too.
    expect(weiToUsdMicro(1n, 5n * 10n ** 29n, 18)).toBe(1n);
    expect(weiToUsdMicro(1n, 5n * 10n ** 29n - 1n, 18)).toBe(0n);
  });

  it('refuses what is not a price or not a uint8 of decimals', () => {
    expect(() => weiToUsdMicro(1n, -1n, 8)).toThrow(RangeError);
    expect(() => weiToUsdMicro(1n, 1n, 256)).toThrow(RangeError);
    expect(() => weiToUsdMicro(1n, 1n, 1.5)).toThrow(RangeError);
  });
});

describe('gasUsdFields', () => {
  const round = { roundId: 7n, answer: 3_000_00000000n, decimals: 8, updatedAt: 1_764_064_800n };
  it("stores the round's facts as strings and the amount derived from them", () => {
    expect(gasUsdFields('0xFeed', 42_000_000_000_000n, round)).toEqual({
      ethUsdFeed: '0xFeed',
      ethUsdRound: '7',
      ethUsdAnswer: '300000000000',
      ethUsdDecimals: 8,
      ethUsdUpdatedAt: '2025-11-25T10:00:00.000Z',
      gasCostUsdMicro: '126000',
    });
  });
  it('prices nothing with an answer of zero or less', () => {
    expect(gasUsdFields('0xFeed', 1n, { ...round, answer: 0n })).toBeUndefined();
    expect(gasUsdFields('0xFeed', 1n, { ...round, answer: -5n })).toBeUndefined();
  });
});
