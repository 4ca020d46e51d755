/**
 * The settlement's money invariants as properties (issue 50): payers with random balances present
 * random authorizations for random skills all at once, every read and write of the settlements
 * table and the relayer resolving in an order fast-check's scheduler draws, and the chain answering
 * each sent transfer as pending, reverted, or "would revert". Whatever the interleaving:
 * - I1: a transfer is sent only while no other of its payer is in flight;
 * - I4: every authorization seen ends in exactly one record, and none is left half-claimed;
 * - I6: no second transfer for a payer and skill while one is in flight;
 * - nothing is sent for a payer whose balance does not cover it, or one cooling down;
 * - every answer is the API's error (a 402, 403 or 409), never a crash.
 * A mined, successful transfer is the ledger's and the pack's path, covered through the local
 * stack (x402-standard, relayer-slow-receipt); here the chain never lets one succeed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lambdas/platform/errors';
import type { RelayedReceipt, SettlementRecord } from '../../lambdas/facilitator/ports';
import { catalog, fakeRelayer, fakeSettlements, header, nowSeconds, portsWith, PRICE, unlock } from '../support/x402-settlement-fakes';

const PAYERS = ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'];
/** Three skills (the fake verifier accepts the header's value for any). */
const SKILL_CHOICES = catalog.entries.slice(0, 3).map((e) => e.id);

const scenario = fc.record({
  balances: fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })),
  auths: fc.array(fc.record({ payer: fc.integer({ min: 0, max: 1 }), skill: fc.integer({ min: 0, max: 2 }) }), {
    minLength: 1,
    maxLength: 8,
  }),
  /** What the chain does with each transfer sent, in order of sending. */
  chain: fc.array(fc.constantFrom<'pending' | 'reverted' | 'would_revert'>('pending', 'reverted', 'would_revert'), {
    minLength: 8,
    maxLength: 8,
  }),
});

describe('the settlement under random interleavings (fast-check)', () => {
  it('holds I1, I4 and I6, sends nothing uncovered, and answers every request with the API error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenario, async (s, sc) => {
        const settlements = fakeSettlements();
        const { relayer } = fakeRelayer({ balance: 0n });
        const sent: Array<{ payer: string; skill: string; tx: string }> = [];
        const violations: string[] = [];
        const outcome = new Map<string, 'pending' | 'reverted' | 'would_revert'>();
        relayer.fundsAhead = async (_token, from) => {
          const balance = BigInt(sc.balances[PAYERS.findIndex((p) => p.toLowerCase() === from.toLowerCase())]!) * PRICE;
          return { balance, pendingBalance: balance, authorizationUsed: false };
        };
        relayer.submit = async (_token, payment, record) => {
          const payer = payment.payload.authorization.from.toLowerCase();
          const skill = new URL(payment.resource!.url).searchParams.get('skill')!;
          const what = sc.chain[sent.length % sc.chain.length]!;
          if (what === 'would_revert') return { kind: 'would_revert', message: 'reverts' };
          // At the moment of sending: this settlement alone is in flight for its payer (I1, I6).
          const inFlight = [...settlements.items.values()].filter(
            (r) => r.payer === payer && r.state === 'signed' && !r.pk.endsWith(payment.payload.authorization.nonce.toLowerCase()),
          );
          if (inFlight.length > 0) violations.push(`sent for ${payer} while ${inFlight.map((r) => r.pk).join()} was in flight`);
          const held = settlements.payers.get(payer)?.held.size ?? 0;
          if (held !== 1) violations.push(`sent for ${payer} with ${held} holds`);
          const balance = BigInt(sc.balances[PAYERS.findIndex((p) => p.toLowerCase() === payer)]!) * PRICE;
          if (balance < BigInt(payment.payload.authorization.value)) violations.push(`sent for ${payer} holding ${balance}`);
          const cool = settlements.payers.get(payer)?.coolUntil;
          if (cool !== undefined && cool > nowSeconds) violations.push(`sent for ${payer} while cooling down`);
          const tx = `0x${payment.payload.authorization.nonce.slice(2, 66)}`;
          if (!(await record({ txHash: tx, raw: '0x01', from: '0x71bE63f3384f5fb98995898A86B02Fb2426c5788' }))) return { kind: 'declined' };
          sent.push({ payer, skill, tx });
          outcome.set(tx, what);
          return { kind: 'sent', txHash: tx, raw: '0x01' };
        };
        const reverted: RelayedReceipt = {
          status: 'reverted',
          blockNumber: 9n,
          blockHash: '0xb9',
          transferLogs: [],
          gasUsed: 60_000n,
          effectiveGasPrice: 1_000_000_000n,
        };
        relayer.receipt = async (tx) => (outcome.get(tx) === 'reverted' ? reverted : undefined);

        // Every read and write of the table and every chain read resolves when the scheduler says.
        for (const name of ['get', 'claim', 'consume', 'signed', 'finish', 'hold', 'release', 'holds'] as const) {
          const f = settlements[name] as (...a: unknown[]) => Promise<unknown>;
          (settlements as unknown as Record<string, unknown>)[name] = s.scheduleFunction(f.bind(settlements));
        }
        for (const name of ['fundsAhead', 'receipt'] as const) {
          const f = relayer[name] as (...a: unknown[]) => Promise<unknown>;
          (relayer as unknown as Record<string, unknown>)[name] = s.scheduleFunction(f.bind(relayer));
        }
        const ports = portsWith(relayer, settlements);

        const requests = sc.auths.map(({ payer, skill }) => {
          const id = SKILL_CHOICES[skill]!;
          return unlock(header({ skill: id, from: PAYERS[payer]! }), id, ports, 'https://m.example', { sourceIp: `10.0.1.${payer}` }).then(
            () => undefined,
            (e: unknown) => e,
          );
        });
        const answers = await s.waitFor(Promise.all(requests));

        // Every answer is the API's error (nothing here settles successfully), never a crash.
        for (const a of answers) {
          expect(a, String(a)).toBeInstanceOf(AppError);
          expect([402, 403, 409]).toContain((a as AppError).status);
        }
        expect(violations).toEqual([]);
        // I4: one record per authorization seen (each header is a fresh authorization), none left claimed.
        const records = [...settlements.items.values()] as SettlementRecord[];
        expect(records.length).toBeLessThanOrEqual(sc.auths.length);
        expect(records.filter((r) => r.state === 'claimed')).toEqual([]);
        // Ended unsent: every failed record without gas names why; at most one signed per payer (I1).
        for (const payer of PAYERS.map((p) => p.toLowerCase()))
          expect(records.filter((r) => r.payer === payer && r.state === 'signed').length).toBeLessThanOrEqual(1);
        // I6: per payer and skill, never two transfers sent while the first was still pending.
        for (const payer of PAYERS.map((p) => p.toLowerCase())) {
          const mine = sent.filter((x) => x.payer === payer);
          const pendingFirst = mine.findIndex((x) => outcome.get(x.tx) === 'pending');
          if (pendingFirst >= 0) expect(mine.slice(pendingFirst + 1), `after a pending transfer of ${payer}`).toEqual([]);
        }
      }),
      { numRuns: 400 },
    );
  }, 120_000);
});
