/**
 * The x402 v2 settlement's decisions with fakes of its own ports: what is stored around the
 * relayer's submission, what the relayer may risk for a payer (issue 31, findings 1, 4 and 6),
 * before anything reaches a chain. The settlements fake keeps the conditional writes' rules.
 */
import { describe, expect, it, vi } from 'vitest';
import { PRICE_READ_MS, recordSettled } from '../../lambdas/facilitator/settlement-end';
import { holdOf } from '../../lambdas/facilitator/core/relayer-funds';
import { confirmationTask } from '../../lambdas/payments/confirmation';
import { authorizationOfKey, settlementKey } from '../../lambdas/facilitator/core/settlement-key';
import { settleResponse, settlementHeaders } from '../../lambdas/payments/unlock-response';
import type { ChainRead, ConfirmationJob, LedgerRow, PaymentsPorts } from '../../lambdas/payments/ports';
import type {
  FundsHold,
  PriceFeed,
  Relayer,
  RelayedReceipt,
  Requirement,
  SettlementRecord,
  SignedPayment,
  X402Settlement,
} from '../../lambdas/facilitator/ports';
import type { PurchasePolicy } from '../../lambdas/payments/unlock';
import { x402PaymentIdentifiers } from '../../lambdas/facilitator/adapters/x402-payment-identifier';
import { settle } from '../../lambdas/facilitator/settle';
import { checkSignedPayment } from '../../lambdas/payments/payment-signature';
import { decodePaymentHeader } from '../../lambdas/payments/payment-header';
import {
  BASE,
  catalog,
  fakeRelayer,
  fakeSettlements,
  header,
  NOW,
  nowSeconds,
  PAYER,
  portsWith,
  PRICE,
  reading,
  RELAYER_KEY,
  feedWithoutCode,
  refusal,
  SKILL,
  unlock,
} from '../support/x402-settlement-fakes';

describe('unlockWithAuthorization', () => {
  it('stores a transaction signed again after its nonce was taken as the replacement of the refused one, and follows it', async () => {
    const settlements = fakeSettlements();
    const [first, second] = [`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`];
    // A relayer whose first transaction's nonce another instance took: it signs again, naming the refused one.
    const { relayer } = fakeRelayer({ balance: PRICE });
    relayer.submit = async (_token, _payment, record) => {
      if (!(await record({ txHash: first, raw: '0x01', from: RELAYER_KEY }))) return { kind: 'declined' };
      if (!(await record({ txHash: second, raw: '0x02', from: RELAYER_KEY }, first))) return { kind: 'declined' };
      return { kind: 'sent', txHash: second, raw: '0x02' };
    };
    const scheduled: ConfirmationJob[] = [];
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements, scheduled), BASE, { sourceIp: '10.0.0.1' }));
    expect(e.details).toMatchObject({ reason: 'settlement_pending' });
    const response = JSON.parse(Buffer.from(e.headers!['payment-response']!, 'base64').toString('utf8'));
    expect(response).toMatchObject({ success: false, transaction: second, network: 'eip155:8453', errorReason: 'settlement_pending' });
    const [stored] = [...settlements.items.values()];
    expect(stored).toMatchObject({ state: 'signed', txHash: second, raw: '0x02' });
    expect(scheduled).toEqual([expect.objectContaining({ txHash: second, skill: SKILL, relayed: true })]);
  });

  it('a payment without its resource, or valid further ahead than the challenge allows, is a 402 before anything is read or sent (I4, I7)', async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: PRICE });
    const ports = portsWith(relayer, settlements);
    const decoded = JSON.parse(Buffer.from(header(), 'base64').toString());
    const { resource: _r, ...bare } = decoded;
    const noResource = await refusal(unlock(Buffer.from(JSON.stringify(bare)).toString('base64'), SKILL, ports, BASE));
    expect(noResource).toMatchObject({ status: 402, details: { reason: 'invalid_payload' } });
    for (const validBefore of ['99999999999999', (2n ** 256n - 1n).toString(), String(nowSeconds + 3600)]) {
      const far = await refusal(unlock(header({ validBefore }), SKILL, ports, BASE));
      expect(far, validBefore).toMatchObject({ status: 402, details: { reason: 'invalid_exact_evm_payload_authorization_valid_before' } });
    }
    expect(settlements.items.size).toBe(0);
    expect(sent).toEqual([]);
  });

  it("an authorization consumed by an owner's free download is never settled, for any skill, by anyone (I4)", async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: PRICE * 10n });
    const ports = portsWith(relayer, settlements);
    const h = header();
    const payment = JSON.parse(Buffer.from(h, 'base64').toString());
    const requirement = { ...payment.accepted, network: 'eip155:8453', asset: reading.config.assets.USDC! };
    const pk = settlementKey(payment, requirement);
    expect(
      (
        await settlements.consume({
          pk,
          resource: SKILL,
          payer: PAYER.toLowerCase(),
          token: requirement.asset.toLowerCase(),
          amount: PRICE.toString(),
          state: 'failed',
          failure: 'authorization_consumed',
          lease: '',
          claimedAt: NOW.toISOString(),
        })
      ).consumed,
    ).toBe(true);
    const other = catalog.entries.find((e) => e.id !== SKILL)!;
    const elsewhere = Buffer.from(JSON.stringify({ ...payment, resource: { url: `${BASE}/api/pay?skill=${other.id}` } })).toString(
      'base64',
    );
    for (const [skill, value] of [
      [SKILL, h],
      [other.id, elsewhere],
    ] as const) {
      for (const caller of [{ sourceIp: '10.0.0.1' }, { sourceIp: '10.0.0.9' }]) {
        const e = await refusal(unlock(value, skill, ports, BASE, caller));
        expect(e, skill).toMatchObject({ status: 403, code: 'INVALID_WALLET_SIGNATURE' });
      }
    }
    expect(sent).toEqual([]);
    expect([...settlements.items.values()]).toEqual([expect.objectContaining({ pk, state: 'failed', failure: 'authorization_consumed' })]);
  });

  it("x402's payment-identifier: the same id for the same payment answers the first outcome and sends nothing; for another, 409; a malformed id, 402 (I6)", async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: 10n * PRICE, receipt: undefined });
    // The first payment under the id ends without settling (the chain says it would revert); later ones would be sent.
    const submit = relayer.submit;
    let calls = 0;
    relayer.submit = (...args) =>
      ++calls === 1 ? Promise.resolve({ kind: 'would_revert' as const, message: 'reverts' }) : submit(...args);
    const ports = portsWith(relayer, settlements);
    const id = 'pay_0123456789abcdef';
    const first = await refusal(unlock(header({ paymentId: id }), SKILL, ports, BASE, { sourceIp: '10.0.0.14' }));
    expect(first.details).toMatchObject({ reason: 'invalid_exact_evm_transaction_simulation_failed' });
    // The client retries the same payment with a fresh authorization under the same id: the first outcome, nothing sent.
    const again = await refusal(unlock(header({ paymentId: id }), SKILL, ports, BASE, { sourceIp: '10.0.0.14' }));
    expect(again.details).toMatchObject({ reason: 'earlier_payment_failed' });
    expect(calls).toBe(1);
    expect([...settlements.items.values()].map((r) => r.failure)).toEqual([
      'invalid_exact_evm_transaction_simulation_failed',
      'payment_in_flight',
    ]);
    // The same id for another skill: a conflict, and nothing is stored or sent for it.
    const other = catalog.entries.find((e) => e.id !== SKILL)!.id;
    const conflict = await refusal(unlock(header({ paymentId: id, skill: other }), other, ports, BASE, { sourceIp: '10.0.0.14' }));
    expect(conflict).toMatchObject({ status: 409, code: 'PAYMENT_IDENTIFIER_REUSED' });
    expect(settlements.items.size).toBe(2);
    const malformed = await refusal(unlock(header({ paymentId: 'short' }), SKILL, ports, BASE, { sourceIp: '10.0.0.14' }));
    expect(malformed).toMatchObject({ status: 402, details: { reason: 'invalid_payload' } });
    // A new id is a new payment: it is sent.
    const fresh = await refusal(unlock(header({ paymentId: 'pay_fedcba9876543210' }), SKILL, ports, BASE, { sourceIp: '10.0.0.14' }));
    expect(fresh.details).toMatchObject({ reason: 'settlement_pending' });
    expect(sent).toHaveLength(1);
  });

  it("the owner check's read of the settlement is not made again, and a stale one sends nothing twice: the claim decides", async () => {
    const settlements = fakeSettlements();
    let reads = 0;
    const get = settlements.get;
    settlements.get = (pk) => (reads++, get(pk));
    const { relayer, sent } = fakeRelayer({ balance: 2n * PRICE, receipt: undefined });
    const ports = portsWith(relayer, settlements);
    const h = header();
    const a = (JSON.parse(Buffer.from(h, 'base64').toString()) as { payload: { authorization: { from: string; nonce: string } } }).payload
      .authorization;
    const pk = `eip155:8453#${reading.config.assets.USDC}#${a.from}#${a.nonce}`.toLowerCase();
    // What the owner check found before it: nothing stored for this authorization.
    const read = { pk, record: undefined };
    const first = await refusal(unlock(h, SKILL, ports, BASE, { sourceIp: '10.0.0.11', settlementRead: read }));
    expect(first.details).toMatchObject({ reason: 'settlement_pending' });
    expect(reads).toBe(0);
    expect(settlements.items.get(pk)).toMatchObject({ state: 'signed' });
    // The same read again, stale now (the transfer has since failed on chain): the claim finds the
    // stored settlement and the request answers its outcome, sending nothing.
    settlements.items.set(pk, { ...settlements.items.get(pk)!, state: 'failed', failure: 'transaction_failed' });
    const again = await refusal(unlock(h, SKILL, ports, BASE, { sourceIp: '10.0.0.11', settlementRead: read }));
    expect(again.details).toMatchObject({ reason: 'transaction_failed' });
    expect(sent).toHaveLength(1);
    // A read made for another authorization is not taken for this one's.
    reads = 0;
    await refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.11', settlementRead: read }));
    expect(reads).toBeGreaterThan(0);
  });

  it("the payer's funds are read, and the relayer's call prepared, beside x402's verification, not after the claim", async () => {
    const settlements = fakeSettlements();
    const { relayer } = fakeRelayer({ balance: PRICE, receipt: undefined });
    const order: string[] = [];
    const funds = relayer.fundsAhead;
    relayer.fundsAhead = (...args) => (order.push('funds'), funds(...args));
    const claim = settlements.claim;
    settlements.claim = (record) => (order.push('claim'), claim(record));
    const prepare = relayer.prepare;
    relayer.prepare = (token, payment) => (order.push('prepare'), prepare(token, payment));
    const submit = relayer.submit;
    const handed: unknown[] = [];
    relayer.submit = (token, payment, record, prepared) => (order.push('submit'), handed.push(prepared), submit(token, payment, record));
    const ports = portsWith(relayer, settlements);
    ports.x402!.verifier = { verify: async () => (order.push('verify'), { ok: true as const }) };
    const h = header();
    const e = await refusal(unlock(h, SKILL, ports, BASE, { sourceIp: '10.0.0.12' }));
    expect(e.details).toMatchObject({ reason: 'settlement_pending' });
    expect(order).toEqual(['funds', 'prepare', 'verify', 'claim', 'submit']);
    // The relayer's call prepared beside the verification is the one its submission is given.
    const { from, nonce } = (
      JSON.parse(Buffer.from(h, 'base64').toString()) as { payload: { authorization: { from: string; nonce: string } } }
    ).payload.authorization;
    expect(handed).toEqual([{ from, nonce }]);
    // The verification refuses while a read fails: its refusal is the answer, nothing is claimed,
    // and the failed read is no unhandled rejection (vitest fails the run on one).
    relayer.fundsAhead = async () => {
      throw new Error('provider down');
    };
    ports.x402!.verifier = { verify: async () => ({ ok: false as const, reason: 'invalid_exact_evm_payload_signature' }) };
    const refused = await refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.12' }));
    expect(refused.details).toMatchObject({ reason: 'invalid_exact_evm_payload_signature' });
    expect(settlements.items.size).toBe(1);
  });

  it('40 authorizations for one skill at once (a buyer calling again while it is pending): one is sent, and every answer names it, with no challenge to pay again (I6)', async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: 40n * PRICE, receipt: undefined });
    const ports = portsWith(relayer, settlements);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, () => refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.2' }))),
    );
    expect(sent).toHaveLength(1);
    expect(outcomes.map((e) => e.details?.['reason'])).toEqual(Array(40).fill('settlement_pending'));
    expect(outcomes.every((e) => e.retry && e.status === 402 && e.details?.['transaction'] === sent[0])).toBe(true);
    // No PAYMENT-REQUIRED: a stock client that pays every challenge it sees has none to pay.
    expect(outcomes.every((e) => e.headers?.['payment-required'] === undefined && e.headers?.['x-payment-required'] === undefined)).toBe(
      true,
    );
    const records = [...settlements.items.values()];
    const first = records.find((r) => r.state === 'signed')!;
    expect(records.filter((r) => r.state === 'signed')).toHaveLength(1);
    const waited = records.filter((r) => r.state === 'failed');
    expect(waited).toHaveLength(39);
    expect(waited.every((r) => r.failure === 'payment_in_flight' && r.pendingFor === first.pk)).toBe(true);
    expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(1);
    // A new call while it is still pending: nothing is sent, the answer names the same transaction.
    const again = await refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.2' }));
    expect(again.details).toMatchObject({ reason: 'settlement_pending', transaction: sent[0] });
    expect(sent).toHaveLength(1);
  });

  /** The relayer's transfer of the price from PAYER to the treasury, mined. */
  const mined: RelayedReceipt = {
    status: 'success',
    blockNumber: 10n,
    blockHash: '0xb10c',
    transferLogs: [{ address: reading.config.assets.USDC!, from: PAYER, to: reading.config.treasury!, value: PRICE, logIndex: 0 }],
    sender: RELAYER_KEY,
    gasUsed: 60_000n,
    effectiveGasPrice: 1_000_000n,
  };
  /** A settlement request for a PAYMENT-SIGNATURE header, as the resource server makes it. */
  const request = (h: string, resource = SKILL) => {
    const payment = checkSignedPayment(decodePaymentHeader(h), 'PAYMENT-SIGNATURE', {});
    return { payment, requirement: payment.accepted as unknown as Requirement, resource, source: 'caller', provesWallet: false };
  };

  it("a payer's second authorization for a skill, held after the first one settled and released its hold but before its sale was recorded (the owner check read too early): answered with the first payment, nothing sent (I6)", async () => {
    // Found through the local stack: a stock client calling again 25–85 ms after its first call was charged twice
    // (exact and auth-capture alike): the first settlement's hold is released beside the ledger claim of its sale.
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: 10n * PRICE, receipt: mined });
    const ports = { x402: portsWith(relayer, settlements).x402!, config: reading.config, now: () => NOW };
    const first = await settle(request(header()), ports);
    expect(first).toMatchObject({ kind: 'settled', earlier: false });
    await (first as { bookkeeping?: Promise<void> }).bookkeeping;
    expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0);

    const second = await settle(request(header()), ports);
    expect(second).toMatchObject({ kind: 'settled', earlier: true, claimant: true, transfer: (first as { transfer: string }).transfer });
    expect(sent).toHaveLength(1);
    const records = [...settlements.items.values()];
    expect(records.filter((r) => r.failure === 'payment_in_flight')).toHaveLength(1);
    expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0);

    // Another skill is another purchase: sent.
    const other = catalog.entries.find((e) => e.id !== SKILL)!.id;
    expect(await settle(request(header({ skill: other }), other), ports)).toMatchObject({ kind: 'settled', earlier: false });
    expect(sent).toHaveLength(2);
    // An escrowed first payment that was voided bought nothing: the next one is sent.
    const voided = [...settlements.items.values()].find((r) => r.resource === SKILL && r.state === 'settled')!;
    settlements.items.set(voided.pk, { ...voided, scheme: 'auth-capture', escrowStage: 'voided' });
    expect(await settle(request(header()), ports)).toMatchObject({ kind: 'settled', earlier: false });
    expect(sent).toHaveLength(3);
  });

  it("a payer's second authorization held while the first's gas is still being priced (its hold released and noted, its record still `signed`): answered with the first payment, nothing sent (I6)", async () => {
    // Found under the whole suite's load: the settled note is written beside the price read, and the
    // record says `settled` only after it (up to PRICE_READ_MS later); a second call held in between was
    // sent, charging the buyer twice (escrow-abuse.test.ts, the staggered case).
    const settlements = fakeSettlements();
    let priced!: () => void;
    const pricing = new Promise<void>((resolve) => (priced = resolve));
    const feed: PriceFeed = {
      roundAt: async () => (await pricing, { roundId: 1n, answer: 300_000_000_000n, decimals: 8, updatedAt: 1n }),
    };
    const { relayer, sent } = fakeRelayer({ balance: 10n * PRICE, receipt: mined });
    const config = { ...reading.config, ethUsdFeed: '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70' as const };
    const ports = { x402: portsWith(relayer, settlements, [], () => NOW, feed).x402!, config, now: () => NOW };
    const first = await settle(request(header()), ports);
    expect(first).toMatchObject({ kind: 'settled', earlier: false });
    // The first's hold is released (with its note) while its price is read: the record is still `signed`.
    await vi.waitFor(() => expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0));
    const firstRecord = [...settlements.items.values()].find((r) => r.txHash === (first as { transfer: string }).transfer)!;
    expect(firstRecord.state).toBe('signed');

    const second = await settle(request(header()), ports);
    expect(second).toMatchObject({ kind: 'settled', earlier: true, transfer: (first as { transfer: string }).transfer });
    expect(sent).toHaveLength(1);
    priced();
    await (first as { bookkeeping?: Promise<void> }).bookkeeping;
    await (second as { bookkeeping?: Promise<void> }).bookkeeping;
    expect(settlements.items.get(firstRecord.pk)).toMatchObject({ state: 'settled' });
    expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0);
  });

  it('a payment for a skill the payer is already paying for in the other token is not sent either (I6 is per payer and resource)', async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: 10n * PRICE, receipt: undefined });
    const usdbc = reading.config.assets.USDbC!.toLowerCase();
    const earlier: SettlementRecord = {
      pk: `eip155:8453#${usdbc}#${PAYER.toLowerCase()}#0x${'77'.repeat(32)}`,
      resource: SKILL,
      payer: PAYER.toLowerCase(),
      token: usdbc,
      amount: PRICE.toString(),
      state: 'signed',
      lease: 'l',
      claimedAt: NOW.toISOString(),
      validBefore: String(nowSeconds + 60),
      txHash: `0x${'77'.repeat(32)}`,
    };
    settlements.items.set(earlier.pk, earlier);
    await settlements.hold(holdOf(earlier), nowSeconds);
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements), BASE, { sourceIp: '10.0.0.15' }));
    expect(e.details).toMatchObject({ reason: 'settlement_pending', transaction: earlier.txHash });
    expect(sent).toEqual([]);
    expect([...settlements.items.values()].filter((r) => r.failure === 'payment_in_flight')).toHaveLength(1);
    // Only the earlier settlement holds anything.
    expect([...settlements.payers.get(PAYER.toLowerCase())!.held.keys()]).toEqual([earlier.pk]);
  });

  it("a revert's end written and its hold not yet released: the payer's next authorization is refused as cooling, not sent (found by the property test)", async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: 10n * PRICE, receipt: undefined });
    const usdc = reading.config.assets.USDC!.toLowerCase();
    const reverted: SettlementRecord = {
      pk: `eip155:8453#${usdc}#${PAYER.toLowerCase()}#0x${'66'.repeat(32)}`,
      resource: SKILL,
      payer: PAYER.toLowerCase(),
      token: usdc,
      amount: PRICE.toString(),
      state: 'failed',
      failure: 'transaction_failed',
      gasCostWei: '63000000000000',
      finishedAt: NOW.toISOString(),
      lease: 'l',
      claimedAt: NOW.toISOString(),
      txHash: `0x${'66'.repeat(32)}`,
    };
    settlements.items.set(reverted.pk, reverted);
    await settlements.hold(holdOf(reverted), nowSeconds);
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements), BASE, { sourceIp: '10.0.0.16' }));
    expect(e.details).toMatchObject({ reason: 'payer_cooling_down' });
    expect(sent).toEqual([]);
    expect(settlements.payers.get(PAYER.toLowerCase())!.coolUntil).toBe(nowSeconds + reading.config.relayerRevertCooldownSeconds);
  });

  it('a payer holding 40 prices sends 40 authorizations for 40 skills at once: one is in flight, never two; the rest end unsent (I1)', async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: 40n * PRICE, receipt: undefined });
    const ports = portsWith(relayer, settlements);
    const skills = catalog.entries.slice(0, 40).map((e) => e.id);
    const outcomes = await Promise.all(
      skills.map((skill) => refusal(unlock(header({ skill }), skill, ports, BASE, { sourceIp: '10.0.0.3' }))),
    );
    expect(sent).toHaveLength(1);
    const reasons = outcomes.map((e) => e.details?.['reason']);
    expect(reasons.filter((r) => r === 'settlement_pending')).toHaveLength(1);
    expect(reasons.filter((r) => r === 'payer_settlement_in_flight')).toHaveLength(39);
    expect(outcomes.filter((e) => e.details?.['reason'] === 'payer_settlement_in_flight').every((e) => e.retry)).toBe(true);
    // Every authorization seen ends in one record; the refused ones are terminal and expire with their authorization (I4, I7).
    const records = [...settlements.items.values()];
    expect(records).toHaveLength(40);
    expect(records.filter((r) => r.state === 'failed' && r.expiresAt === nowSeconds + 120)).toHaveLength(39);
  });

  it("a funds read made before the payer's last hold was released is made again under the new hold, and so is the relayer's call (finding 4)", async () => {
    const settlements = fakeSettlements();
    // One price: an earlier transfer of the payer's is mined and its hold released while this
    // request verifies; the balance it read before then is spent.
    let balance = PRICE;
    const { relayer, sent } = fakeRelayer({ balance: PRICE, receipt: undefined });
    const reads: bigint[] = [];
    relayer.fundsAhead = async () => (reads.push(balance), { balance, pendingBalance: balance, authorizationUsed: false });
    let prepared = 0;
    relayer.prepare = (_t, payment) => (
      prepared++,
      { from: payment.payload.authorization.from, nonce: payment.payload.authorization.nonce }
    );
    const ports = portsWith(relayer, settlements);
    const held: FundsHold = {
      pk: 'eip155:8453#usdc#earlier#0x01',
      token: reading.config.assets.USDC!.toLowerCase(),
      payer: PAYER.toLowerCase(),
      amount: PRICE,
    };
    await settlements.hold(held, nowSeconds);
    ports.x402!.verifier = {
      verify: async () => {
        await new Promise((r) => setTimeout(r, 5));
        balance = 0n;
        await settlements.release(held);
        return { ok: true as const };
      },
    };
    const e = await refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.13' }));
    expect(e.details).toMatchObject({ reason: 'invalid_exact_evm_insufficient_balance' });
    expect(reads).toEqual([PRICE, 0n]);
    expect(prepared).toBe(2);
    expect(sent).toHaveLength(0);
  });

  it("a transfer of the payer's own waiting in the pool: nothing is sent while the pending block shows its funds leaving", async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: PRICE, pendingBalance: 0n });
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements), BASE, { sourceIp: '10.0.0.10' }));
    expect(e).toMatchObject({ status: 402, retry: true, details: { reason: 'payer_funds_pending' } });
    expect(sent).toHaveLength(0);
    expect([...settlements.items.values()]).toEqual([
      expect.objectContaining({ state: 'failed', failure: 'payer_funds_pending', expiresAt: nowSeconds + 120 }),
    ]);
    expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0);
  });

  it('a reverted transfer: the payer cools down, the gas counts against the hour, and its next authorization is not sent', async () => {
    const settlements = fakeSettlements();
    const receipt: RelayedReceipt = {
      status: 'reverted',
      blockNumber: 10n,
      blockHash: '0xb10c',
      transferLogs: [],
      gasUsed: 63_000n,
      effectiveGasPrice: 2_000_000_000n,
    };
    const { relayer, sent } = fakeRelayer({ balance: PRICE, receipt });
    const ports = portsWith(relayer, settlements);
    const first = await refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.4' }));
    expect(first).toMatchObject({ status: 402, retry: false, details: { reason: 'transaction_failed' } });
    const [record] = [...settlements.items.values()];
    expect(record).toMatchObject({ state: 'failed', failure: 'transaction_failed', gasCostWei: (63_000n * 2_000_000_000n).toString() });
    expect(settlements.hours.get('2026-11-25T10')).toBe(63_000n * 2_000_000_000n);
    const payer = settlements.payers.get(PAYER.toLowerCase())!;
    expect(payer.held.size).toBe(0);
    expect(payer.coolUntil).toBe(nowSeconds + reading.config.relayerRevertCooldownSeconds);

    const again = await refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.4' }));
    expect(again).toMatchObject({ status: 402, retry: false, details: { reason: 'payer_cooling_down' } });
    expect(sent).toHaveLength(1);
    // The refused one ends unsent, in a record that expires with it (I4).
    expect([...settlements.items.values()].map((r) => r.failure)).toEqual(['transaction_failed', 'payer_cooling_down']);
  });

  describe("the relayer's gas in US dollars", () => {
    const receipt: RelayedReceipt = {
      status: 'reverted',
      blockNumber: 77n,
      blockHash: '0xb10c',
      transferLogs: [],
      gasUsed: 63_000n,
      effectiveGasPrice: 2_000_000_003n,
    };
    const gasCostWei = 63_000n * 2_000_000_003n;
    const PRICE_FIELDS = ['ethUsdFeed', 'ethUsdRound', 'ethUsdAnswer', 'ethUsdDecimals', 'ethUsdUpdatedAt', 'gasCostUsdMicro'];
    const settle = async (priceFeed: PriceFeed, sourceIp: string) => {
      const settlements = fakeSettlements();
      const { relayer } = fakeRelayer({ balance: PRICE, receipt });
      const started = Date.now();
      const e = await refusal(
        unlock(
          header(),
          SKILL,
          portsWith(relayer, settlements, [], () => NOW, priceFeed),
          BASE,
          { sourceIp },
        ),
      );
      const [record] = [...settlements.items.values()];
      return { e, record: record!, ms: Date.now() - started };
    };

    it("records the feed's round at the receipt's block beside the gas, and the gas in micro-dollars from them", async () => {
      const asked: [string, bigint][] = [];
      const feed: PriceFeed = {
        roundAt: async (address, blockNumber) => {
          asked.push([address, blockNumber]);
          return { roundId: 18446744073709562301n, answer: 312_345_678_901n, decimals: 8, updatedAt: 1_764_064_800n };
        },
      };
      const { record } = await settle(feed, '10.0.0.20');
      expect(asked).toEqual([[reading.config.ethUsdFeed, 77n]]);
      expect(record).toMatchObject({
        state: 'failed',
        gasCostWei: gasCostWei.toString(),
        ethUsdFeed: '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70',
        ethUsdRound: '18446744073709562301',
        ethUsdAnswer: '312345678901',
        ethUsdDecimals: 8,
        ethUsdUpdatedAt: '2025-11-25T10:00:00.000Z',
      });
      // 126000000189000 wei × 3123.45678901 USD = 0.39355... USD: 393555.555... micro-dollars, half up.
      const exact = (gasCostWei * 312_345_678_901n * 2n + 10n ** 20n) / (2n * 10n ** 20n);
      expect(record.gasCostUsdMicro).toBe(exact.toString());
      expect(record.gasCostUsdMicro).toBe('393556');
    });

    it('a feed with no code at the configured address: the settlement is recorded all the same, with its gas and no price', async () => {
      const { e, record } = await settle(feedWithoutCode, '10.0.0.21');
      expect(e).toMatchObject({ status: 402, details: { reason: 'transaction_failed' } });
      expect(record).toMatchObject({ state: 'failed', gasCostWei: gasCostWei.toString() });
      for (const field of PRICE_FIELDS) expect(record, field).not.toHaveProperty(field);
    });

    it('an answer of zero or less prices nothing', async () => {
      const { record } = await settle({ roundAt: async () => ({ roundId: 5n, answer: 0n, decimals: 8, updatedAt: 1n }) }, '10.0.0.22');
      expect(record).toMatchObject({ state: 'failed', gasCostWei: gasCostWei.toString() });
      for (const field of PRICE_FIELDS) expect(record, field).not.toHaveProperty(field);
    });

    it(`a feed that never answers holds the settlement up ${PRICE_READ_MS} ms at most, then it is recorded unpriced`, async () => {
      const { record, ms } = await settle({ roundAt: () => new Promise(() => undefined) }, '10.0.0.23');
      expect(ms).toBeLessThan(PRICE_READ_MS + 1_500);
      expect(record).toMatchObject({ state: 'failed', gasCostWei: gasCostWei.toString() });
      for (const field of PRICE_FIELDS) expect(record, field).not.toHaveProperty(field);
    });

    it("a settled transfer's hold is released while its gas is priced, not after the price's read", async () => {
      const settlements = fakeSettlements();
      const record: SettlementRecord = {
        pk: 'eip155:8453#usdc#payer#0x01',
        resource: SKILL,
        payer: PAYER.toLowerCase(),
        token: reading.config.assets.USDC!.toLowerCase(),
        amount: PRICE.toString(),
        state: 'signed',
        lease: 'l',
        claimedAt: NOW.toISOString(),
        validBefore: '9999999999',
        txHash: `0x${'cd'.repeat(32)}`,
      };
      settlements.items.set(record.pk, record);
      await settlements.hold(holdOf(record), nowSeconds);
      let heldWhilePricing: number | undefined;
      const feed: PriceFeed = {
        roundAt: async () => {
          // A provider's round trip: the release, started beside this read, is done by its end.
          await new Promise((resolve) => setTimeout(resolve, 20));
          heldWhilePricing = settlements.payers.get(PAYER.toLowerCase())!.held.size;
          return { roundId: 1n, answer: 300_000_000_000n, decimals: 8, updatedAt: 1n };
        },
      };
      await recordSettled(
        { settlements, priceFeed: feed } as unknown as X402Settlement,
        reading.config,
        record,
        { ...receipt, status: 'success' },
        NOW,
      );
      expect(heldWhilePricing).toBe(0);
      expect(settlements.items.get(record.pk)).toMatchObject({ state: 'settled', gasCostWei: gasCostWei.toString(), ethUsdRound: '1' });
    });
  });

  it("the hour's revert budget spent is no off switch: a new payer is served (I3; the settlements port cannot even read it)", async () => {
    const settlements = fakeSettlements();
    settlements.hours.set('2026-11-25T10', 10n * BigInt(reading.config.relayerRevertBudgetWei));
    const { relayer, sent } = fakeRelayer({ balance: PRICE });
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements), BASE, { sourceIp: '10.0.0.5' }));
    expect(e.details).toMatchObject({ reason: 'settlement_pending' });
    expect(sent).toHaveLength(1);
  });

  it('a mandate that refuses the purchase refuses it before any money moves (finding 4)', async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: PRICE });
    const asked: string[] = [];
    const policy: PurchasePolicy = {
      payerFor: (signer) => signer,
      admit: async (p) => (asked.push(p.txHash), { ok: false, message: 'AP2 mandate rejected: the payment exceeds payment.max_amount' }),
    };
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements), BASE, { sourceIp: '10.0.0.6', policy }));
    expect(e).toMatchObject({ status: 403, code: 'AP2_MANDATE_REJECTED' });
    expect(asked).toHaveLength(1);
    expect(sent).toHaveLength(0);
    expect([...settlements.items.values()].map((r) => r.state)).toEqual(['failed']);
    expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0);
  });

  it("a mandate whose wallet is not the authorization's payer is refused before anything is verified", async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: PRICE });
    const policy: PurchasePolicy = { payerFor: () => '0x000000000000000000000000000000000000dEaD', admit: async () => ({ ok: true }) };
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements), BASE, { sourceIp: '10.0.0.7', policy }));
    expect(e).toMatchObject({ status: 403, code: 'AP2_MANDATE_REJECTED' });
    expect(sent).toHaveLength(0);
  });

  it('an authorization the chain says would revert now ends as a final failure, not a 503 (finding 6)', async () => {
    const settlements = fakeSettlements();
    const { relayer } = fakeRelayer({ balance: PRICE, wouldRevert: true });
    const e = await refusal(unlock(header(), SKILL, portsWith(relayer, settlements), BASE, { sourceIp: '10.0.0.8' }));
    expect(e).toMatchObject({ status: 402, retry: false, details: { reason: 'invalid_exact_evm_transaction_simulation_failed' } });
    expect([...settlements.items.values()][0]).toMatchObject({ state: 'failed' });
    expect(settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0);
  });

  it('a claim left behind whose authorization ran out ends as a final failure on the next send (finding 6)', async () => {
    const settlements = fakeSettlements();
    const { relayer, sent } = fakeRelayer({ balance: PRICE });
    let clock = NOW;
    const ports = portsWith(relayer, settlements, [], () => clock);
    const validBefore = String(nowSeconds + 40);
    const h = header({ validBefore });
    // The request that claimed it died before signing: only its claim is left.
    const payload = JSON.parse(Buffer.from(h, 'base64').toString('utf8'));
    const pk = `eip155:8453#${reading.config.assets.USDC}#${PAYER}#${payload.payload.authorization.nonce}`.toLowerCase();
    settlements.items.set(pk, {
      pk,
      resource: SKILL,
      payer: PAYER.toLowerCase(),
      token: reading.config.assets.USDC!.toLowerCase(),
      amount: PRICE.toString(),
      state: 'claimed',
      source: undefined,
      lease: 'gone',
      claimedAt: NOW.toISOString(),
      validBefore,
    });
    clock = new Date(NOW.getTime() + 60_000);
    const e = await refusal(unlock(h, SKILL, ports, BASE, { sourceIp: '10.0.0.9', signInWithX: {} as never }));
    expect(e).toMatchObject({ status: 402, retry: false, details: { reason: 'authorization_expired' } });
    expect(settlements.items.get(pk)).toMatchObject({ state: 'failed', failure: 'authorization_expired' });
    expect(sent).toHaveLength(0);
  });
});

describe('a receipt later than the request waits for it: the confirmation loop', () => {
  /** The relayer's transaction of the stored settlement, mined: the payer's transfer to the treasury, its gas. */
  const minedReceipt = (): RelayedReceipt => ({
    status: 'success',
    blockNumber: 10n,
    blockHash: '0xb10c',
    transferLogs: [{ address: reading.config.assets.USDC!, from: PAYER, to: reading.config.treasury!, value: PRICE, logIndex: 0 }],
    sender: RELAYER_KEY,
    gasUsed: 60_000n,
    effectiveGasPrice: 1_000_000n,
  });

  /** A settlement the request handed to the loop (its receipt had not come), and the loop's ports once the chain has it. */
  async function handedToLoop() {
    const settlements = fakeSettlements();
    const chain = { receipt: undefined as RelayedReceipt | undefined };
    const { relayer } = fakeRelayer({ balance: PRICE, receipt: undefined });
    relayer.receipt = async () => chain.receipt;
    const scheduled: ConfirmationJob[] = [];
    const ports = portsWith(relayer, settlements, scheduled);
    const e = await refusal(unlock(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.12' }));
    expect(e.details).toMatchObject({ reason: 'settlement_pending' });
    const rows = new Map<string, LedgerRow>();
    const loopPorts = {
      ...ports,
      ledger: {
        get: async (_network: string, tx: string) => rows.get(tx),
        claim: async (row: LedgerRow) =>
          rows.has(row.txHash) ? { claimed: false, existing: rows.get(row.txHash)! } : (rows.set(row.txHash, row), { claimed: true }),
      },
      chain: {
        readTransfer: async (): Promise<ChainRead> =>
          chain.receipt
            ? { kind: 'found', receipt: chain.receipt, head: 10n, provider: 'fake' }
            : { kind: 'not_found', answered: 1, head: 9n },
      },
    } as unknown as PaymentsPorts;
    const [stored] = [...settlements.items.values()];
    return { settlements, chain, job: scheduled[0]!, stored: stored!, loopPorts, rows };
  }

  it('claims the transfer for its buyer and ends the settlement that sent it: its gas written, the hold released, nothing left in flight', async () => {
    const t = await handedToLoop();
    expect(t.job).toMatchObject({ relayed: true, settlement: t.stored.pk, txHash: t.stored.txHash, payer: PAYER.toLowerCase() });
    expect(t.settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(1);
    t.chain.receipt = minedReceipt();
    expect(await confirmationTask(t.job, t.loopPorts)).toMatchObject({ status: 'unlocked' });
    expect(t.rows.get(t.stored.txHash!)).toMatchObject({ payer: PAYER, skill: SKILL, status: 'confirmed' });
    expect(t.settlements.items.get(t.stored.pk)).toMatchObject({ state: 'settled', gasUsed: '60000', gasCostWei: '60000000000' });
    expect(t.settlements.payers.get(PAYER.toLowerCase())!.held.size).toBe(0);
    // A second attempt (a retried task) replays the claim and writes nothing more.
    expect(await confirmationTask(t.job, t.loopPorts)).toMatchObject({ status: 'unlocked' });
  });

  it('a relayed transfer the loop finds reverted ends its settlement as a request would: failed with its gas, the payer cooling down, the gas against the hour', async () => {
    const t = await handedToLoop();
    t.chain.receipt = { ...minedReceipt(), status: 'reverted', transferLogs: [] };
    expect(await confirmationTask(t.job, t.loopPorts)).toMatchObject({ status: 'failed' });
    expect(t.rows.size).toBe(0);
    expect(t.settlements.items.get(t.stored.pk)).toMatchObject({
      state: 'failed',
      failure: 'transaction_failed',
      gasCostWei: '60000000000',
    });
    const payer = t.settlements.payers.get(PAYER.toLowerCase())!;
    expect(payer.held.size).toBe(0);
    expect(payer.coolUntil).toBe(nowSeconds + reading.config.relayerRevertCooldownSeconds);
    expect([...t.settlements.hours.values()]).toEqual([60_000_000_000n]);
  });

  it('a revert whose authorization was used anyway (a copy mined first) ends as the request would end it, through the same next(): settled by the copy, the gas lost counted', async () => {
    const t = await handedToLoop();
    t.chain.receipt = { ...minedReceipt(), status: 'reverted', transferLogs: [] };
    const relayer = (t.loopPorts.x402 as { relayer: Relayer }).relayer;
    relayer.authorizationUsed = async () => true;
    const copy = `0x${'c0'.repeat(32)}`;
    relayer.authorizationTransfer = async () => copy;
    expect(await confirmationTask(t.job, t.loopPorts)).toMatchObject({ status: 'failed' });
    expect(t.settlements.items.get(t.stored.pk)).toMatchObject({ state: 'settled', transferTx: copy });
    expect(t.settlements.hours.size).toBe(1);
    // The copy not found (a log search that reached too few blocks): ended as a request ends it, never left in flight.
    const u = await handedToLoop();
    u.chain.receipt = { ...minedReceipt(), status: 'reverted', transferLogs: [] };
    const r2 = (u.loopPorts.x402 as { relayer: Relayer }).relayer;
    r2.authorizationUsed = async () => true;
    r2.authorizationTransfer = async () => undefined;
    await confirmationTask(u.job, u.loopPorts);
    expect(u.settlements.items.get(u.stored.pk)).toMatchObject({ state: 'failed', failure: 'authorization_used_elsewhere' });
  });

  it("a receipt the relayer's provider cannot give yet keeps the loop trying; the settlement stays in flight until it ends", async () => {
    const t = await handedToLoop();
    t.chain.receipt = minedReceipt();
    const relayer = (t.loopPorts.x402 as { relayer: Relayer }).relayer;
    relayer.receipt = async () => undefined;
    expect(await confirmationTask(t.job, t.loopPorts)).toMatchObject({ status: 'pending' });
    expect(t.settlements.items.get(t.stored.pk)).toMatchObject({ state: 'signed' });
    relayer.receipt = async () => t.chain.receipt;
    expect(await confirmationTask(t.job, t.loopPorts)).toMatchObject({ status: 'unlocked' });
    expect(t.settlements.items.get(t.stored.pk)).toMatchObject({ state: 'settled' });
  });
});

describe("a settlement's key", () => {
  it('names the authorization it was made from, so the loop can ask the token about it', () => {
    const payment = JSON.parse(Buffer.from(header(), 'base64').toString()) as SignedPayment;
    const requirement = { network: 'eip155:8453', asset: reading.config.assets.USDC! } as Requirement;
    const pk = settlementKey(payment, requirement);
    expect(authorizationOfKey(pk)).toEqual({
      token: reading.config.assets.USDC!.toLowerCase(),
      from: PAYER.toLowerCase(),
      nonce: payment.payload.authorization.nonce.toLowerCase(),
    });
    expect(authorizationOfKey('PAYER#0xabc')).toBeUndefined();
  });
});

describe("an unlock's settlement, as data and as x402's headers", () => {
  const decode = (header: string | undefined) => JSON.parse(Buffer.from(header!, 'base64').toString('utf8')) as unknown;
  const tx = `0x${'ab'.repeat(32)}`;

  it('answers a proven transfer with the spec\'s X-PAYMENT-RESPONSE only, its network "base"', () => {
    const headers = settlementHeaders({ transaction: tx, payer: PAYER, network: 'base', from: 'proof' });
    expect(Object.keys(headers)).toEqual(['x-payment-response']);
    expect(decode(headers['x-payment-response'])).toEqual({ success: true, transaction: tx, network: 'base', payer: PAYER });
  });

  it("answers a settled PAYMENT-SIGNATURE with x402 v2's PAYMENT-RESPONSE too, the network by CAIP-2, as A2A's receipt", () => {
    const settlement = { transaction: tx, payer: PAYER, network: 'base', from: 'authorization' } as const;
    const headers = settlementHeaders(settlement);
    expect(decode(headers['x-payment-response'])).toEqual({ success: true, transaction: tx, network: 'base', payer: PAYER });
    expect(decode(headers['payment-response'])).toEqual({ success: true, transaction: tx, network: 'eip155:8453', payer: PAYER });
    expect(settleResponse(settlement)).toEqual(decode(headers['payment-response']));
  });

  it('names the network the sale is on: a Base Sepolia sale (a staging stack) says base-sepolia and eip155:84532', () => {
    const headers = settlementHeaders({ transaction: tx, payer: PAYER, network: 'base-sepolia', from: 'authorization' });
    expect(decode(headers['x-payment-response'])).toMatchObject({ network: 'base-sepolia' });
    expect(decode(headers['payment-response'])).toMatchObject({ network: 'eip155:84532' });
  });

  it('adds no header to an unlock that names no payment (a card sale, a sign-in with no transfer to name)', () => {
    expect(settlementHeaders(undefined)).toEqual({});
  });

  it("answers an owner's signed payment under both names with the earlier payment that bought the access (issue 51)", () => {
    const headers = settlementHeaders({ transaction: tx, payer: PAYER, network: 'base', from: 'owned' });
    expect(decode(headers['x-payment-response'])).toEqual({ success: true, transaction: tx, network: 'base', payer: PAYER });
    expect(decode(headers['payment-response'])).toEqual({ success: true, transaction: tx, network: 'eip155:8453', payer: PAYER });
  });
});

describe("x402's payment-identifier, read from a payment", () => {
  it("takes the id by the extension's id rule and never compiles the JSON Schema the client sent", () => {
    const payment = (extension: unknown) =>
      ({ extensions: { 'payment-identifier': extension } }) as unknown as Parameters<typeof x402PaymentIdentifiers.idOf>[0];
    const id = 'pay_0123456789abcdef';
    // A schema no validator compiles: it would be the client's code on our CPU, and is not read.
    expect(x402PaymentIdentifiers.idOf(payment({ info: { required: false, id }, schema: { type: 'no-such-type' } }))).toBe(id);
    expect(x402PaymentIdentifiers.idOf(payment({ info: { required: false }, schema: {} }))).toBeUndefined();
    expect(x402PaymentIdentifiers.idOf(payment({ info: { required: false, id: 'short' } }))).toBe('invalid');
    expect(x402PaymentIdentifiers.idOf({} as Parameters<typeof x402PaymentIdentifiers.idOf>[0])).toBeUndefined();
  });
});
