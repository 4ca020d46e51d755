/**
 * The aggregate model's arithmetic: folding every change of every record, in any order of
 * records, equals the recount of the records as they end up. This is the property the journal
 * relies on and the reconcile job checks.
 */
import { describe, expect, it } from 'vitest';
import {
  addAll,
  cardSaleFact,
  changeDeltas,
  counterName,
  diffTallies,
  ledgerFact,
  parseCounter,
  recount,
  sumsOf,
  TOTAL_TARGET,
  type TalliedRow,
  type TallyDeltas,
  type TallyFact,
} from '../../lambdas/payments/core/tally';

/** A small deterministic generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const KINDS = ['unlock', 'subscription', 'meter_top_up'] as const;
const PAYERS = ['0xAbC0000000000000000000000000000000000001', '0x00000000000000000000000000000000000000d2'];

describe('tally arithmetic', () => {
  it('folds any history of claims, reorgs and re-claims to the recount of the final rows', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
      const rows = new Map<number, TalliedRow>();
      const changes: TallyFact[] = [];
      for (let step = 0; step < 200; step++) {
        const id = Math.floor(r() * 25);
        const row = rows.get(id);
        let next: TalliedRow;
        if (!row) {
          next = {
            kind: pick(KINDS),
            skill: pick(['ten-send', 'csv-cleaner', 'pro-monthly']),
            amount: String(1 + Math.floor(r() * 5_000_000)),
            asset: pick(['USDC', 'USDbC'] as const),
            payer: pick(PAYERS),
            recordedAt: `2026-11-${String(10 + Math.floor(r() * 9))}T08:00:00.000Z`,
            status: 'confirmed',
            jv: 1,
          };
        } else if (row.status === 'confirmed') {
          next = { ...row, status: 'reorged', jv: row.jv! + 1 };
        } else {
          // A re-claim: same transfer, same skill; it may land on another day with the block's amount.
          next = { ...row, status: 'confirmed', recordedAt: `2026-11-${String(10 + Math.floor(r() * 9))}T09:00:00.000Z`, jv: row.jv! + 1 };
        }
        rows.set(id, next);
        changes.push(ledgerFact(next));
      }
      const sales = Array.from({ length: 5 }, (_, i) =>
        cardSaleFact({ skill: 'csv-cleaner', amountCents: 99 + i, recordedAt: '2026-11-12T00:00:00.000Z' }),
      );
      const folded: TallyDeltas = new Map();
      for (const c of [...changes, ...sales]) addAll(folded, changeDeltas(c));
      const expected = recount([...[...rows.values()].map(ledgerFact), ...sales]);
      expect(diffTallies(expected, folded), `seed ${seed}`).toEqual([]);
    }
  });

  it('notices a change folded twice, or one left out', () => {
    const claim = ledgerFact({
      skill: 'ten-send',
      amount: '10000',
      asset: 'USDC',
      payer: PAYERS[0]!,
      recordedAt: '2026-11-20T00:00:00Z',
      status: 'confirmed',
    });
    const twice = addAll(addAll(new Map(), changeDeltas(claim)), changeDeltas(claim));
    const diff = diffTallies(recount([claim]), twice);
    expect(diff).toContainEqual({ target: TOTAL_TARGET, counter: 'n|x402|USDC|ten-send', expected: '1', stored: '2' });
    expect(diffTallies(recount([claim]), new Map())).toHaveLength(6); // n and a on TOTAL, the day and the wallet
  });

  it('keeps a dropped claim out of revenue but on the skill and the wallet', () => {
    const dropped = recount([
      ledgerFact({
        skill: 'ten-send',
        amount: '10000',
        asset: 'USDC',
        payer: PAYERS[0]!,
        recordedAt: '2026-11-20T00:00:00Z',
        status: 'reorged',
        jv: 2,
      }),
    ]);
    expect([...dropped.keys()].sort()).toEqual([TOTAL_TARGET, `WALLET#${PAYERS[0]!.toLowerCase()}`]);
    expect(sumsOf(dropped.get(TOTAL_TARGET)!)).toEqual({ lines: [], reorged: [{ channel: 'x402', product: 'ten-send', count: 1n }] });
  });

  it('reads counter names back, products with bars included, and refuses anything else', () => {
    expect(parseCounter(counterName('a', 'card', 'USD', 'a|b'))).toEqual({ metric: 'a', channel: 'card', asset: 'USD', product: 'a|b' });
    for (const bad of ['appliedSeq', 'n|x402|USDC', 'x|x402|USDC|p', 'n|wire|USDC|p', 'n|x402|EUR|p'])
      expect(parseCounter(bad)).toBeUndefined();
  });
});
