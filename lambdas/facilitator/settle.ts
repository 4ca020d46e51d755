/**
 * The facilitator's one loop: it drives `next` (core/settlement.ts) for a signed authorization
 * presented for a resource, doing each read or write the step asks for and observing its result,
 * until `next` answers. x402 v2's standard flow: the client signs an EIP-3009 authorization for
 * the resource server's requirement; the service is its own facilitator and submits the transfer
 * from its relayer. Each authorization is settled once, nothing is sent that the resource
 * server's hook refuses, and the relayer never has more than one settlement of a payer's token in
 * flight (docs/SECURITY.md, I1–I7).
 *
 * Round trips are taken off the purchase's path where they are only reads: the payer's funds are
 * read, and the relayer's call prepared, beside x402's verification, and read again under the hold
 * only when an earlier hold of the payer was released after that read (so no decision rests on a
 * balance an earlier transfer spent). The settlement's bookkeeping once mined (its gas priced,
 * the hold released) is handed back as a promise, so the resource server's ledger claim runs beside it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { formatAtomic } from '../contract/chain';
import { METRICS } from '../contract/metrics';
import type { MarketConfig } from '../contract/settings';
import { countMetric } from '../platform/metrics';
import { CONSUMED, consumedExpiry, validBeforeTooFar } from './core/authorization-life';
import { holdEnded, holdOf, judgeFunds, pendingShortfall, revertCoolUntil, VALIDITY_MARGIN_SECONDS } from './core/relayer-funds';
import { next, STALE_CLAIM_MS, type Clock, type Decided, type Observed, type Refusal } from './core/settlement';
import { authorizationOfKey, settlementKey } from './core/settlement-key';
import type {
  EscrowStage,
  FundsAhead,
  FundsHold,
  PreparedCall,
  RelayedReceipt,
  Requirement,
  SettlementRecord,
  SignedPayment,
  X402Settlement,
} from './ports';
import { recordReverted, recordSettled } from './settlement-end';
import { paymentInfoOf } from '../contract/auth-capture';

export type { Refusal } from './core/settlement';

/** How long a request waits for its transfer's receipt before handing it to the confirmation loop. */
export const RECEIPT_WAIT_MS = 12_000;
/** How long a duplicate waits for the request that holds the claim. */
const FOLLOW_WAIT_MS = 20_000;
const FOLLOW_POLL_MS = 150;
/** A short look for a receipt (after a rebroadcast of an expired authorization, or a taken nonce). */
const SHORT_RECEIPT_MS = 1_500;
/** How long the confirmation loop waits for a receipt its own attempt has just read (a provider behind the one that answered). */
const LOOP_RECEIPT_WAIT_MS = 2_000;
/** How long an answer for the payer's earlier payment waits for it to be signed, when it is still only claimed. */
const EARLIER_SIGN_WAIT_MS = 3_000;
/**
 * How long after a payer's settlement for a resource ended settled a new authorization of that
 * payer for it is answered with it (I6): longer than any request takes from its owner check to its
 * hold, and no wallet buys a skill it owns (the owner check answers it free).
 */
const SETTLED_RECENTLY_MS = 60_000;
/** An escrowed payment in these stages bought nothing (voided) or no longer does (refunded). */
const UNSOLD_STAGES: ReadonlySet<EscrowStage> = new Set(['voiding', 'voided', 'refunding', 'refunded']);
/** How long a payer's payment identifier is remembered: a day, as an Idempotency-Key is (docs/PAYMENTS.md). */
const PAYMENT_ID_SECONDS = 86_400;

/** What the facilitator runs on: its ports, the settings it reads, and the clock. */
export interface FacilitatorPorts {
  x402: X402Settlement;
  config: Pick<MarketConfig, 'ethUsdFeed' | 'relayerRevertCooldownSeconds'> & { network: { label: string } };
  now: () => Date;
  /** How a request waits for another (real time when absent; a test's own clock makes its waits instant). */
  waiting?: Waiting | undefined;
}

/** Waiting for another request: a pause, and a monotonic count of milliseconds to measure it by. */
export interface Waiting {
  sleep(ms: number): Promise<void>;
  elapsed(): number;
}

const REAL_TIME: Waiting = { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), elapsed: () => Date.now() };

/** The resource server's last word before money moves (x402's `onBeforeSettle`): an AP2 mandate's constraints and spend. */
export type BeforeSend = (s: { key: string; payer: string; amount: bigint }) => Promise<{ ok: true } | { ok: false; refusal: Refusal }>;

/** An escrowed payment as the resource server is told of it (auth-capture). */
export interface EscrowSettled {
  /** The settlement's key. */
  key: string;
  stage: EscrowStage;
  /** The escrow's id of the payment, and its PaymentInfo (JSON). */
  paymentHash: string;
  paymentInfo: string;
  /** Until when it can be captured (Unix seconds). */
  captureDeadline: number;
  /** When its settlement was claimed (ISO): a payment authorized long ago is checked on chain before it is delivered. */
  claimedAt: string;
}

/** A signed payment presented for a resource. */
export interface SettleRequest {
  payment: SignedPayment;
  /** The resource server's own requirement the payment chose (never the client's). */
  requirement: Requirement;
  /** What it pays for, as the resource server names it: an authorization settles one resource only. */
  resource: string;
  /** A pseudonym of the caller's address (never published): the claimer's own retry is recognised by it. */
  source?: string | undefined;
  /** The caller proves the paying wallet another way (a sign-in): it may follow a record it did not claim. */
  provesWallet: boolean;
  /** The record as an earlier read of this request found it (the owner check), so it is not read again. */
  known?: { record: SettlementRecord | undefined } | undefined;
  beforeSend?: BeforeSend | undefined;
}

/** How a presented authorization was settled, for the resource server to answer. */
export type Settled =
  /**
   * The money moved by `transfer`: the resource server claims it and delivers. `claimant`: this
   * caller claimed the authorization before it was public (its payer is proven by the signature);
   * `earlier`: the transfer is the payer's earlier payment for the same resource, answered to this one.
   */
  | {
      kind: 'settled';
      transfer: string;
      payer: string;
      claimant: boolean;
      earlier: boolean;
      receipt?: RelayedReceipt | undefined;
      bookkeeping?: Promise<void> | undefined;
      /** `auth-capture`: the transfer is the escrow's `authorize`; the money moves to the seller only by its capture (escrow.ts). */
      escrow?: EscrowSettled | undefined;
    }
  /** Sent and not mined within the wait: the resource server hands it to its confirmation loop (`key` names the settlement). */
  | { kind: 'unmined'; transaction: string; payer: string; key: string }
  /** A payment is being settled and the same request can succeed later: no fresh challenge (`sent`: the transaction). */
  | { kind: 'pending'; message: string; sent?: { transaction: string; payer: string } | undefined }
  /** Ended without moving money (`transaction`: the relayer's, when one was sent). */
  | { kind: 'failed'; failure: string; payer: string; transaction?: string | undefined }
  | { kind: 'refused'; refusal: Refusal; sent?: { transaction: string; payer: string } | undefined }
  /** An owner's signed payment answered free: it is never settled, for any resource (I4). */
  | { kind: 'consumed'; payer: string; resource: string }
  | { kind: 'not_buyer' }
  | { kind: 'payment_id_reused'; id: string };

/** What the loop reads beside verification: the payer's funds at the pending block, and the relayer's call being prepared. */
type Ahead = { funds: Promise<FundsAhead>; call: PreparedCall; startedAt: number };

/** One run of the loop: its ports, the authorization, the request (none for the confirmation loop), and what it learned on the way. */
interface Run {
  ports: FacilitatorPorts;
  pk: string;
  /** The authorization's token, payer, nonce and end: from the payment, or from the settlement's key and record. */
  auth: { token: string; from: string; nonce: string; validBefore: string };
  /** The request that presented it; the confirmation loop has none, and `next` asks it nothing that needs one. */
  request?: SettleRequest | undefined;
  ahead?: Ahead | undefined;
  /** This request's receipt of its own transaction, when it read one. */
  mined?: RelayedReceipt | undefined;
  bookkeeping?: Promise<void> | undefined;
  followSince: number;
}

const waiting = (run: Pick<Run, 'ports'>): Waiting => run.ports.waiting ?? REAL_TIME;
/** The presented request, for the steps only a request takes (the loop starts from a receipt, and `next` never asks them there). */
const req = (run: Run): SettleRequest => {
  if (!run.request) throw new Error(`settlement ${run.pk}: a step that needs the presented payment, without one`);
  return run.request;
};
const nowSeconds = (run: Pick<Run, 'ports'>): number => Math.floor(run.ports.now().getTime() / 1000);

/**
 * Settles a signed payment (decoded and shape-checked once by the surface that received it) for a
 * resource: verify, claim, hold, send, wait; or follow the request that holds it; or answer the
 * payer's earlier payment for the same resource. Never throws for the payer's doing: every end is data.
 */
export async function settle(request: SettleRequest, given: FacilitatorPorts): Promise<Settled> {
  const a = request.payment.payload.authorization;
  const ports = schemePorts(given, request.requirement.scheme);
  if (!ports)
    return refused({
      reason: 'unsupported_scheme',
      message: 'This deployment has no escrow operator to settle auth-capture payments; pay with the exact scheme.',
      retry: false,
    });
  if (validBeforeTooFar(a.validBefore, nowSeconds({ ports }), request.requirement.maxTimeoutSeconds)) {
    // Refused before anything is read or stored: a life the challenge does not allow (I7).
    return refused({
      reason: 'invalid_exact_evm_payload_authorization_valid_before',
      message: `The authorization is valid until ${a.validBefore}, further ahead than this challenge's ${request.requirement.maxTimeoutSeconds} s allow; sign one that ends within them.`,
      retry: false,
    });
  }
  const run: Run = {
    ports,
    pk: settlementKey(request.payment, request.requirement),
    auth: { token: request.requirement.asset, from: a.from, nonce: a.nonce, validBefore: a.validBefore },
    request,
    followSince: (ports.waiting ?? REAL_TIME).elapsed(),
  };
  // Read before anything is verified: a replayed authorization (public once mined) costs no RPC.
  const record = request.known ? request.known.record : await ports.x402.settlements.get(run.pk);
  const out = await drive(run, record, { kind: 'presented', ...follower(run, record) });
  return answer(out.decided, out.record, run);
}

/**
 * The ports a scheme settles with: `exact` with the relayer pool and x402's verification;
 * `auth-capture` with the escrow's verification and the operator's relayer, whose `submit` is the
 * escrow's `authorize`. Everything else (the settlements table, its holds, the invariants) is the same.
 */
function schemePorts(ports: FacilitatorPorts, scheme: string | undefined): FacilitatorPorts | undefined {
  if (scheme !== 'auth-capture') return ports;
  const escrow = ports.x402.escrow;
  return escrow ? { ...ports, x402: { ...ports.x402, verifier: escrow.verifier, relayer: escrow.relayer } } : undefined;
}

/**
 * The one loop: `next` says the step, the loop does its one read or write and observes the
 * result, until `next` answers. A request's settlement and the confirmation loop's end of one both
 * run here.
 */
async function drive(
  run: Run,
  first: SettlementRecord | undefined,
  start: Observed,
): Promise<{ decided: Decided; record: SettlementRecord | undefined }> {
  const { ports } = run;
  let record = first;
  let observed = start;
  /** The record, once there is one (every step after the first read or the claim has one). */
  const rec = (): SettlementRecord => {
    if (!record) throw new Error(`settlement ${run.pk} has no record here`);
    return record;
  };
  for (;;) {
    const step = next(record, observed);
    switch (step.kind) {
      case 'answer':
        return { decided: step.answer, record };
      case 'verify': {
        const verified = await verify(run);
        if ('record' in verified) {
          record = verified.record;
          observed = { kind: 'read', ...follower(run, record) };
        } else observed = verified;
        break;
      }
      case 'claim': {
        const mine = newRecord(run);
        const claim = await ports.x402.settlements.claim(mine);
        record = claim.claimed ? mine : claim.existing;
        observed = claim.claimed ? { kind: 'claimed' } : { kind: 'read', ...follower(run, record) };
        break;
      }
      case 'end_unclaimed': {
        const at = ports.now().toISOString();
        const ended: SettlementRecord = {
          ...newRecord(run),
          state: 'failed',
          failure: step.failure,
          pendingFor: step.pendingFor,
          lease: '',
          finishedAt: at,
          expiresAt: consumedExpiry(run.auth.validBefore),
        };
        const out = await ports.x402.settlements.consume(ended);
        record = out.consumed ? ended : out.existing;
        observed = out.consumed ? { kind: 'ended' } : { kind: 'read', ...follower(run, record) };
        break;
      }
      case 'hold':
        observed = await hold(run, rec());
        break;
      case 'read_funds':
        observed = await readFunds(run);
        break;
      case 'before_send': {
        const a = req(run).payment.payload.authorization;
        const admitted = await req(run).beforeSend!({ key: run.pk, payer: a.from, amount: BigInt(a.value) });
        observed = admitted.ok ? { kind: 'admitted', ok: true } : { kind: 'admitted', ok: false, refusal: admitted.refusal };
        break;
      }
      case 'send':
      case 'resend': {
        const mine = rec();
        const old = mine.txHash;
        const sent = await ports.x402.relayer.submit(
          run.auth.token,
          req(run).payment,
          (signed, replaces) =>
            step.kind === 'send' && replaces === undefined
              ? ports.x402.settlements.signed(mine.pk, mine.lease, signed)
              : ports.x402.settlements.replaced(mine.pk, replaces ?? old!, signed),
          step.kind === 'send' ? run.ahead?.call : undefined,
        );
        if (sent.kind === 'sent') record = { ...mine, state: 'signed', txHash: sent.txHash, raw: sent.raw };
        else if (sent.kind === 'declined') record = await current(run);
        observed = { kind: 'submitted', result: sent.kind };
        break;
      }
      case 'await_receipt': {
        const wait =
          step.after === 'send' ? RECEIPT_WAIT_MS : step.after === 'rebroadcast' && !expired(run) ? RECEIPT_WAIT_MS : SHORT_RECEIPT_MS;
        const receipt = await ports.x402.relayer.receipt(rec().txHash!, wait);
        if (receipt) run.mined = receipt;
        observed = { kind: 'receipt', receipt, after: step.after, expired: expired(run) };
        break;
      }
      case 'check_used': {
        const used = await ports.x402.relayer.authorizationUsed(run.auth.token, run.auth.from, run.auth.nonce);
        observed = { kind: 'used', used, after: step.after, expired: expired(run), receipt: step.receipt };
        break;
      }
      case 'find_transfer': {
        const tx = await ports.x402.relayer.authorizationTransfer(run.auth.token, run.auth.from, run.auth.nonce, step.receipt?.blockNumber);
        observed = { kind: 'transfer', tx, stale: stale(run, rec()), receipt: step.receipt };
        break;
      }
      case 'take_over': {
        const lease = randomUUID();
        const claimedAt = ports.now().toISOString();
        const ok = await ports.x402.settlements.takeOver(run.pk, rec().lease, { lease, claimedAt, source: rec().source });
        if (ok) {
          record = { ...rec(), lease, claimedAt };
          // What was read beside verification belongs to the request that died: read afresh under this hold.
          run.ahead = undefined;
        }
        observed = { kind: 'taken_over', ok };
        break;
      }
      case 'rebroadcast':
        observed = { kind: 'rebroadcast', result: await ports.x402.relayer.rebroadcast(rec().raw!) };
        break;
      case 'wait':
        await waiting(run).sleep(FOLLOW_POLL_MS);
        record = await current(run);
        observed = { kind: 'read', ...follower(run, record) };
        break;
      case 'end': {
        const first = await ports.x402.settlements.finish(run.pk, {
          state: 'failed',
          failure: step.failure,
          finishedAt: ports.now().toISOString(),
          ...(step.unsent ? { expiresAt: consumedExpiry(run.auth.validBefore) } : {}),
          ...(step.pendingFor ? { pendingFor: step.pendingFor } : {}),
        });
        if (step.release) await ports.x402.settlements.release(holdOf(rec()));
        if (step.refusal && first) countMetric(METRICS.settlementsRefused, { Reason: step.refusal.reason });
        record = first ? { ...rec(), state: 'failed', failure: step.failure, pendingFor: step.pendingFor } : await current(run);
        observed = { kind: 'ended', refusal: first ? step.refusal : undefined };
        break;
      }
      case 'end_settled': {
        const ended = recordSettled(ports.x402, ports.config, rec(), step.receipt, ports.now(), step.transferTx);
        // The relayer's own transfer, mined: its bookkeeping runs beside the resource server's claim.
        if (step.transferTx) await ended;
        else run.bookkeeping = ended;
        record = { ...rec(), state: 'settled', ...(step.transferTx ? { transferTx: step.transferTx } : {}) };
        observed = { kind: 'ended' };
        break;
      }
      case 'end_reverted':
        await recordReverted(ports.x402, ports.config, rec(), step.receipt, ports.now(), step.failure);
        record = { ...rec(), state: 'failed', failure: step.failure };
        observed = { kind: 'ended' };
        break;
    }
  }
}

/**
 * The confirmation loop's part, once its attempt has decided on a relayed transfer: the settlement
 * that sent it is driven on by the same `next`, from the receipt. Mined and successful: `settled`.
 * Reverted: `failed` with the payer cooling down, or `settled` by the copy of the authorization
 * mined first. Left alone: a settlement not signed with this transaction (a request ended it
 * already, or stored a replacement). `receipt_missing`: the receipt could not be read now.
 */
export async function endSettlement(
  pk: string,
  txHash: string,
  ports: Omit<FacilitatorPorts, 'x402'> & { x402?: X402Settlement | undefined },
): Promise<'ended' | 'nothing_to_end' | 'receipt_missing'> {
  const authorization = authorizationOfKey(pk);
  if (!ports.x402 || !authorization) return 'nothing_to_end';
  const record = await ports.x402.settlements.get(pk);
  if (record?.state !== 'signed' || record.txHash?.toLowerCase() !== txHash.toLowerCase()) return 'nothing_to_end';
  const schemed = schemePorts({ ...ports, x402: ports.x402 }, record.scheme);
  if (!schemed) return 'nothing_to_end';
  const x402 = schemed.x402;
  const run: Run = {
    ports: schemed,
    pk,
    auth: { ...authorization, validBefore: record.validBefore ?? '0' },
    followSince: 0,
  };
  const receipt = await x402.relayer.receipt(txHash, LOOP_RECEIPT_WAIT_MS);
  const out = await drive(run, record, { kind: 'receipt', receipt, after: 'loop', expired: false });
  // The loop has nobody to answer: its end's bookkeeping is awaited here, not beside a claim.
  await run.bookkeeping;
  return out.decided.kind === 'receipt_missing' ? 'receipt_missing' : 'ended';
}

const refused = (refusal: Refusal): Settled => ({ kind: 'refused', refusal });

/** An escrowed settlement as the resource server is told of it: its key, its stage and the escrow's id of the payment. */
const escrowOf = (r: SettlementRecord) => ({
  key: r.pk,
  stage: r.escrowStage ?? ('authorized' as const),
  paymentHash: r.paymentHash ?? '',
  // Until when the escrow lets the operator capture it (PaymentInfo's authorizationExpiry).
  captureDeadline: r.paymentInfo ? Number((JSON.parse(r.paymentInfo) as { authorizationExpiry: number }).authorizationExpiry) : 0,
  paymentInfo: r.paymentInfo ?? '',
  claimedAt: r.claimedAt,
});

/** The clock and the caller, as a follower of `record` judges it. */
function follower(run: Run, record: SettlementRecord | undefined): Omit<Extract<Observed, { kind: 'read' }>, 'kind'> {
  return {
    resource: req(run).resource,
    mayBeBuyer: req(run).provesWallet || (record?.source !== undefined && record.source === req(run).source),
    ...clock(run, record),
  };
}

function clock(run: Run, record: SettlementRecord | undefined): Clock {
  return {
    stale: record ? stale(run, record) : false,
    expired: expired(run),
    waitedOut: waiting(run).elapsed() - run.followSince > FOLLOW_WAIT_MS,
  };
}

const stale = (run: Run, record: SettlementRecord): boolean => run.ports.now().getTime() - Date.parse(record.claimedAt) > STALE_CLAIM_MS;
const expired = (run: Run): boolean => Number(run.auth.validBefore) + VALIDITY_MARGIN_SECONDS < nowSeconds(run);

function newRecord(run: Run): SettlementRecord {
  const { payment, requirement, resource, source } = req(run);
  const a = payment.payload.authorization;
  // An escrowed payment keeps what its capture, void and refund name (verified before the claim: it has a salt).
  const info = requirement.scheme === 'auth-capture' ? paymentInfoOf(requirement, payment) : undefined;
  const escrow = info && run.ports.x402.escrow;
  return {
    ...(info && escrow
      ? { scheme: 'auth-capture' as const, paymentInfo: JSON.stringify(info), paymentHash: escrow.contract.hash(JSON.stringify(info)) }
      : {}),
    pk: run.pk,
    resource,
    payer: a.from.toLowerCase(),
    token: requirement.asset.toLowerCase(),
    amount: requirement.amount,
    state: 'claimed',
    source,
    lease: randomUUID(),
    claimedAt: run.ports.now().toISOString(),
    validBefore: a.validBefore,
  };
}

async function current(run: Run): Promise<SettlementRecord> {
  const record = await run.ports.x402.settlements.get(run.pk);
  if (!record) throw new Error(`settlement ${run.pk} vanished`);
  return record;
}

/**
 * The chain's view of the payer, read, and the relayer's call prepared: reads only. The read's
 * promise is marked handled, as a refusal may leave it unread; a failure still reaches the `await`
 * that reads it (the relayer's preparation never fails: what it could not read is read again).
 */
function readAhead(run: Run): Ahead {
  const startedAt = Date.now();
  const funds = run.ports.x402.relayer.fundsAhead(run.auth.token, run.auth.from, run.auth.nonce);
  funds.catch(() => undefined);
  return { funds, call: run.ports.x402.relayer.prepare(run.auth.token, req(run).payment), startedAt };
}

/** x402's reason for a payer whose balance is short of the price. */
const INSUFFICIENT_BALANCE = 'invalid_exact_evm_insufficient_balance';

/**
 * x402's verification (with the payer's funds read beside it), then the payment identifier: an
 * observation, or the record a parallel request claimed meanwhile (followed instead).
 */
async function verify(run: Run): Promise<Observed | { record: SettlementRecord }> {
  const { x402 } = run.ports;
  const { payment, requirement } = req(run);
  run.ahead = readAhead(run);
  const verdict = await x402.verifier.verify(payment, requirement);
  if (!verdict.ok) {
    // A parallel request may have claimed and settled it meanwhile (its nonce is then used on chain): follow that one.
    const meanwhile = await x402.settlements.get(run.pk);
    if (meanwhile) return { record: meanwhile };
    return { kind: 'verified', ok: false, refusal: { reason: verdict.reason, message: verdictSentence(verdict, run), retry: false } };
  }
  const id = x402.paymentIds.idOf(payment);
  if (id === undefined) return { kind: 'verified', ok: true };
  if (id === 'invalid')
    return {
      kind: 'verified',
      ok: false,
      refusal: {
        reason: 'invalid_payload',
        message: 'The payment-identifier extension is malformed: its id must be 16–128 letters, digits, - or _.',
        retry: false,
      },
    };
  // x402's payment-identifier: the same id for the same payment answers the first outcome, never a second charge (I6).
  const r = requirement;
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([payment.resource?.url, r.scheme, r.network, r.asset.toLowerCase(), r.amount, r.payTo.toLowerCase()]))
    .digest('hex');
  const seen = await x402.settlements.rememberPaymentId({
    payer: run.auth.from.toLowerCase(),
    id,
    fingerprint,
    settlement: run.pk,
    expiresAt: nowSeconds(run) + PAYMENT_ID_SECONDS,
  });
  if (seen.first || seen.existing.settlement === run.pk) return { kind: 'verified', ok: true };
  if (seen.existing.fingerprint !== fingerprint) return { kind: 'verified', ok: false, reusedId: id };
  return { kind: 'verified', ok: true, repeats: seen.existing.settlement };
}

/**
 * One sentence a buyer can act on: a short balance says so with the amounts; any other reason keeps
 * x402's first line only (a library's message may carry a whole revert dump).
 */
function verdictSentence(verdict: { reason: string; message?: string | undefined }, run: Run): string {
  if (verdict.reason === INSUFFICIENT_BALANCE)
    return `${run.auth.from} holds less than ${formatAtomic(BigInt(req(run).requirement.amount))} ${req(run).requirement.extra.name} on ${run.ports.config.network.label}, the price of ${req(run).resource}: add it to that wallet, then pay again.`;
  const detail = (verdict.message ?? verdict.reason).split('\n')[0]!.slice(0, 200);
  return `The signed authorization does not pay for ${req(run).resource}: ${detail}.`;
}

/**
 * One settlement per payer and token in flight (I1), taken before the funds are judged, so the
 * balance that decides is one no other settlement of this payer is spending. A busy hold whose
 * holder has ended is released and tried again; one held for the same resource (in either token)
 * is the payer's earlier payment (I6).
 */
async function hold(run: Run, record: SettlementRecord): Promise<Observed> {
  const { settlements } = run.ports.x402;
  const a = run.auth;
  const now = nowSeconds(run);
  const h = holdOf(record);
  let held = await settlements.hold(h, now);
  if (held.kind === 'busy' && (await releaseEnded(run, h, record.pk))) held = await settlements.hold(h, now);
  if (held.kind === 'busy') {
    const earlier = await inFlightOf(run, h, record.pk);
    if (earlier && earlier.resource === record.resource) return { kind: 'hold', outcome: 'busy', earlier };
    // Nothing holds it any more: its holder was released between the two reads. Held again (and its end read below).
    if (!earlier) held = await settlements.hold(h, now);
  }
  if (held.kind === 'busy') {
    return {
      kind: 'hold',
      outcome: 'busy',
      refusal: {
        reason: 'payer_settlement_in_flight',
        message: `Another settlement of ${a.from} is in flight; the relayer sends one at a time per wallet, so nothing was sent. Sign a new authorization once it is mined (a few seconds).`,
        retry: true,
        retryAfter: 2,
      },
    };
  }
  if (held.kind === 'cooling') {
    const until = new Date(held.until * 1000).toISOString();
    return {
      kind: 'hold',
      outcome: 'cooling',
      coolingUntil: held.until,
      refusal: {
        reason: 'payer_cooling_down',
        message: `A transfer the relayer submitted for ${a.from} reverted because its funds left first; signed authorizations from it are refused until ${until}.`,
        retry: false,
        details: { until },
      },
    };
  }
  // The payer's settlement for this resource that ended settled moments ago is its purchase (I6): its
  // hold is released beside the ledger claim of its sale, so this request's owner check may have read
  // the ledger before that claim; answered with it, never sent again. One voided or refunded bought nothing.
  // The note is written only for a transfer mined successfully, and beside the record's own end (which
  // waits for the gas's price): a record still `signed` is that sale too, its end not yet written.
  const last = held.lastSettled;
  if (last && last.pk !== record.pk && last.resource === record.resource && run.ports.now().getTime() - last.at <= SETTLED_RECENTLY_MS) {
    const earlier = await settlements.get(last.pk);
    if ((earlier?.state === 'settled' || earlier?.state === 'signed') && !UNSOLD_STAGES.has(earlier.escrowStage ?? 'authorized'))
      return { kind: 'hold', outcome: 'held', earlier };
  }
  // The same resource paid in another token is still the same purchase (I6 is per payer and resource):
  // the hold's own write named the payer's other settlements in flight, so this costs no read unless there are some.
  for (const pk of held.otherTokens) {
    const other = await settlements.get(pk);
    if (other && (other.state === 'claimed' || other.state === 'signed') && other.resource === record.resource)
      return { kind: 'hold', outcome: 'held', earlier: other };
  }
  // Read before this hold by a request that started while an earlier settlement of the payer was in
  // flight: read again, and the call prepared again, so neither outlives a hold.
  if (!run.ahead || (held.releasedAt !== undefined && held.releasedAt >= run.ahead.startedAt)) run.ahead = readAhead(run);
  return { kind: 'hold', outcome: 'held' };
}

/** The payer's funds at the pending block, judged under the hold. */
async function readFunds(run: Run): Promise<Observed> {
  const a = req(run).payment.payload.authorization;
  const funds = await (run.ahead ?? readAhead(run)).funds;
  const problem = judgeFunds(funds, a, nowSeconds(run));
  const hook = req(run).beforeSend !== undefined;
  if (problem?.kind === 'not_yet_valid')
    return {
      kind: 'funds',
      problem: 'not_yet_valid',
      hook,
      refusal: {
        reason: 'invalid_exact_evm_payload_authorization_valid_after',
        message: 'The authorization is not valid yet (validAfter).',
        retry: true,
        retryAfter: 2,
      },
    };
  if (problem) return { kind: 'funds', problem: problem.kind, hook };
  if (pendingShortfall(funds, a.value))
    return {
      kind: 'funds',
      problem: 'pending_short',
      hook,
      refusal: {
        reason: 'payer_funds_pending',
        message: `A transfer from ${a.from} waiting to be mined leaves too little for this one; nothing was sent. Sign a new authorization once it is mined.`,
        retry: true,
        retryAfter: 2,
      },
    };
  return { kind: 'funds', problem: undefined, hook };
}

/** The settlement of the payer's token in flight other than `except`, if one is (the hold says which). */
async function inFlightOf(run: Run, hold: FundsHold, except: string): Promise<SettlementRecord | undefined> {
  for (const other of await run.ports.x402.settlements.holds(hold.token, hold.payer)) {
    if (other.pk === except) continue;
    const record = await run.ports.x402.settlements.get(other.pk);
    if (record) return record;
  }
  return undefined;
}

/**
 * Releases the holds on a payer's token whose settlements have ended (a request that died after
 * sending, a settlement abandoned): true when one was, so a hold refused for them is tried again.
 */
async function releaseEnded(run: Run, hold: FundsHold, except: string): Promise<boolean> {
  const now = nowSeconds(run);
  let released = false;
  for (const other of await run.ports.x402.settlements.holds(hold.token, hold.payer)) {
    if (other.pk === except) continue;
    const record = await run.ports.x402.settlements.get(other.pk);
    if (holdEnded(record, now)) {
      // A revert's writer may not have released its hold yet: the cool-down goes with this release
      // too, or the payer's next transfer would slip in between its end and its release.
      const coolUntil = revertCoolUntil(record, run.ports.config.relayerRevertCooldownSeconds);
      await run.ports.x402.settlements.release(other, {
        ...(coolUntil === undefined ? {} : { coolUntil }),
        // A settled one's release notes it, as its own writer's would have (I6).
        ...(record?.state === 'settled'
          ? { settled: { resource: record.resource, at: Date.parse(record.finishedAt ?? record.claimedAt) } }
          : {}),
      });
      released = true;
    }
  }
  return released;
}

/** What `next` decided, as the resource server reads it. */
async function answer(decided: Decided, record: SettlementRecord | undefined, run: Run): Promise<Settled> {
  switch (decided.kind) {
    case 'deliver': {
      const r = record!;
      const transfer = (r.transferTx ?? r.txHash)!;
      return {
        kind: 'settled',
        transfer,
        payer: r.payer,
        // The payer is proven by the authorization's signature, which only the holder of the claim
        // presented before it was public; anyone else is a replay and proves itself.
        claimant: r.source !== undefined && r.source === req(run).source,
        earlier: false,
        // No second read of what the relayer's receipt already says (status, logs, block): one receipt is enough.
        receipt: run.mined && transfer === r.txHash ? run.mined : undefined,
        bookkeeping: run.bookkeeping,
        // Paid into the escrow: the resource server delivers, then captures (or voids) it.
        ...(r.scheme === 'auth-capture' ? { escrow: escrowOf(r) } : {}),
      };
    }
    case 'unmined':
      return { kind: 'unmined', transaction: record!.txHash!, payer: record!.payer, key: run.pk };
    case 'failed': {
      const tx = record?.txHash;
      return {
        kind: 'failed',
        failure: record?.failure ?? 'transaction_failed',
        payer: record?.payer ?? '',
        ...(tx ? { transaction: tx } : {}),
      };
    }
    case 'refused':
      return refused(decided.refusal);
    case 'consumed':
      return { kind: 'consumed', payer: record!.payer, resource: record!.resource };
    case 'not_buyer':
      return { kind: 'not_buyer' };
    case 'payment_id_reused':
      return { kind: 'payment_id_reused', id: decided.id };
    case 'earlier': {
      const earlier = await run.ports.x402.settlements.get(decided.pk);
      if (!earlier)
        return refused({
          reason: 'earlier_payment_failed',
          message: 'The first payment under this payment identifier was never settled; sign a new payment with a new identifier.',
          retry: false,
        });
      return earlierPayment(earlier, run);
    }
    case 'receipt_missing':
      return { kind: 'pending', message: 'The receipt could not be read yet.' };
  }
}

/**
 * The payer is already paying for this resource with an earlier authorization (I6): a stock x402
 * client signs a new one on every call, so settling this one would charge twice for one resource.
 * The answer is the earlier payment's: settled once it is mined (the caller proved the payer's
 * wallet by its signature), else pending naming its transaction, without a challenge, so no client
 * pays again (docs/PAYMENTS.md).
 */
async function earlierPayment(earlier: SettlementRecord, run: Run): Promise<Settled> {
  const until = waiting(run).elapsed() + EARLIER_SIGN_WAIT_MS;
  while (earlier.state === 'claimed' && waiting(run).elapsed() < until) {
    await waiting(run).sleep(FOLLOW_POLL_MS);
    earlier = (await run.ports.x402.settlements.get(earlier.pk)) ?? { ...earlier, state: 'failed', failure: 'abandoned' };
  }
  const tx = earlier.transferTx ?? earlier.txHash;
  const sent = tx ? { transaction: tx, payer: earlier.payer } : undefined;
  const failed = (message: string): Settled => refused({ reason: 'earlier_payment_failed', message, retry: true, retryAfter: 1 });
  if (earlier.state === 'failed')
    return failed(
      `An earlier payment of ${earlier.payer} for this resource ended without settling (${earlier.failure ?? 'failed'}); this authorization was not sent. Sign a new one.`,
    );
  if (earlier.state === 'claimed' || !tx)
    return {
      kind: 'pending',
      message: `An earlier payment of ${earlier.payer} for this resource is being settled; this authorization was not sent and nothing more is charged. Send the request again in a few seconds.`,
      sent,
    };
  let mined: RelayedReceipt | undefined;
  if (earlier.state === 'signed') {
    mined = await run.ports.x402.relayer.receipt(tx, RECEIPT_WAIT_MS);
    if (!mined)
      return {
        kind: 'pending',
        message: `An earlier payment of ${earlier.payer} for this resource, transaction ${tx}, is not mined yet; this authorization was not sent and nothing more is charged. Send the request again shortly: the pack comes once it is mined.`,
        sent,
      };
    if (mined.status !== 'success')
      return failed(
        `An earlier payment of ${earlier.payer} for this resource, transaction ${tx}, reverted; this authorization was not sent. Sign a new one.`,
      );
  }
  // Mined: the earlier transfer is this payer's purchase. The earlier settlement is ended beside the
  // resource server's claim (once, whoever writes it first), freeing the payer's hold.
  return {
    kind: 'settled',
    transfer: tx,
    payer: earlier.payer,
    claimant: true,
    earlier: true,
    receipt: mined,
    bookkeeping: mined ? recordSettled(run.ports.x402, run.ports.config, earlier, mined, run.ports.now()) : undefined,
    ...(earlier.scheme === 'auth-capture' ? { escrow: escrowOf(earlier) } : {}),
  };
}

/**
 * Records an authorization the resource server answered without settling it (an owner's signed
 * payment, which got its wallet the resource free) as ended, for every resource (I4): one
 * conditional write under the key and condition a claim contends for, so it is either consumed or
 * settled, never both. False when a record was there first (a copy of the header, or a settlement).
 */
export async function consumeUnsettled(
  payment: SignedPayment,
  requirement: Requirement,
  resource: string,
  ports: Pick<FacilitatorPorts, 'x402' | 'now'>,
): Promise<{ consumed: boolean }> {
  const a = payment.payload.authorization;
  const at = ports.now().toISOString();
  return ports.x402.settlements.consume({
    pk: settlementKey(payment, requirement),
    resource,
    payer: a.from.toLowerCase(),
    token: requirement.asset.toLowerCase(),
    amount: requirement.amount,
    state: 'failed',
    failure: CONSUMED,
    lease: '',
    claimedAt: at,
    finishedAt: at,
    validBefore: a.validBefore,
    expiresAt: consumedExpiry(a.validBefore),
  });
}
