/**
 * x402 auth-capture's pure parts and the operator's calls (issue 53): the terms a challenge offers
 * and the ones a payment may come back with (contract/auth-capture.ts); the stage table
 * (facilitator/core/escrow.ts); and `escrowCall` over the settlements table's conditional writes
 * with a relayer on a chain the test describes, as a property: captures and voids of one payment,
 * requested in any number and interleaved in any order, end it one way only, send at most one
 * transaction per way, and never capture a voided payment or void a captured one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acceptedEscrowTerms,
  authCaptureRequirement,
  CAPTURE_MARGIN_SECONDS,
  ESCROW_EXPIRY_AFTER_SECONDS,
  escrowDeadlines,
  escrowExpiryAt,
  paymentInfoOf,
  type EscrowClock,
} from '../../lambdas/contract/auth-capture';
import { AUTH_CAPTURE_DEPLOYMENTS } from '../../lambdas/contract/networks';
import { escrowDecision, ESCROW_MOVES } from '../../lambdas/facilitator/core/escrow';
import { escrowCall } from '../../lambdas/facilitator/escrow';
import type { EscrowAction, EscrowStage, RelayedReceipt, SettlementRecord, X402Settlement } from '../../lambdas/facilitator/ports';
import { confirmationTask } from '../../lambdas/payments/confirmation';
import { escrowExpiryJob } from '../../lambdas/payments/core/escrow-expiry';
import { executionName } from '../../lambdas/payments/core/execution-name';
import type { PaymentsPorts } from '../../lambdas/payments/ports';
import { fakeRelayer, fakeSettlements } from '../support/x402-settlement-fakes';

const NOW = 1_800_000_030;
const clock: EscrowClock = { nowSeconds: NOW, maxTimeoutSeconds: 60, captureSeconds: 3600, refundDays: 30 };
const deployment = AUTH_CAPTURE_DEPLOYMENTS[0];
const OPERATOR = '0x00000000000000000000000000000000000000aa';
const base = {
  network: 'eip155:8453',
  amount: '490000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  maxTimeoutSeconds: 60,
  eip712: { name: 'USD Coin', version: '2' },
};
const ours = (at: number) => authCaptureRequirement(base, deployment, OPERATOR, escrowDeadlines({ ...clock, nowSeconds: at }));

describe('auth-capture terms', () => {
  it("a challenge's deadlines are its minute's: the same all minute, a capture window and the refund days after", () => {
    const d = escrowDeadlines(clock);
    expect(d).toEqual(escrowDeadlines({ ...clock, nowSeconds: NOW - 30 }));
    expect(d).toEqual(escrowDeadlines({ ...clock, nowSeconds: NOW + 29 }));
    expect(d.captureDeadline).toBe(1_800_000_000 + 60 + 60 + 3600);
    expect(d.refundDeadline - d.captureDeadline).toBe(30 * 86_400);
    expect(escrowDeadlines({ ...clock, nowSeconds: NOW + 30 }).captureDeadline).toBe(d.captureDeadline + 60);
  });

  it("accepts a payment with one of this service's recent challenges' deadlines, and nothing the client chose", () => {
    const offered = ours(NOW);
    const paid = (extra: Record<string, unknown>, over: Record<string, unknown> = {}) =>
      acceptedEscrowTerms({ ...offered, ...over, extra: { ...offered.extra, ...extra } } as never, offered, clock);
    expect(paid({})).toEqual({ ok: true, requirement: offered });
    // A challenge of ten minutes ago still pays, with its own deadlines.
    const older = ours(NOW - 600).extra;
    expect(paid({ captureDeadline: older.captureDeadline, refundDeadline: older.refundDeadline })).toMatchObject({
      ok: true,
      requirement: { extra: { captureDeadline: older.captureDeadline } },
    });
    // Deadlines no challenge gave, too old, or a refund deadline of the client's own: refused.
    expect(paid({ captureDeadline: offered.extra.captureDeadline + 7, refundDeadline: offered.extra.refundDeadline + 7 }).ok).toBe(false);
    expect(paid({ captureDeadline: offered.extra.captureDeadline + 600, refundDeadline: offered.extra.refundDeadline + 600 }).ok).toBe(
      false,
    );
    const stale = ours(NOW - 3600).extra;
    expect(paid({ captureDeadline: stale.captureDeadline, refundDeadline: stale.refundDeadline }).ok).toBe(false);
    expect(paid({ refundDeadline: offered.extra.refundDeadline + 86_400 }).ok).toBe(false);
    // Less than the margin and the timeout left to capture in: refused before anything is authorized.
    const late = ours(NOW - 3600 + CAPTURE_MARGIN_SECONDS - 100).extra;
    expect(paid({ captureDeadline: late.captureDeadline, refundDeadline: late.refundDeadline }).ok).toBe(false);
    // Every other term is the server's: operator, receiver, amount, fees, escrow.
    expect(paid({ captureAuthorizer: '0x00000000000000000000000000000000000000bb' })).toMatchObject({ ok: false });
    expect(paid({ maxFeeBps: 100 })).toMatchObject({ ok: false });
    expect(paid({ feeRecipient: '0x00000000000000000000000000000000000000cc' })).toMatchObject({ ok: false });
    expect(paid({ authCaptureEscrow: '0xf96815976523E00e65Be8f34cA5e64b4f41EB19c' })).toMatchObject({ ok: false });
    expect(paid({}, { payTo: '0x00000000000000000000000000000000000000dd' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('payTo'),
    });
    expect(paid({}, { amount: '1' })).toMatchObject({ ok: false, message: expect.stringContaining('amount') });
  });

  it("a payment's PaymentInfo: the payer signed, the pre-approval ends with the authorization, the salt is the payload's", () => {
    const offered = ours(NOW);
    const salt = `0x${'ab'.repeat(32)}`;
    const payment = {
      payload: {
        signature: '0x',
        salt,
        authorization: {
          from: '0x1111111111111111111111111111111111111111',
          to: deployment.tokenCollector,
          value: '490000',
          validAfter: '0',
          validBefore: String(NOW + 60),
          nonce: `0x${'00'.repeat(32)}`,
        },
      },
    };
    expect(paymentInfoOf(offered, payment)).toEqual({
      operator: OPERATOR,
      payer: '0x1111111111111111111111111111111111111111',
      receiver: base.payTo,
      token: base.asset,
      maxAmount: '490000',
      preApprovalExpiry: NOW + 60,
      authorizationExpiry: offered.extra.captureDeadline,
      refundExpiry: offered.extra.refundDeadline,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeReceiver: '0x0000000000000000000000000000000000000000',
      salt,
    });
    expect(paymentInfoOf(offered, { payload: { ...payment.payload, salt: undefined } })).toBeUndefined();
  });
});

describe('the escrow stages', () => {
  it('each call begins from its own stage, resumes while out, is done at its end, and is refused anywhere else', () => {
    const stages: EscrowStage[] = ['authorized', 'capturing', 'captured', 'voiding', 'voided', 'refunding', 'refunded'];
    const table = Object.fromEntries(
      (['capture', 'void', 'refund'] as const).map((a) => [a, Object.fromEntries(stages.map((s) => [s, escrowDecision(s, a).kind]))]),
    );
    expect(table).toEqual({
      capture: {
        authorized: 'begin',
        capturing: 'resume',
        captured: 'done',
        voiding: 'refused',
        voided: 'refused',
        refunding: 'refused',
        refunded: 'refused',
      },
      void: {
        authorized: 'begin',
        capturing: 'refused',
        captured: 'refused',
        voiding: 'resume',
        voided: 'done',
        refunding: 'refused',
        refunded: 'refused',
      },
      refund: {
        authorized: 'refused',
        capturing: 'refused',
        captured: 'begin',
        voiding: 'refused',
        voided: 'refused',
        refunding: 'resume',
        refunded: 'done',
      },
    });
    for (const move of Object.values(ESCROW_MOVES)) expect(new Set([move.from, move.via, move.to]).size).toBe(3);
  });
});

/** An escrowed payment, authorized (its `authorize` mined). */
const authorized = (pk: string): SettlementRecord => ({
  pk,
  resource: 'skill',
  payer: '0x1111111111111111111111111111111111111111',
  token: base.asset.toLowerCase(),
  amount: '490000',
  state: 'settled',
  lease: 'l',
  claimedAt: new Date(NOW * 1000).toISOString(),
  txHash: `0x${'01'.repeat(32)}`,
  scheme: 'auth-capture',
  paymentInfo: JSON.stringify({ salt: '0x01' }),
  paymentHash: `0x${'02'.repeat(32)}`,
});

const receipt = (status: 'success' | 'reverted'): RelayedReceipt => ({
  status,
  blockNumber: 10n,
  blockHash: `0x${'03'.repeat(32)}`,
  transferLogs: [],
  gasUsed: 60_000n,
  effectiveGasPrice: 6_000_000n,
});

describe('escrowCall under any interleaving (fast-check)', () => {
  it('one payment ends one way: at most one capture or one void is mined, never both, and every stage write is one conditional write', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom<EscrowAction>('capture', 'void'), { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom<'success' | 'reverted' | 'none'>('success', 'reverted', 'none'), { minLength: 6, maxLength: 6 }),
        async (s, calls, chain) => {
          const settlements = fakeSettlements();
          const pk = 'eip155:8453#token#payer#nonce';
          settlements.items.set(pk, authorized(pk));
          const { relayer } = fakeRelayer({ balance: 0n });
          const sentCalls: Array<{ tx: string; action: string }> = [];
          const mined = new Map<string, 'success' | 'reverted' | 'none'>();
          const send = relayer.send.bind(relayer);
          relayer.send = s.scheduleFunction(async (call, record) => {
            const out = await send(call, record);
            if (out.kind === 'sent') {
              // Stored before it went out: the record is in the call's own sending stage, naming it.
              const stage = settlements.items.get(pk)!.escrowStage;
              expect(stage).toBe(ESCROW_MOVES[call.data as EscrowAction].via);
              sentCalls.push({ tx: out.txHash, action: call.data });
              mined.set(out.txHash, chain[sentCalls.length - 1]!);
            }
            return out;
          });
          relayer.receipt = s.scheduleFunction(async (tx: string) => {
            const m = mined.get(tx);
            return m === 'none' || m === undefined ? undefined : receipt(m);
          });
          relayer.rebroadcast = async () => 'sent';
          const x402 = {
            settlements,
            relayer,
            escrow: {
              operator: OPERATOR,
              escrow: deployment.escrow,
              tokenCollector: deployment.tokenCollector,
              verifier: { verify: async () => ({ ok: true as const }) },
              relayer,
              contract: {
                hash: () => `0x${'02'.repeat(32)}`,
                call: (action: EscrowAction) => ({ to: deployment.escrow, data: action }),
                state: async () => ({ collected: true, capturable: 0n, refundable: 0n }),
              },
            },
          } as unknown as X402Settlement;
          await s.waitFor(
            Promise.all(
              calls.map((action) => escrowCall(pk, action, x402, { waitMs: 0, now: () => new Date(NOW * 1000), ethUsdFeed: undefined })),
            ),
          );

          const minedOk = sentCalls.filter((c) => mined.get(c.tx) === 'success');
          // Never both ways, and never twice one way.
          expect(new Set(minedOk.map((c) => c.action)).size).toBeLessThanOrEqual(1);
          expect(minedOk.length).toBeLessThanOrEqual(1);
          const record = settlements.items.get(pk)!;
          const stage = record.escrowStage ?? 'authorized';
          if (minedOk[0]?.action === 'capture') expect(['capturing', 'captured']).toContain(stage);
          if (minedOk[0]?.action === 'void') expect(['voiding', 'voided']).toContain(stage);
          // A stage at its end names the transaction that was mined.
          if (stage === 'captured') expect(minedOk.map((c) => c.tx)).toContain(record.captureTx);
          if (stage === 'voided') expect(minedOk.map((c) => c.tx)).toContain(record.voidTx);
          // The other way is sent only after this one's transaction reverted (the stage went back to authorized).
          for (const [i, later] of sentCalls.entries())
            for (const earlier of sentCalls.slice(0, i))
              if (earlier.action !== later.action) expect(mined.get(earlier.tx)).toBe('reverted');
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('an escrow operator key that cannot be read', () => {
  it('turns the escrow offer off and leaves exact settlement on', async () => {
    const { facilitatorFromEnv } = await import('../../lambdas/facilitator/wiring');
    const { readMarketConfig } = await import('../../lambdas/platform/config');
    const { config } = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });
    const env = {
      RELAYER_PRIVATE_KEYS: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      // Not a key at all: as a KMS key that refuses GetPublicKey, the operator's address cannot be had.
      ESCROW_OPERATOR_PRIVATE_KEY: '0x12',
    };
    const x402 = await facilitatorFromEnv(env, async () => ['http://127.0.0.1:1'], config);
    expect(x402).toBeDefined();
    expect(x402!.escrow).toBeUndefined();
    const ok = await facilitatorFromEnv(
      { ...env, ESCROW_OPERATOR_PRIVATE_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' },
      async () => ['http://127.0.0.1:1'],
      config,
    );
    expect(ok!.escrow?.operator).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  });
});

describe("an escrowed payment nobody came back for: the loop's expiry (ConfirmationJob escrow_expiry)", () => {
  const TX = `0x${'01'.repeat(32)}`;
  const at = escrowExpiryAt(NOW + 3600);
  /** The expiry job's attempt at `nowSeconds`, over a fake escrow whose every call is mined successfully; `sold`: a claimed sale of its authorize. */
  const attemptAt = async (nowSeconds: number, sold: boolean, stage?: EscrowStage) => {
    const settlements = fakeSettlements();
    const pk = 'eip155:8453#token#payer#nonce';
    settlements.items.set(pk, { ...authorized(pk), ...(stage ? { escrowStage: stage } : {}) });
    const { relayer } = fakeRelayer({ balance: 0n });
    const sent: string[] = [];
    const send = relayer.send.bind(relayer);
    relayer.send = async (call, record) => {
      const out = await send(call, record);
      if (out.kind === 'sent') sent.push(call.data as string);
      return out;
    };
    relayer.receipt = async () => receipt('success');
    relayer.rebroadcast = async () => 'sent';
    const captures: string[] = [];
    const ports = {
      config: { network: { name: 'base' }, ethUsdFeed: undefined },
      now: () => new Date(nowSeconds * 1000),
      ledger: {
        get: async (_network: string, tx: string) => (sold && tx === TX ? { txHash: TX } : undefined),
        recordCapture: async (_network: string, _tx: string, capture: string) => void captures.push(capture),
      },
      x402: {
        settlements,
        relayer,
        escrow: {
          operator: OPERATOR,
          escrow: deployment.escrow,
          tokenCollector: deployment.tokenCollector,
          relayer,
          contract: {
            hash: () => `0x${'02'.repeat(32)}`,
            call: (action: EscrowAction) => ({ to: deployment.escrow, data: action }),
            state: async () => ({ collected: true, capturable: 490_000n, refundable: 0n }),
          },
        },
      },
    } as unknown as PaymentsPorts;
    // The job a request whose authorize was not mined schedules, for a capture deadline an hour on.
    const job = escrowExpiryJob('base', TX, 'skill', pk, NOW + 3600);
    const result = await confirmationTask(job, ports);
    return { result, sent, stage: settlements.items.get(pk)!.escrowStage, captures };
  };

  it('before its time: nothing is sent (a request may still deliver it)', async () => {
    const { result, sent } = await attemptAt(at - 1, false);
    expect(result.status).toBe('pending');
    expect(sent).toEqual([]);
  });

  it('at its time with no sale: voided (the escrow gives the payer everything back, no reclaim needed)', async () => {
    const { result, sent, stage } = await attemptAt(at, false);
    expect(result).toMatchObject({ status: 'unlocked', message: expect.stringContaining('voided') });
    expect(sent).toEqual(['void']);
    expect(stage).toBe('voided');
  });

  it('at its time with a sale claimed but never captured (its request died in between): captured, never voided', async () => {
    const { result, sent, stage, captures } = await attemptAt(at, true);
    expect(result.status).toBe('unlocked');
    expect(sent).toEqual(['capture']);
    expect(stage).toBe('captured');
    expect(captures).toHaveLength(1);
  });

  it('delivered meanwhile (captured), or voided already: nothing more is sent', async () => {
    // Its sale captured: done, by the earlier transaction.
    const delivered = await attemptAt(at, true, 'captured');
    expect(delivered.result).toMatchObject({ status: 'unlocked', message: expect.stringContaining('earlier') });
    expect(delivered.sent).toEqual([]);
    for (const stage of ['voided', 'refunded'] as const) {
      const { result, sent } = await attemptAt(at, false, stage);
      expect(result.status, stage).toBe(stage === 'voided' ? 'unlocked' : 'failed');
      expect(sent, stage).toEqual([]);
    }
  });

  it("is due once no request can deliver the payment and none that began to is still running; its execution runs beside the authorize's confirmation", () => {
    const job = escrowExpiryJob('base', TX, 'skill', 'pk', NOW + 3600);
    expect(job).toMatchObject({ kind: 'escrow_expiry', settlement: 'pk', at: new Date(at * 1000).toISOString().replace('.000Z', 'Z') });
    expect(executionName(job)).not.toBe(executionName({ network: 'base', txHash: TX, skill: 'skill', relayed: true, settlement: 'pk' }));
    expect(escrowExpiryAt(NOW + 3600)).toBe(NOW + 3600 - CAPTURE_MARGIN_SECONDS + ESCROW_EXPIRY_AFTER_SECONDS);
    // Longer than an API request lives (API Gateway gives up at 29 s).
    expect(ESCROW_EXPIRY_AFTER_SECONDS).toBeGreaterThan(29);
    expect(ESCROW_EXPIRY_AFTER_SECONDS).toBeLessThan(CAPTURE_MARGIN_SECONDS);
  });
});
