/**
 * The arithmetic of the side-by-side benchmark (bench/x402-reference.ts): per-purchase figures,
 * the ratios and the goals of issue 38 are computed from the tallies, failures counted apart.
 */
import { describe, expect, it } from 'vitest';
import { emptyTally, figures, goals, ratio, table, type Tally } from '../../bench/side-by-side';

const tally = (over: Partial<Tally>): Tally => ({ ...emptyTally(), ...over });

describe('side-by-side figures', () => {
  it('divides requests and CPU by purchases tried, and counts only successes per second and in the p50', () => {
    const f = figures(
      tally({ attempts: 10, failures: 2, latencies: [40, 10, 30, 20, 50, 60, 70, 80], wallMs: 4_000, cpuMs: 250, rpcRequests: 105 }),
    );
    expect(f.rpcPerPurchase).toBe(10.5);
    expect(f.cpuMsPerPurchase).toBe(25);
    expect(f.perSecond).toBe(2);
    // The upper median of eight, as the other benches' percentile takes it.
    expect(f.p50Ms).toBe(50);
    expect(f.failed).toBe(2);
  });

  it('gives no figure for what was not measured', () => {
    const f = figures(emptyTally());
    expect(f.rpcPerPurchase).toBeNaN();
    expect(f.p50Ms).toBeNaN();
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(44, 20)).toBeCloseTo(2.2);
  });

  it('meets a goal only within its bound, and reports the failed purchases', () => {
    const ref = figures(tally({ attempts: 10, latencies: [20], wallMs: 1_000, rpcRequests: 86 }));
    const near = figures(tally({ attempts: 10, latencies: [24], wallMs: 1_000, rpcRequests: 86 }));
    const slow = figures(tally({ attempts: 10, failures: 1, latencies: [25], wallMs: 2_000, rpcRequests: 87 }));
    expect(goals({ project: near, reference: ref }, { project: near, reference: ref }).every((g) => g.met)).toBe(true);
    const missed = goals({ project: slow, reference: ref }, { project: slow, reference: ref });
    expect(missed.filter((g) => g.met)).toEqual([]);
    expect(table({ project: slow, reference: ref }, { project: near, reference: ref })).toContain(
      '| paid request p50 | 1.25 (25 vs 20 ms) | 1.20 (24 vs 20 ms) |',
    );
  });
});
