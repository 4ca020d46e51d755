/**
 * x402 v2's standard flow: a client signs an EIP-3009 authorization for the challenge in
 * `PAYMENT-REQUIRED` and sends the same request again with it in `PAYMENT-SIGNATURE`; the
 * service is its own facilitator and submits the transfer from its relayer. Each authorization
 * is settled once, nothing is sent that the caller's own rules refuse, and the relayer never
 * risks more for a payer than the payer holds (docs/PAYMENTS.md):
 *
 * 1. The settlement record is read first: a known authorization is never verified or sent again.
 * 2. An AP2 mandate, if any, decides whose purchase this is before anything else.
 * 3. New: x402's own verification (signature, receiver, exact value, window, balance by
 *    simulation) against the server's requirement for this resource, never the client's.
 * 4. One conditional write claims the authorization before anything is signed.
 * 5. Before any money moves: the payer's balance and the authorization's state at the pending
 *    block and the hour's revert budget (read beside step 3), one conditional hold of the value
 *    on the payer's own item (at most its balance in flight, never while it cools down after a
 *    revert), and the mandate's constraints and spend. A refusal here leaves nothing claimed or
 *    held.
 * 6. The relayer signs the call (its gas and fees read beside step 3 too); its hash and raw bytes
 *    are stored (while the claim holds) before it is broadcast, so a retry re-sends that very
 *    transaction, never a second one.
 * 7. The receipt, waited for within the request's budget; then the ledger row through the same
 *    claim as a transfer's txHash (`claimPayment`, relayed), and the unlock. A reverted call
 *    whose authorization was used anyway (someone had the same authorization mined first) is
 *    the buyer's payment all the same: the transfer that used it is claimed for them.
 *
 * A duplicate of a claimed authorization (a retry, or 20 parallel sends of one header) waits for
 * the request that holds the claim and gets the same answer; a slow receipt goes to the
 * confirmation loop. The header becomes public once the transfer is on chain, so sending it
 * again proves nothing: a replay is served only to its buyer, by the ledger's own rule
 * (`isBuyer`: the caller that claimed, within the retry window, or a wallet signature).
 */
import { createHash, randomUUID } from 'node:crypto';
import { formatAtomic } from '../contract/chain';
import { links } from '../contract/links';
import { METRICS } from '../contract/metrics';
import { requireSkill } from '../catalog';
import { AppError } from '../platform/errors';
import { PAYMENT_ERRORS } from './errors';
import { countMetric } from '../platform/metrics';
import { same } from './core/verify-transfer';
import { skillProduct } from './core/product';
import {
  holdEnded,
  holdOf,
  judgeFunds,
  pendingShortfall,
  revertCoolUntil,
  VALIDITY_MARGIN_SECONDS,
  alongside,
  gasOf,
  gasUsdOf,
  lostGas,
  recordReverted,
  recordSettled,
  settlementKey,
  CONSUMED,
  consumedExpiry,
  PAYMENT_IN_FLIGHT,
  validBeforeTooFar,
} from '../facilitator';
import { challengeFor } from './challenge-answer';
import { callerId, claimPayment, deliverClaim, provenSigner, type Caller, type PurchasePolicy } from './unlock';
import { paymentRefused } from './refusals';
import { settlementHeader, type Settlement } from './unlock-response';
import type {
  FundsAhead,
  FundsHold,
  PaymentsPorts,
  PreparedCall,
  RelayedReceipt,
  Requirement,
  SettlementRecord,
  SignedPayment,
  X402Settlement,
} from './ports';
import type { CatalogEntry } from '../contract/catalog-data';

/** How long a request waits for its transfer's receipt before handing it to the confirmation loop. */
export const RECEIPT_WAIT_MS = 12_000;
/** How long a duplicate waits for the request that holds the claim. */
const FOLLOW_WAIT_MS = 20_000;
const FOLLOW_POLL_MS = 150;
/** A claim that was never signed after this long belongs to a request that died: it is taken over. */
const STALE_CLAIM_MS = 30_000;

/** x402 v2's `PAYMENT-RESPONSE` of a settlement that did not (yet) unlock: it rides on the refusal, its network by CAIP-2. */
const paymentResponse = (
  s: { success: boolean; transaction: string; payer: string; errorReason?: string },
  ctx: Ctx,
): Record<string, string> => ({
  'payment-response': settlementHeader(s, ctx.ports.config.network.caip2),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The mandate's refusal, as POST /api/pay answers it: nothing was claimed, held or sent. */
const mandateRejected = (message: string): AppError =>
  PAYMENT_ERRORS.AP2_MANDATE_REJECTED({
    message,
    tip: 'Fix the mandate (GET /api/mandates?wallet=) or omit X-AP2-MANDATE, then sign a new authorization; nothing was held or transferred.',
  });

/** A settled authorization's unlock: the pack, and the settlement as data (the route function writes its headers). */
type Answer = { body: unknown; settlement: Settlement };

/** What each final failure of a settlement means for the buyer. */
const FAILURES: Readonly<Record<string, string>> = {
  transaction_failed: 'the transfer reverted on chain (the funds left first), so nothing was transferred; sign a new one',
  authorization_expired: 'it expired (validBefore) before it could be sent, so nothing was transferred; sign a new one',
  invalid_exact_evm_insufficient_balance:
    "the payer's balance at the pending block does not cover it, so nothing was sent; sign a new one once funded",
  invalid_exact_evm_transaction_simulation_failed: 'the chain says the transfer would revert now, so nothing was sent; sign a new one',
  authorization_used_elsewhere:
    'it was used or cancelled on chain by a transaction this service did not send and cannot find. If that transfer paid for this skill, claim it with POST /api/pay signed by the paying wallet (SIGN-IN-WITH-X)',
};

/**
 * Settles a signed payment (x402 v2's `PaymentPayload`, decoded and shape-checked once by the
 * surface that received it: `signedPaymentFor`) for a skill and unlocks it: the same body as POST /api/pay with
 * a txHash, and the settlement as data (the route function answers it with `PAYMENT-RESPONSE` too).
 * Every refusal is the API's error with the spec's codes. Reached through the payments face, which
 * loads this module on first use (GET or POST /api/pay, MCP, A2A with a signed authorization).
 */
export async function unlockWithAuthorization(
  payment: SignedPayment,
  skill: string | undefined,
  ports: PaymentsPorts,
  baseUrl: string,
  caller: Caller = {},
): Promise<Answer> {
  const challenge = challengeFor(skill, ports, baseUrl);
  const entry = requireSkill(ports.catalog, skill);
  /** The challenge again, with x402's `error` set: a v2 client reads why from PAYMENT-REQUIRED. */
  const challengeHeaders = (error: string): Record<string, string> => ({
    'payment-required': ports.paymentRequiredHeader({ ...challenge.v2, error }),
    'x-payment-required': challenge.encoded,
  });
  const refuse: Refuse = (reason, message, opts = {}) =>
    paymentRefused(reason, message, { ...challengeHeaders(reason), ...opts.headers }, opts.retry ?? false, opts.details);

  const x402 = ports.x402;
  if (!x402) {
    throw refuse(
      'settlement_unavailable',
      'This deployment has no relayer to settle signed authorizations; pay by transfer and POST /api/pay with X-PAYMENT.',
    );
  }
  const requirement = challenge.v2.accepts.find(
    (r) => r.scheme === payment.accepted.scheme && r.network === payment.accepted.network && same(r.asset, payment.accepted.asset),
  );
  if (!requirement) {
    throw refuse(
      'unsupported_scheme',
      'The payment names a scheme, network or asset this resource does not accept (see PAYMENT-REQUIRED).',
    );
  }
  // x402 v2 names the resource a payment is for; the signature does not cover it, so a payment
  // without one is refused rather than taken for whichever resource it was sent to (I4).
  if (payment.resource?.url === undefined) {
    throw refuse('invalid_payload', 'The payment names no resource (x402 v2 `resource.url`); send the one PAYMENT-REQUIRED gives.');
  }
  if (payment.resource.url !== challenge.v2.resource.url) {
    throw refuse('invalid_payload', `The payment was made out for ${payment.resource.url}, not for this resource.`);
  }
  const validBefore = payment.payload.authorization.validBefore;
  if (validBeforeTooFar(validBefore, Math.floor(ports.now().getTime() / 1000), requirement.maxTimeoutSeconds)) {
    // Refused before anything is read or stored: a life the challenge does not allow (I7).
    throw refuse(
      'invalid_exact_evm_payload_authorization_valid_before',
      `The authorization is valid until ${validBefore}, further ahead than this challenge's ${requirement.maxTimeoutSeconds} s allow; sign one that ends within them.`,
    );
  }
  const pk = settlementKey(payment, requirement);
  const source = callerId(caller.sourceIp);
  const resource = links(baseUrl).skill(entry.id).challenge;
  const ctx: Ctx = { ports, x402, baseUrl, caller, entry, payment, requirement, pk, source, refuse, resource };

  // Read before anything is verified: a replayed authorization (public once mined) costs no RPC. The
  // owner check may have read it already in this request; the claim below is what decides anyway.
  const known = caller.settlementRead?.pk === pk ? caller.settlementRead.record : await x402.settlements.get(pk);
  if (known) return follow(known, ctx);

  // A mandate is decided first: whose purchase this is. The authorization's own EIP-712 signature
  // proves its `from` (the wallet); a mandate's agent proves itself with SIGN-IN-WITH-X on this
  // skill's resource (no transaction can be named yet: none exists before settlement).
  if (caller.policy) ctx.policy = await mandateFor(caller.policy, ctx);

  // The payer's funds and the hour's revert budget are read, and the relayer's call prepared,
  // beside x402's verification, not after the claim: reads only, and round trips (RPC and
  // DynamoDB) off each purchase's path. Wasted only when the verification or the claim refuses;
  // what they say is acted on after the claim.
  const ahead = readAhead(ctx);
  const verdict = await x402.verifier.verify(payment, requirement);
  if (!verdict.ok) {
    // A parallel request may have claimed and settled it meanwhile (its nonce is then used on chain): follow that one.
    const settledMeanwhile = await x402.settlements.get(pk);
    if (settledMeanwhile) return follow(settledMeanwhile, ctx);
    throw refuse(verdict.reason, verdictSentence(verdict, payment, requirement, entry.id, ports.config.network.label));
  }
  // x402's payment-identifier: the same id for the same payment answers the first outcome, never a second charge (I6).
  const replayed = await samePaymentId(ctx);
  if (replayed) return replayed;
  const record: SettlementRecord = {
    pk,
    skill: entry.id,
    payer: payment.payload.authorization.from.toLowerCase(),
    token: requirement.asset.toLowerCase(),
    amount: requirement.amount,
    state: 'claimed',
    source,
    lease: randomUUID(),
    claimedAt: ports.now().toISOString(),
    validBefore: payment.payload.authorization.validBefore,
  };
  const claim = await x402.settlements.claim(record);
  if (!claim.claimed) return follow(claim.existing, ctx);
  return submit(record, ctx, ahead);
}

/** How long a payer's payment identifier is remembered: a day, as an Idempotency-Key is (docs/PAYMENTS.md). */
const PAYMENT_ID_SECONDS = 86_400;

/**
 * x402's payment-identifier extension, once the authorization's signature has proven its payer:
 * the first payment under a payer's id is remembered with what it paid for; another payment under
 * the same id and for the same thing (a client retrying with a fresh authorization) is ended unsent
 * and answered as the first; under the same id for something else, 409. Undefined: go on and settle.
 */
async function samePaymentId(ctx: Ctx): Promise<Answer | undefined> {
  const id = ctx.x402.paymentIds.idOf(ctx.payment);
  if (id === undefined) return undefined;
  if (id === 'invalid')
    throw ctx.refuse('invalid_payload', 'The payment-identifier extension is malformed: its id must be 16–128 letters, digits, - or _.');
  const payer = ctx.payment.payload.authorization.from.toLowerCase();
  const r = ctx.requirement;
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([ctx.payment.resource?.url, r.scheme, r.network, r.asset.toLowerCase(), r.amount, r.payTo.toLowerCase()]))
    .digest('hex');
  const seen = await ctx.x402.settlements.rememberPaymentId({
    payer,
    id,
    fingerprint,
    settlement: ctx.pk,
    expiresAt: nowSeconds(ctx) + PAYMENT_ID_SECONDS,
  });
  if (seen.first || seen.existing.settlement === ctx.pk) return undefined;
  if (seen.existing.fingerprint !== fingerprint) {
    throw PAYMENT_ERRORS.PAYMENT_IDENTIFIER_REUSED({ details: { payment_identifier: id } });
  }
  // This authorization is never sent, by anyone (I4): one record, naming the payment it repeats.
  const at = ctx.ports.now().toISOString();
  const ended = await ctx.x402.settlements.consume({
    pk: ctx.pk,
    skill: ctx.entry.id,
    payer,
    token: r.asset.toLowerCase(),
    amount: r.amount,
    state: 'failed',
    failure: PAYMENT_IN_FLIGHT,
    pendingFor: seen.existing.settlement,
    lease: '',
    claimedAt: at,
    finishedAt: at,
    validBefore: ctx.payment.payload.authorization.validBefore,
    expiresAt: consumedExpiry(ctx.payment.payload.authorization.validBefore),
  });
  if (!ended.consumed) return follow(ended.existing, ctx);
  const first = await ctx.x402.settlements.get(seen.existing.settlement);
  if (!first) {
    throw ctx.refuse(
      'earlier_payment_failed',
      'The first payment under this payment identifier was never settled; sign a new payment with a new identifier.',
    );
  }
  return earlierPayment(first, ctx);
}

/**
 * What `submit` decides on before anything is sent (the payer's funds at the pending block), read
 * from `startedAt` (epoch ms), and the relayer's call being prepared (its gas and fees).
 */
type Ahead = { funds: Promise<FundsAhead>; call: PreparedCall; startedAt: number };

/**
 * The chain's view of the payer, read, and the relayer's call prepared, beside x402's verification:
 * reads only. The read's promise is marked handled, as a refusal may leave it unread; a failure
 * still reaches the `await` that reads it (the relayer's preparation never fails: what it could not
 * read is read again). A read made before the payer's last hold was released is made again once
 * this settlement holds (`submit`), so no decision rests on a balance an earlier transfer has spent.
 */
function readAhead(ctx: Ctx): Ahead {
  const a = ctx.payment.payload.authorization;
  const startedAt = Date.now();
  const funds = ctx.x402.relayer.fundsAhead(ctx.requirement.asset, a.from, a.nonce);
  funds.catch(() => undefined);
  return { funds, call: ctx.x402.relayer.prepare(ctx.requirement.asset, ctx.payment), startedAt };
}

/** x402's reason for a payer whose balance is short of the price. */
const INSUFFICIENT_BALANCE = 'invalid_exact_evm_insufficient_balance';

/**
 * One sentence a buyer can act on: a short balance says so with the amounts; any other reason keeps
 * x402's first line only (a library's message may carry a whole revert dump).
 */
function verdictSentence(
  verdict: { reason: string; message?: string | undefined },
  payment: SignedPayment,
  requirement: Requirement,
  skill: string,
  chain: string,
): string {
  if (verdict.reason === INSUFFICIENT_BALANCE)
    return `${payment.payload.authorization.from} holds less than ${formatAtomic(BigInt(requirement.amount))} ${requirement.extra.name} on ${chain}, the price of ${skill}: add it to that wallet, then pay again.`;
  const detail = (verdict.message ?? verdict.reason).split('\n')[0]!.slice(0, 200);
  return `The signed authorization does not pay for ${skill}: ${detail}.`;
}

type Refuse = (
  reason: string,
  message: string,
  opts?: { retry?: boolean; headers?: Record<string, string>; details?: Record<string, unknown> },
) => AppError;

interface Ctx {
  ports: PaymentsPorts;
  x402: X402Settlement;
  baseUrl: string;
  caller: Caller;
  entry: CatalogEntry;
  payment: SignedPayment;
  requirement: Requirement;
  pk: string;
  source: string | undefined;
  refuse: Refuse;
  /** The skill's x402 resource URL: what a wallet signature names as `uri`. */
  resource: string;
  /** The caller's AP2 mandate, once it has accepted whose purchase this is. */
  policy?: PurchasePolicy | undefined;
}

/** Whose purchase an authorization is under a mandate: its wallet's, signed by the wallet itself or by the mandate's agent. */
async function mandateFor(policy: PurchasePolicy, ctx: Ctx): Promise<PurchasePolicy> {
  const from = ctx.payment.payload.authorization.from;
  const signer = ctx.caller.signInWithX
    ? await provenSigner(ctx.caller.signInWithX, ctx.ports, ctx.baseUrl, undefined, ctx.resource)
    : from;
  const payer = policy.payerFor(signer);
  if (!same(payer, from)) throw mandateRejected("AP2 mandate rejected: the authorization is not from the mandate's wallet.");
  return policy;
}

const nowSeconds = (ctx: Ctx): number => Math.floor(ctx.ports.now().getTime() / 1000);

/**
 * The request that holds the claim: everything that may refuse the purchase is decided here,
 * before any money moves (the payer's one hold, its funds at the pending block read under that
 * hold, the mandate); then sign, store, broadcast, and wait for the receipt.
 */
async function submit(record: SettlementRecord, ctx: Ctx, ahead: Ahead = readAhead(ctx)): Promise<Answer> {
  const { settlements, relayer } = ctx.x402;
  const a = ctx.payment.payload.authorization;
  const now = nowSeconds(ctx);
  /**
   * Refused before anything was sent: the authorization ends here, in a record that expires with
   * it (I4: whichever path saw it, once; a copy of the header finds it ended), and the payer signs a
   * new one.
   */
  const giveUp = async (error: AppError): Promise<never> => {
    await settlements.finish(record.pk, {
      state: 'failed',
      failure: String(error.details?.['reason'] ?? error.code),
      finishedAt: ctx.ports.now().toISOString(),
      expiresAt: consumedExpiry(a.validBefore),
    });
    countMetric(METRICS.settlementsRefused, { Reason: String(error.details?.['reason'] ?? error.code) });
    throw error;
  };

  // One settlement per payer and token in flight (I1), taken before the funds are judged, so the
  // balance that decides is one no other settlement of this payer is spending.
  const hold = holdOf(record);
  let held = await settlements.hold(hold, now);
  if (held.kind === 'busy' && (await releaseEnded(ctx, hold.token, hold.payer, record.pk))) held = await settlements.hold(hold, now);
  /** Already paying for this very resource (I6): this authorization is never sent; the answer is the earlier one's. */
  const payingAlready = async (earlier: SettlementRecord): Promise<Answer> => {
    await settlements.finish(record.pk, {
      state: 'failed',
      failure: PAYMENT_IN_FLIGHT,
      pendingFor: earlier.pk,
      finishedAt: ctx.ports.now().toISOString(),
      expiresAt: consumedExpiry(a.validBefore),
    });
    return earlierPayment(earlier, ctx);
  };
  if (held.kind === 'busy') {
    const earlier = await inFlightOf(ctx, hold, record.pk);
    if (earlier && earlier.skill === record.skill) return payingAlready(earlier);
    return giveUp(
      ctx.refuse(
        'payer_settlement_in_flight',
        `Another settlement of ${a.from} is in flight; the relayer sends one at a time per wallet, so nothing was sent. Sign a new authorization once it is mined (a few seconds).`,
        { retry: true, headers: { 'retry-after': '2' } },
      ),
    );
  }
  if (held.kind === 'cooling') {
    const until = new Date(held.until * 1000).toISOString();
    return giveUp(
      ctx.refuse(
        'payer_cooling_down',
        `A transfer the relayer submitted for ${a.from} reverted because its funds left first; signed authorizations from it are refused until ${until}. Pay by transfer (POST /api/pay with X-PAYMENT), or wait.`,
        { details: { until } },
      ),
    );
  }
  // The same resource paid in another token is still the same purchase (I6 is per payer and resource):
  // the hold's own write named the payer's other settlements in flight, so this costs no read unless there are some.
  if (held.kind === 'held') {
    for (const pk of held.otherTokens) {
      const other = await settlements.get(pk);
      if (other && (other.state === 'claimed' || other.state === 'signed') && other.skill === record.skill) {
        await settlements.release(hold);
        return payingAlready(other);
      }
    }
  }
  /** Ended under the hold: it is released with the refusal. */
  const refuseHeld = async (error: AppError): Promise<never> => {
    await settlements.release(hold);
    return giveUp(error);
  };

  // Read before this hold by a request that started while an earlier settlement of the payer was in
  // flight: read again, and the call prepared again, so neither outlives a hold (finding 4).
  const stale = held.releasedAt !== undefined && held.releasedAt >= ahead.startedAt;
  const fresh = stale ? readAhead(ctx) : ahead;
  const funds = await fresh.funds;
  const problem = judgeFunds(funds, a, now);
  if (problem?.kind === 'used') return usedElsewhere(record, ctx);
  if (problem?.kind === 'expired') return end(record, ctx, { failure: 'authorization_expired' });
  if (problem?.kind === 'not_yet_valid')
    return refuseHeld(
      ctx.refuse('invalid_exact_evm_payload_authorization_valid_after', 'The authorization is not valid yet (validAfter).', {
        retry: true,
        headers: { 'retry-after': '2' },
      }),
    );
  if (problem?.kind === 'insufficient') return end(record, ctx, { failure: 'invalid_exact_evm_insufficient_balance' });
  if (pendingShortfall(funds, a.value)) {
    return refuseHeld(
      ctx.refuse(
        'payer_funds_pending',
        `A transfer from ${a.from} waiting to be mined leaves too little for this one; nothing was sent. Sign a new authorization once it is mined.`,
        { retry: true, headers: { 'retry-after': '2' } },
      ),
    );
  }

  if (ctx.policy) {
    // The mandate's constraints and spend, counted once per authorization, before the money moves.
    const admission = await ctx.policy.admit({
      txHash: record.pk,
      payer: a.from,
      amount: BigInt(a.value),
      product: skillProduct(ctx.entry),
    });
    if (!admission.ok) return refuseHeld(mandateRejected(admission.message));
  }

  const sent = await relayer.submit(
    ctx.requirement.asset,
    ctx.payment,
    (signed, replaces) =>
      replaces === undefined ? settlements.signed(record.pk, record.lease, signed) : settlements.replaced(record.pk, replaces, signed),
    fresh.call,
  );
  // Another request took the claim over while this one was slow: it settles; this one follows it.
  if (sent.kind === 'declined') return follow(await current(ctx), ctx);
  if (sent.kind === 'would_revert') return end(record, ctx, { failure: 'invalid_exact_evm_transaction_simulation_failed' });
  return conclude({ ...record, state: 'signed', txHash: sent.txHash, raw: sent.raw }, ctx);
}

/**
 * Ends a settlement that never sent anything (or whose transaction can no longer succeed) as a
 * final failure: the authorization cannot settle, the buyer is told so and signs a new one.
 */
async function end(record: SettlementRecord, ctx: Ctx, outcome: { failure: string }): Promise<Answer> {
  await ctx.x402.settlements.finish(record.pk, { state: 'failed', failure: outcome.failure, finishedAt: ctx.ports.now().toISOString() });
  await ctx.x402.settlements.release(holdOf(record));
  return conclude({ ...record, state: 'failed', failure: outcome.failure }, ctx);
}

/**
 * The authorization was used on chain by a transaction the relayer did not send: someone copied
 * it (or the relayer's pending call) and had it mined first. The money reached the treasury with
 * the buyer's signature, so the buyer gets the pack: the settlement records that transfer and
 * claims it. Not found yet (still pending, or cancelled by its signer): nothing is decided.
 */
async function usedElsewhere(record: SettlementRecord, ctx: Ctx, receipt?: RelayedReceipt): Promise<Answer> {
  const a = ctx.payment.payload.authorization;
  const other = await ctx.x402.relayer.authorizationTransfer(ctx.requirement.asset, a.from, a.nonce, receipt?.blockNumber);
  if (other && !same(other, record.txHash)) {
    const finishedAt = ctx.ports.now();
    const first = await ctx.x402.settlements.finish(record.pk, {
      state: 'settled',
      transferTx: other.toLowerCase(),
      ...gasOf(receipt),
      ...(await gasUsdFor(ctx, receipt)),
      finishedAt: finishedAt.toISOString(),
    });
    await ctx.x402.settlements.release(holdOf(record));
    // The relayer's own call reverted: its gas was lost all the same (the payer paid, so no cool-down).
    if (first && receipt) await lostGas(ctx.x402, finishedAt, receipt);
    return conclude({ ...record, state: 'settled', transferTx: other.toLowerCase() }, ctx);
  }
  if (receipt) return reverted(record, ctx, receipt, 'authorization_used_elsewhere');
  // Not found: in a block not visible yet, or cancelled by its signer. A fresh claim waits; an old one ends.
  if (ctx.ports.now().getTime() - Date.parse(record.claimedAt) > STALE_CLAIM_MS)
    return end(record, ctx, { failure: 'authorization_used_elsewhere' });
  throw ctx.refuse(
    'settlement_pending',
    'The authorization was used on chain by a transaction that is not visible yet; send the same request again shortly.',
    { retry: true, headers: { 'retry-after': '2' } },
  );
}

/** The gas in US dollars, priced by the configured feed (settlement-end.ts). */
const gasUsdFor = (ctx: Ctx, receipt: RelayedReceipt | undefined) => gasUsdOf(ctx.x402, ctx.ports.config.ethUsdFeed, ctx.pk, receipt);

/**
 * A relayer transaction that reverted and moved nothing: the payer's funds left first (or it
 * cancelled the authorization). Recorded as the loop records it (settlement-end.ts): failed with
 * its gas, the payer cooling down, the gas counted for the hour's alarm.
 */
async function reverted(record: SettlementRecord, ctx: Ctx, receipt: RelayedReceipt, failure: string): Promise<Answer> {
  await recordReverted(ctx.x402, ctx.ports.config, record, receipt, ctx.ports.now(), failure);
  return conclude({ ...record, state: 'failed', failure }, ctx);
}

/** A signed settlement: its receipt, then the ledger claim and the unlock (or the failure, or the loop). */
async function conclude(record: SettlementRecord, ctx: Ctx): Promise<Answer> {
  const txHash = record.txHash;
  const payer = record.payer;
  /** 402 `retry: true`: the transfer is sent but not (deep enough) on chain; the confirmation loop records it. */
  const pending = (message: string, tx: string): AppError => pendingAnswer(ctx, message, { transaction: tx, payer });
  // The relayer's receipt of its transaction, when this request read it: the claim is judged from it.
  let mined: RelayedReceipt | undefined;
  // The settlement's own bookkeeping once mined (its gas, priced; the payer's hold released): it runs
  // beside the ledger claim, which does not depend on it, and is awaited before the answer.
  let bookkeeping: Promise<void> | undefined;
  if (record.state === 'signed') {
    const receipt = await ctx.x402.relayer.receipt(txHash!, RECEIPT_WAIT_MS);
    if (!receipt) {
      // Not mined within the request: the confirmation loop claims it for this caller when it is.
      const scheduled = await ctx.ports.confirmations.schedule({
        network: ctx.ports.config.network.name,
        txHash: txHash!,
        skill: ctx.entry.id,
        relayed: true,
        payer,
        ...(record.source ? { source: record.source } : {}),
        // The loop ends this settlement too once it has decided (settlement-end.ts).
        settlement: ctx.pk,
      });
      throw pending(
        `The transfer ${txHash} was sent and is not mined yet${scheduled === 'started' ? '; it will be recorded when it is' : ''}. Send the same request again shortly.`,
        txHash!,
      );
    }
    if (receipt.status === 'success') {
      // A crash between these writes and the claim leaves `signed` (a retry reads the receipt again)
      // or `settled` (a retry reads the transfer from the chain); either way it claims, and the claim
      // is one conditional write.
      bookkeeping = recordSettled(ctx.x402, ctx.ports.config, record, receipt, ctx.ports.now());
      record = { ...record, state: 'settled' };
      mined = receipt;
    } else {
      // Reverted. If the authorization is used anyway, a copy of it was mined first: the buyer paid.
      const a = ctx.payment.payload.authorization;
      if (await ctx.x402.relayer.authorizationUsed(ctx.requirement.asset, a.from, a.nonce)) return usedElsewhere(record, ctx, receipt);
      return reverted(record, ctx, receipt, 'transaction_failed');
    }
  }
  if (record.state === 'failed') {
    const failure = record.failure ?? 'transaction_failed';
    throw ctx.refuse(
      failure,
      `The authorization could not be settled: ${FAILURES[failure] ?? `it was refused before anything was sent (${failure}), and is never sent now; sign a new one`}.`,
      {
        headers: txHash ? paymentResponse({ success: false, transaction: txHash, payer, errorReason: failure }, ctx) : {},
        ...(txHash ? { details: { transaction: txHash } } : {}),
      },
    );
  }
  // The transfer that moved the money: the relayer's own, or a copy of the authorization mined first.
  const transfer = (record.transferTx ?? txHash)!;
  // The claim of the ledger row: the payer is proven by the authorization's signature, which
  // only the holder of the claim presented before it was public; anyone else is a replay and
  // proves itself (`isBuyer`). A mandate was asked before the money moved, not again here.
  const holder = record.source !== undefined && record.source === ctx.source;
  return claimRelayed(ctx, transfer, holder ? { provenPayer: payer } : { signInWithX: ctx.caller.signInWithX }, {
    bookkeeping,
    // No second read of what the relayer's receipt already says (status, logs, block): one receipt is enough.
    receipt: mined && transfer === txHash ? mined : undefined,
    pending: (message) => pending(message, transfer),
  });
}

/**
 * The ledger claim of a relayed transfer for the skill and its unlock, with the settlement's own
 * bookkeeping beside it (the claim does not depend on it). A claim mined but short of the
 * confirmations required is answered as pending: the confirmation loop (started by the claim)
 * claims it, and nothing is charged twice. `replay` delivers it as a replay whatever the claim says.
 */
async function claimRelayed(
  ctx: Ctx,
  transfer: string,
  claimant: Pick<Caller, 'provenPayer' | 'signInWithX'>,
  opts: {
    bookkeeping?: Promise<void> | undefined;
    receipt?: RelayedReceipt | undefined;
    pending: (message: string) => AppError;
    replay?: boolean;
  },
): Promise<Answer> {
  let claimed: Awaited<ReturnType<typeof claimPayment>>;
  try {
    claimed = await alongside(
      opts.bookkeeping,
      claimPayment(
        { txHash: transfer as `0x${string}`, product: skillProduct(ctx.entry), resource: ctx.resource },
        ctx.ports,
        ctx.baseUrl,
        {
          sourceIp: ctx.caller.sourceIp,
          ...claimant,
          relayed: true,
          ...(opts.receipt ? { relayedReceipt: opts.receipt } : {}),
        },
      ),
    );
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'PAYMENT_VERIFICATION_FAILED' || !e.retry) throw e;
    throw opts.pending(`${e.message} Send the same request again shortly; nothing is charged twice.`);
  }
  const { row, replayed } = claimed;
  const { body } = await deliverClaim(ctx.entry, row, opts.replay ?? replayed, ctx.ports, ctx.baseUrl);
  return { body, settlement: { transaction: row.txHash, payer: row.payer, network: row.network, from: 'authorization' } };
}

/** The settlement of the payer's token in flight other than `except`, if one is (the hold says which). */
async function inFlightOf(ctx: Ctx, hold: FundsHold, except: string): Promise<SettlementRecord | undefined> {
  for (const other of await ctx.x402.settlements.holds(hold.token, hold.payer)) {
    if (other.pk === except) continue;
    const record = await ctx.x402.settlements.get(other.pk);
    if (record) return record;
  }
  return undefined;
}

/** How long an answer for the payer's earlier payment waits for it to be signed, when it is still only claimed. */
const EARLIER_SIGN_WAIT_MS = 3_000;

/**
 * The payer is already paying for this resource with an earlier authorization (I6): a stock x402
 * client signs a new one on every call, so settling this one would charge twice for one pack. The
 * answer is the earlier payment's: its pack once it is mined and claimed (the caller proved the
 * payer's wallet by its signature), else 402 `settlement_pending` naming its transaction, without a
 * challenge, so no client pays again (docs/PAYMENTS.md).
 */
async function earlierPayment(earlier: SettlementRecord, ctx: Ctx): Promise<Answer> {
  const until = Date.now() + EARLIER_SIGN_WAIT_MS;
  while (earlier.state === 'claimed' && Date.now() < until) {
    await sleep(FOLLOW_POLL_MS);
    earlier = (await ctx.x402.settlements.get(earlier.pk)) ?? { ...earlier, state: 'failed', failure: 'abandoned' };
  }
  const tx = earlier.transferTx ?? earlier.txHash;
  const pending = (message: string): AppError => pendingAnswer(ctx, message, tx ? { transaction: tx, payer: earlier.payer } : undefined);
  if (earlier.state === 'failed') {
    throw ctx.refuse(
      'earlier_payment_failed',
      `An earlier payment of ${earlier.payer} for this resource ended without settling (${earlier.failure ?? 'failed'}); this authorization was not sent. Sign a new one.`,
      { retry: true, headers: { 'retry-after': '1' } },
    );
  }
  if (earlier.state === 'claimed' || !tx)
    throw pending(
      `An earlier payment of ${earlier.payer} for this resource is being settled; this authorization was not sent and nothing more is charged. Send the request again in a few seconds.`,
    );
  let mined: RelayedReceipt | undefined;
  if (earlier.state === 'signed') {
    mined = await ctx.x402.relayer.receipt(tx, RECEIPT_WAIT_MS);
    if (!mined)
      throw pending(
        `An earlier payment of ${earlier.payer} for this resource, transaction ${tx}, is not mined yet; this authorization was not sent and nothing more is charged. Send the request again shortly: the pack comes once it is mined.`,
      );
    if (mined.status !== 'success') {
      throw ctx.refuse(
        'earlier_payment_failed',
        `An earlier payment of ${earlier.payer} for this resource, transaction ${tx}, reverted; this authorization was not sent. Sign a new one.`,
        { retry: true, headers: { 'retry-after': '1' } },
      );
    }
  }
  // Mined: the earlier transfer is this payer's purchase; its claim is one conditional write, whoever
  // makes it. The earlier settlement is ended beside it (once, whoever writes it first), freeing the payer's hold.
  const bookkeeping = mined ? recordSettled(ctx.x402, ctx.ports.config, earlier, mined, ctx.ports.now()) : undefined;
  return claimRelayed(ctx, tx, { provenPayer: earlier.payer }, { bookkeeping, receipt: mined, pending, replay: true });
}

/**
 * 402 `settlement_pending`, `retry: true`: a transfer is sent (or being sent) and not settled yet.
 * It names the transaction in PAYMENT-RESPONSE and carries no PAYMENT-REQUIRED: it is no fresh
 * challenge, so a client that pays every challenge it sees does not pay again (docs/PAYMENTS.md).
 */
function pendingAnswer(ctx: Ctx, message: string, sent: { transaction: string; payer: string } | undefined): AppError {
  return paymentRefused(
    'settlement_pending',
    message,
    {
      ...(sent ? paymentResponse({ success: false, ...sent, errorReason: 'settlement_pending' }, ctx) : {}),
      'retry-after': '2',
    },
    true,
    sent ? { transaction: sent.transaction } : {},
  );
}

async function current(ctx: Ctx): Promise<SettlementRecord> {
  const record = await ctx.x402.settlements.get(ctx.pk);
  if (!record) throw new Error(`settlement ${ctx.pk} vanished`);
  return record;
}

/**
 * Releases the holds on a payer's token whose settlements have ended (a request that died after
 * sending, a settlement abandoned): true when one was, so a hold refused for them is tried again.
 */
async function releaseEnded(ctx: Ctx, token: string, payer: string, except: string): Promise<boolean> {
  const now = nowSeconds(ctx);
  let released = false;
  for (const hold of await ctx.x402.settlements.holds(token, payer)) {
    if (hold.pk === except) continue;
    const record = await ctx.x402.settlements.get(hold.pk);
    if (holdEnded(record, now)) {
      // A revert's writer may not have released its hold yet: the cool-down goes with this release
      // too, or the payer's next transfer would slip in between its end and its release.
      const coolUntil = revertCoolUntil(record, ctx.ports.config.relayerRevertCooldownSeconds);
      await ctx.x402.settlements.release(hold, coolUntil === undefined ? {} : { coolUntil });
      released = true;
    }
  }
  return released;
}

/**
 * An authorization already claimed: this request waits for the one that holds the claim, takes
 * over a claim whose request died before signing, or drives a signed transaction to its end
 * (re-sending the same bytes is harmless). Only a caller that may be its buyer waits at all. A
 * settlement whose authorization can no longer run ends as a final failure, never as an
 * endless retry.
 */
async function follow(record: SettlementRecord, ctx: Ctx): Promise<Answer> {
  if (record.failure === CONSUMED) {
    // An owner's signed payment that already got its wallet the pack free: ended, for every resource (I4).
    throw PAYMENT_ERRORS.INVALID_WALLET_SIGNATURE({
      message: `This signed payment already got ${record.payer} the pack of ${record.skill}, which it owns; a copy of it gets nothing and is never settled.`,
      tip: 'Send a new request: your x402 client signs a fresh authorization, or sign in with SIGN-IN-WITH-X.',
    });
  }
  if (record.skill !== ctx.entry.id) {
    throw ctx.refuse('authorization_used', 'This authorization was already used for another resource; sign a new one.');
  }
  const mayBeBuyer = ctx.caller.signInWithX !== undefined || (record.source !== undefined && record.source === ctx.source);
  if (!mayBeBuyer) {
    throw PAYMENT_ERRORS.BUYER_PROOF_REQUIRED({
      message:
        'This authorization has already been presented. Only its buyer can get the pack again: present the license token from the unlock, or a signature by the paying wallet.',
      tip: 'Send header X-LICENSE: <license.token>, or header SIGN-IN-WITH-X signed by the wallet that paid (docs/SECURITY.md).',
    });
  }
  if (record.failure === PAYMENT_IN_FLIGHT && record.pendingFor) {
    // Sent again, this authorization that was never sent answers as the earlier payment it waited for.
    const earlier = await ctx.x402.settlements.get(record.pendingFor);
    if (earlier) return earlierPayment(earlier, ctx);
  }
  const a = ctx.payment.payload.authorization;
  const deadline = Date.now() + FOLLOW_WAIT_MS;
  for (;;) {
    if (record.state === 'settled' || record.state === 'failed') return conclude(record, ctx);
    const age = ctx.ports.now().getTime() - Date.parse(record.claimedAt);
    const expired = Number(a.validBefore) + VALIDITY_MARGIN_SECONDS < nowSeconds(ctx);
    if (record.state === 'claimed' && age > STALE_CLAIM_MS) {
      // Nothing was signed here: used on chain means someone else sent it (the buyer's payment all the same).
      if (await ctx.x402.relayer.authorizationUsed(ctx.requirement.asset, a.from, a.nonce)) return usedElsewhere(record, ctx);
      if (expired) return end(record, ctx, { failure: 'authorization_expired' });
      const lease = randomUUID();
      const claimedAt = ctx.ports.now().toISOString();
      if (await ctx.x402.settlements.takeOver(ctx.pk, record.lease, { lease, claimedAt, source: record.source })) {
        return submit({ ...record, lease, claimedAt }, ctx);
      }
    }
    if (record.state === 'signed' && (age > STALE_CLAIM_MS || Date.now() > deadline)) {
      if ((await ctx.x402.relayer.rebroadcast(record.raw!)) === 'sent') {
        // Still in the pool after its authorization ran out: it can only revert now, and nothing can settle it.
        if (expired && !(await ctx.x402.relayer.receipt(record.txHash!, 1_500)))
          return end(record, ctx, { failure: 'authorization_expired' });
        return conclude(record, ctx);
      }
      // Its nonce went to another transaction: mined (it is ours after all), or signed again from here.
      if (await ctx.x402.relayer.receipt(record.txHash!, 1_500)) return conclude(record, ctx);
      if (await ctx.x402.relayer.authorizationUsed(ctx.requirement.asset, a.from, a.nonce)) return usedElsewhere(record, ctx);
      if (expired) return end(record, ctx, { failure: 'authorization_expired' });
      const old = record.txHash!;
      const sent = await ctx.x402.relayer.submit(ctx.requirement.asset, ctx.payment, (signed, replaces) =>
        ctx.x402.settlements.replaced(ctx.pk, replaces ?? old, signed),
      );
      if (sent.kind === 'would_revert') return end(record, ctx, { failure: 'invalid_exact_evm_transaction_simulation_failed' });
      return sent.kind === 'sent' ? conclude({ ...record, txHash: sent.txHash, raw: sent.raw }, ctx) : follow(await current(ctx), ctx);
    }
    if (Date.now() > deadline) {
      throw ctx.refuse(
        'settlement_pending',
        'This authorization is being settled by an earlier request; send the same request again shortly.',
        {
          retry: true,
          headers: { 'retry-after': '2' },
        },
      );
    }
    await sleep(FOLLOW_POLL_MS);
    record = await current(ctx);
  }
}
