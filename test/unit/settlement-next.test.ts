/**
 * The settlement's one transition, `next` (lambdas/facilitator/core/settlement.ts), as properties
 * (issue 50), and the loop that drives it under crashes and redelivery:
 * - `next` is pure and total: any record and any observation give one step, the same each time;
 * - money moves only from a live claim (a send after funds judged under the hold, or the mandate's
 *   yes; a re-sign only after its nonce was taken and the authorization is unused and alive);
 * - I4: a consumed authorization, one used for another resource, or a caller who cannot be its
 *   buyer, is never delivered nor driven; every refusal before sending ends in a record with a TTL;
 * - an expired authorization is never sent, re-sent or taken over;
 * - the loop (settle.ts with the shared fakes), with requests dying between any two port calls and
 *   the same headers sent again once the claims are stale, leaves every authorization in exactly
 *   one record, none half-claimed, and never more than one transfer in flight per payer (I1) or two
 *   transfers for one payer and resource (I6).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { next, type Observed, type Step } from '../../lambdas/facilitator/core/settlement';
import type { RelayedReceipt, SettlementRecord } from '../../lambdas/facilitator/ports';
import { AppError } from '../../lambdas/platform/errors';
import { catalog, fakeRelayer, fakeSettlements, header, NOW, portsWith, PRICE, unlock } from '../support/x402-settlement-fakes';

const RESOURCES = ['csv-cleaner', 'pdf-tables'];
const receiptArb: fc.Arbitrary<RelayedReceipt> = fc.constantFrom('success', 'reverted').map((status) => ({
  status: status as 'success' | 'reverted',
  blockNumber: 9n,
  blockHash: '0xb9',
  transferLogs: [],
  gasUsed: 60_000n,
  effectiveGasPrice: 1n,
}));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const recordArb: fc.Arbitrary<SettlementRecord | undefined> = maybe(
  fc.record({
    pk: fc.constant('eip155:8453#0xusdc#0xpayer#0x01'),
    resource: fc.constantFrom(...RESOURCES),
    payer: fc.constant('0xpayer'),
    token: fc.constant('0xusdc'),
    amount: fc.constant('1000'),
    state: fc.constantFrom('claimed', 'signed', 'settled', 'failed'),
    source: maybe(fc.constantFrom('me', 'them')),
    lease: fc.constant('l'),
    claimedAt: fc.constant(NOW.toISOString()),
    txHash: maybe(fc.constant('0xaa')),
    transferTx: maybe(fc.constant('0xbb')),
    failure: maybe(fc.constantFrom('authorization_consumed', 'payment_in_flight', 'transaction_failed', 'payer_cooling_down')),
    pendingFor: maybe(fc.constant('eip155:8453#0xusdc#0xpayer#0x00')),
  }),
) as fc.Arbitrary<SettlementRecord | undefined>;

const refusal = fc.record({
  reason: fc.constantFrom('payer_settlement_in_flight', 'payer_funds_pending', 'x'),
  message: fc.constant('m'),
  retry: fc.boolean(),
});
const follower = fc.record({
  resource: fc.constantFrom(...RESOURCES),
  mayBeBuyer: fc.boolean(),
  stale: fc.boolean(),
  expired: fc.boolean(),
  waitedOut: fc.boolean(),
});
const observedArb: fc.Arbitrary<Observed> = fc.oneof(
  follower.map((f) => ({ kind: 'presented' as const, ...f })),
  follower.map((f) => ({ kind: 'read' as const, ...f })),
  fc.record({
    kind: fc.constant('verified' as const),
    ok: fc.constant(true as const),
    repeats: maybe(fc.constant('eip155:8453#0xusdc#0xpayer#0x00')),
  }),
  fc.record({ kind: fc.constant('verified' as const), ok: fc.constant(false as const), refusal }),
  fc.constant({ kind: 'claimed' as const }),
  fc.record({
    kind: fc.constant('hold' as const),
    outcome: fc.constantFrom('held' as const, 'busy' as const, 'cooling' as const),
    earlier: maybe(recordArb.filter((r) => r !== undefined)),
    refusal,
  }),
  fc.record({
    kind: fc.constant('funds' as const),
    problem: fc.constantFrom(
      'used' as const,
      'expired' as const,
      'not_yet_valid' as const,
      'insufficient' as const,
      'pending_short' as const,
      undefined,
    ),
    refusal,
    hook: fc.boolean(),
  }),
  fc.constant({ kind: 'admitted' as const, ok: true as const }),
  refusal.map((r) => ({ kind: 'admitted' as const, ok: false as const, refusal: r })),
  fc.record({
    kind: fc.constant('submitted' as const),
    result: fc.constantFrom('sent' as const, 'declined' as const, 'would_revert' as const),
  }),
  fc.record({
    kind: fc.constant('receipt' as const),
    receipt: maybe(receiptArb),
    after: fc.constantFrom('send' as const, 'rebroadcast' as const, 'nonce_taken' as const, 'loop' as const),
    expired: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('used' as const),
    used: fc.boolean(),
    after: fc.constantFrom('stale_claim' as const, 'revert' as const, 'nonce_taken' as const),
    expired: fc.boolean(),
    receipt: receiptArb.map((r) => ({ ...r, status: 'reverted' as const })),
  }),
  fc.record({
    kind: fc.constant('transfer' as const),
    tx: maybe(fc.constantFrom('0xaa', '0xcc')),
    stale: fc.boolean(),
    receipt: maybe(receiptArb),
  }),
  fc.record({ kind: fc.constant('rebroadcast' as const), result: fc.constantFrom('sent' as const, 'nonce_taken' as const) }),
  fc.record({ kind: fc.constant('taken_over' as const), ok: fc.boolean() }),
  fc.record({ kind: fc.constant('ended' as const), refusal: maybe(refusal) }),
);

const MOVES_MONEY: ReadonlyArray<Step['kind']> = ['send', 'resend', 'rebroadcast'];
const delivers = (s: Step) => s.kind === 'answer' && s.answer.kind === 'deliver';

describe('next(record, observed): the settlement as one pure transition (fast-check)', () => {
  it('is total and deterministic, and moves money only from a live claim', () => {
    fc.assert(
      fc.property(recordArb, observedArb, (record, observed) => {
        const step = next(record, observed);
        expect(step).toEqual(next(structuredClone(record), structuredClone(observed)));
        // A send only after the funds were judged under the hold (no mandate) or the mandate said yes.
        if (step.kind === 'send')
          expect(
            (observed.kind === 'funds' && observed.problem === undefined && !observed.hook) ||
              (observed.kind === 'admitted' && observed.ok),
          ).toBe(true);
        // A re-sign only after the nonce was taken, the authorization unused and alive.
        if (step.kind === 'resend') expect(observed).toMatchObject({ kind: 'used', used: false, after: 'nonce_taken', expired: false });
        // Nothing is sent, re-sent or taken over for an authorization that ran out.
        if ('expired' in observed && observed.expired) expect(['send', 'resend', 'take_over']).not.toContain(step.kind);
        // Every refusal that ends the record before anything was sent leaves it with a TTL (I4, I7).
        if (step.kind === 'end' && step.refusal) expect(step.unsent).toBe(true);
        // A hold refused (busy or cooling) never leads to money moving.
        if (observed.kind === 'hold' && observed.outcome !== 'held') expect(MOVES_MONEY).not.toContain(step.kind);
      }),
      { numRuns: 20_000 },
    );
  });

  it('I4: whoever presents a record it did not claim, a consumed one, one for another resource, or one it cannot be the buyer of, gets nothing and drives nothing', () => {
    fc.assert(
      fc.property(
        recordArb.filter((r) => r !== undefined),
        follower,
        fc.boolean(),
        (record, f, first) => {
          const step = next(record, { kind: first ? 'presented' : 'read', ...f });
          if (record.failure === 'authorization_consumed') expect(step).toEqual({ kind: 'answer', answer: { kind: 'consumed' } });
          if (record.resource !== f.resource || !f.mayBeBuyer || record.failure === 'authorization_consumed') {
            expect(delivers(step)).toBe(false);
            expect(step.kind).toBe('answer');
          }
          // A final record is answered, never driven again.
          if (record.state === 'settled' || record.state === 'failed') expect(step.kind).toBe('answer');
        },
      ),
      { numRuns: 5_000 },
    );
  });
});

const PAYERS = ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'];
const SKILLS = catalog.entries.slice(0, 2).map((e) => e.id);

describe('the loop under crashes and redelivery (fast-check)', () => {
  it('leaves each authorization in one record, none half-claimed, one transfer in flight per payer, never two per payer and resource', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            payer: fc.integer({ min: 0, max: 1 }),
            skill: fc.integer({ min: 0, max: 1 }),
            // The request dies after this many calls to the table or the relayer (none: it runs to its end).
            crashAfter: maybe(fc.integer({ min: 0, max: 12 })),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        // A mined success is the ledger's and the pack's path (covered through the local stack); here the chain never lets one succeed.
        fc.constantFrom<'pending' | 'reverted'>('pending', 'reverted'),
        async (auths, chain) => {
          const settlements = fakeSettlements();
          const { relayer } = fakeRelayer({ balance: 5n * PRICE });
          const violations: string[] = [];
          const sent: Array<{ payer: string; skill: string; tx: string }> = [];
          let clock = NOW.getTime();
          // Waits for another request pass on a clock of their own, at once (the interleaving is the event loop's).
          let waited = 0;
          const waiting = {
            sleep: (ms: number) => new Promise<void>((resolve) => setImmediate(() => ((waited += ms), resolve()))),
            elapsed: () => waited,
          };
          const submit = relayer.submit.bind(relayer);
          relayer.submit = async (token, payment, record, prepared) => {
            const payer = payment.payload.authorization.from.toLowerCase();
            const others = [...settlements.items.values()].filter(
              (r) => r.payer === payer && r.state === 'signed' && !r.pk.endsWith(payment.payload.authorization.nonce.toLowerCase()),
            );
            if (others.length > 0) violations.push(`I1: sent for ${payer} while ${others.map((r) => r.pk).join()} was in flight`);
            const out = await submit(token, payment, record, prepared);
            if (out.kind === 'sent') sent.push({ payer, skill: new URL(payment.resource!.url).searchParams.get('skill')!, tx: out.txHash });
            return out;
          };
          const receipt: RelayedReceipt = {
            status: 'reverted',
            blockNumber: 9n,
            blockHash: '0xb9',
            transferLogs: [],
            gasUsed: 60_000n,
            effectiveGasPrice: 1n,
          };
          relayer.receipt = async () => (chain === 'pending' ? undefined : receipt);
          const headers = auths.map((a) =>
            header({ skill: SKILLS[a.skill]!, from: PAYERS[a.payer]!, validBefore: String(Math.floor(NOW.getTime() / 1000) + 120) }),
          );

          /** A request whose process dies after `crashAfter` calls to the table or the relayer. */
          const request = async (i: number, crashAfter: number | undefined) => {
            let calls = 0;
            const dying = <T extends object>(port: T): T =>
              new Proxy(port, {
                get(target, name, receiver) {
                  const v = Reflect.get(target, name, receiver) as unknown;
                  if (typeof v !== 'function') return v;
                  return (...args: unknown[]) => {
                    if (crashAfter !== undefined && calls++ >= crashAfter) throw new Error('crash');
                    return (v as (...a: unknown[]) => unknown).apply(target, args);
                  };
                },
              });
            const ports = { ...portsWith(dying(relayer), dying(settlements), [], () => new Date(clock)), waiting };
            return unlock(headers[i]!, SKILLS[auths[i]!.skill]!, ports, 'https://m.example', {
              sourceIp: `10.0.2.${auths[i]!.payer}`,
            }).then(
              () => 'ok',
              (e: unknown) => e,
            );
          };

          await Promise.all(auths.map((a, i) => request(i, a.crashAfter)));
          // Redelivery once every claim is stale: the same headers again, by the same callers, twice.
          clock += 31_000;
          for (let round = 0; round < 2; round++) {
            const answers = await Promise.all(auths.map((_, i) => request(i, undefined)));
            for (const a of answers) if (a !== 'ok') expect(a, String(a)).toBeInstanceOf(AppError);
          }

          expect(violations).toEqual([]);
          const records = [...settlements.items.values()];
          // I4: one record per authorization, and none left half-claimed once redelivered.
          expect(records.length).toBeLessThanOrEqual(auths.length);
          expect(records.filter((r) => r.state === 'claimed').map((r) => r.pk)).toEqual([]);
          // I1: at most one settlement in flight per payer.
          for (const payer of PAYERS.map((p) => p.toLowerCase()))
            expect(records.filter((r) => r.payer === payer && r.state === 'signed').length).toBeLessThanOrEqual(1);
          // I6: never a second transfer for one payer and resource while the first is pending.
          if (chain === 'pending')
            for (const payer of PAYERS.map((p) => p.toLowerCase()))
              for (const skill of SKILLS) expect(sent.filter((s) => s.payer === payer && s.skill === skill).length).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 150 },
    );
  }, 180_000);
});
