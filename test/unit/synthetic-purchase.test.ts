/**
 * The synthetic purchase's core with fakes of its own ports: the seal and the ledger judgments, and
 * which step a failure names. The run against the real local stack is
 * test/integration/synthetic-purchase.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';
import { ledgerProblem, runSyntheticPurchase, sealProblem, SyntheticPurchaseFailure } from '../../lambdas/payments/synthetic/core';
import type { Delivery, SyntheticPurchasePorts } from '../../lambdas/payments/synthetic/ports';

const FILES = { 'SKILL.md': '# Canary\n', 'steps/1.md': 'one\n' };
const SEAL = packSeal(packFiles(FILES));
const BUYER = '0x00000000000000000000000000000000000000b1' as const;
const TX = `0x${'ab'.repeat(32)}`;

function fakes(over: { delivery?: Partial<Delivery>; rows?: () => Promise<any[]>; fund?: () => Promise<`0x${string}`> } = {}) {
  const calls: string[] = [];
  const ports: SyntheticPurchasePorts = {
    storefront: {
      canary: async () => ({ skill: 'canary-skill', amount: 5000n, pay: 'https://shop.example/api/pay?skill=canary-skill' }),
      publishedSeal: async () => SEAL,
      proofRows:
        over.rows ?? (async () => [{ txHash: TX, skill: 'canary-skill', amount: '5000', payer: BUYER.toUpperCase().replace('0X', '0x') }]),
    },
    funder: {
      fund:
        over.fund ??
        (async (to, amount) => {
          calls.push(`fund ${to} ${amount}`);
          return `0x${'01'.repeat(32)}`;
        }),
    },
    freshBuyer: () => ({
      address: BUYER,
      buy: async (url) => {
        calls.push(`buy ${url}`);
        return { status: 200, txHash: TX, files: FILES, seal: SEAL, summary: '{}', ...over.delivery };
      },
    }),
    ledgerPatience: { attempts: 2, delayMs: 0 },
    sleep: async () => undefined,
    now: (() => {
      let t = 1000;
      return () => (t += 5);
    })(),
  };
  return { ports, calls };
}

const stepOf = async (ports: SyntheticPurchasePorts) =>
  runSyntheticPurchase(ports).then(
    () => 'passed',
    (e: unknown) => (e instanceof SyntheticPurchaseFailure ? e.step : `not a step: ${String(e)}`),
  );

describe('the synthetic purchase core', () => {
  it('funds the buyer with exactly the published price, buys at the published pay URL, and passes when seal and row agree', async () => {
    const { ports, calls } = fakes();
    expect(await runSyntheticPurchase(ports)).toEqual({
      ok: true,
      skill: 'canary-skill',
      buyer: BUYER,
      txHash: TX,
      fundTxHash: `0x${'01'.repeat(32)}`,
      ms: 5,
    });
    expect(calls).toEqual([`fund ${BUYER} 5000`, 'buy https://shop.example/api/pay?skill=canary-skill']);
  });

  it('judges the seal over the delivered files, against the answer and the published seal', () => {
    expect(sealProblem({ files: FILES, seal: SEAL }, SEAL)).toBeUndefined();
    expect(sealProblem({ files: { ...FILES, 'SKILL.md': '# Canary!\n' }, seal: SEAL }, SEAL)).toMatch(/the answer's seal is/);
    expect(sealProblem({ files: FILES, seal: SEAL }, 'f'.repeat(64))).toMatch(/\/api\/packs publishes f{64}/);
    expect(sealProblem({ files: {}, seal: SEAL }, SEAL)).toBe('the answer holds no sealed_pack.files');
    expect(sealProblem({ files: { 'a.md': 1 }, seal: SEAL }, SEAL)).toBe('the answer holds no sealed_pack.files');
  });

  it('judges the ledger row by its tx, skill, payer and amount', () => {
    const want = { txHash: TX, skill: 'canary-skill', buyer: BUYER, amount: 5000n };
    const row = { txHash: TX, skill: 'canary-skill', amount: '5000', payer: BUYER };
    expect(ledgerProblem([row], want)).toBeUndefined();
    expect(ledgerProblem([], want)).toMatch(/^no row for 0xabab/);
    expect(ledgerProblem([{ ...row, amount: '4999', payer: '0x00000000000000000000000000000000000000c2' }], want)).toMatch(
      /says payer 0x0{38}c2, amount 4999/,
    );
    expect(ledgerProblem([{ ...row, skill: 'other' }], want)).toMatch(/says skill other/);
  });

  it('names the step that failed', async () => {
    expect(await stepOf(fakes().ports)).toBe('passed');
    const noCatalog = fakes().ports;
    noCatalog.storefront = { ...noCatalog.storefront, canary: async () => Promise.reject(new Error('503')) };
    expect(await stepOf(noCatalog)).toBe('setup');
    expect(await stepOf(fakes({ fund: () => Promise.reject(new Error('insufficient funds')) }).ports)).toBe('fund');
    expect(await stepOf(fakes({ delivery: { status: 402, txHash: undefined } }).ports)).toBe('buy');
    expect(await stepOf(fakes({ delivery: { seal: 'e'.repeat(64) } }).ports)).toBe('seal');
    expect(await stepOf(fakes({ rows: async () => [] }).ports)).toBe('ledger');
    expect(await stepOf(fakes({ rows: () => Promise.reject(new Error('proof 503')) }).ports)).toBe('ledger');
  });

  it('waits for a row that shows late, within its patience', async () => {
    let asked = 0;
    const late = fakes({
      rows: async () => (++asked < 2 ? [] : [{ txHash: TX, skill: 'canary-skill', amount: '5000', payer: BUYER }]),
    });
    expect(await stepOf(late.ports)).toBe('passed');
    expect(asked).toBe(2);
  });
});
