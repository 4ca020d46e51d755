/**
 * x402 v2's standard flow on the resource server's side: a client signs an EIP-3009 authorization
 * for the challenge in `PAYMENT-REQUIRED` and sends the same request again with it in
 * `PAYMENT-SIGNATURE` (or x402 v1's `X-PAYMENT`, or MCP's and A2A's payment objects). This module
 * picks the server's own requirement the payment chose, decides whose purchase it is under an AP2
 * mandate, and hands it to the facilitator (lambdas/facilitator/, which verifies, claims, holds,
 * sends and ends it, docs/SECURITY.md I1–I7); then it claims the transfer in the ledger and
 * delivers the pack, or answers the facilitator's outcome as the API's error, in one place (`answerOf`).
 *
 * The header becomes public once the transfer is on chain, so sending it again proves nothing: a
 * replay is served only to its buyer, by the ledger's own rule (`isBuyer`: the caller that
 * claimed, within the retry window, or a wallet signature).
 */
import { links } from '../contract/links';
import { requireSkill } from '../catalog';
import { AppError, PLATFORM_ERRORS } from '../platform/errors';
import { PAYMENT_ERRORS } from './errors';
import { same } from './core/verify-transfer';
import { skillProduct } from './core/product';
import { challengeFor, requirementFor } from './challenge-answer';
import { callerId, claimPayment, deliverClaim, provenSigner, type Caller, type PurchasePolicy } from './unlock';
import { paymentRefused } from './refusals';
import { settlementHeader, type Settlement } from './unlock-response';
import {
  alongside,
  escrowCall,
  settle,
  settlementKey,
  type BeforeSend,
  type EscrowSettled,
  type Refusal,
  type Settled,
} from '../facilitator';
import { CAPTURE_MARGIN_SECONDS } from '../contract/auth-capture';
import { escrowExpiryJob } from './core/escrow-expiry';
import { formatAtomic } from '../contract/chain';
import { versionedPack } from './pack-version';
import type { PaymentsPorts, RelayedReceipt, SignedPayment } from './ports';
import type { CatalogEntry } from '../contract/catalog-data';

/** The mandate's refusal, as POST /api/pay answers it: nothing was claimed, held or sent. */
const mandateRejected = (message: string): AppError =>
  PAYMENT_ERRORS.AP2_MANDATE_REJECTED({
    message,
    tip: 'Fix the mandate (GET /api/mandates?wallet=) or omit X-AP2-MANDATE, then sign a new authorization; nothing was held or transferred.',
  });

/** The reason a mandate's refusal travels under through the facilitator's before-send hook. */
const MANDATE_REFUSED = 'ap2_mandate_rejected';

/** A settled authorization's unlock: the pack, and the settlement as data (the route function writes its headers). */
type Answer = { body: unknown; settlement: Settlement };

/** How long a request waits for its capture or void to be mined before the confirmation loop finishes it. */
const ESCROW_CALL_WAIT_MS = 12_000;

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

/** What the facilitator's refusals leave for the buyer to do, by reason, where the API has more to say. */
const NEXT_STEP: Readonly<Record<string, string>> = {
  payer_cooling_down: ' Pay by transfer (POST /api/pay with X-PAYMENT), or wait.',
};

type Refuse = (
  reason: string,
  message: string,
  opts?: { retry?: boolean; headers?: Record<string, string>; details?: Record<string, unknown> },
) => AppError;

interface Ctx {
  ports: PaymentsPorts;
  baseUrl: string;
  caller: Caller;
  entry: CatalogEntry;
  refuse: Refuse;
  /** The skill's x402 resource URL: what a wallet signature names as `uri`. */
  resource: string;
  /** For an escrowed payment (auth-capture): its capture deadline (Unix seconds), from the server's own requirement. */
  captureDeadline?: number | undefined;
}

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
  // auth-capture's deadlines are those of the challenge the client paid (one of this service's, recent enough), never the client's own.
  const chosen = requirementFor(payment, challenge.v2.accepts, ports);
  if (!chosen.ok) throw refuse(chosen.reason, chosen.message);
  const { requirement } = chosen;
  // x402 v2 names the resource a payment is for; the signature does not cover it, so a payment
  // without one is refused rather than taken for whichever resource it was sent to (I4).
  if (payment.resource?.url === undefined) {
    throw refuse('invalid_payload', 'The payment names no resource (x402 v2 `resource.url`); send the one PAYMENT-REQUIRED gives.');
  }
  if (payment.resource.url !== challenge.v2.resource.url) {
    throw refuse('invalid_payload', `The payment was made out for ${payment.resource.url}, not for this resource.`);
  }
  const resource = links(baseUrl).skill(entry.id).challenge;
  const ctx: Ctx = {
    ports,
    baseUrl,
    caller,
    entry,
    refuse,
    resource,
    captureDeadline: requirement.scheme === 'auth-capture' ? requirement.extra.captureDeadline : undefined,
  };

  // A mandate is decided first: whose purchase this is. The authorization's own EIP-712 signature
  // proves its `from` (the wallet); a mandate's agent proves itself with SIGN-IN-WITH-X on this
  // skill's resource (no transaction can be named yet: none exists before settlement). Its
  // constraints and spend are the facilitator's last question before the money moves.
  const policy = caller.policy ? await mandateFor(caller.policy, payment, ctx) : undefined;
  const beforeSend: BeforeSend | undefined = policy
    ? async ({ key, payer, amount }) => {
        const admission = await policy.admit({ txHash: key, payer, amount, product: skillProduct(entry) });
        return admission.ok ? { ok: true } : { ok: false, refusal: { reason: MANDATE_REFUSED, message: admission.message, retry: false } };
      }
    : undefined;
  const outcome = await settle(
    {
      payment,
      requirement,
      resource: entry.id,
      source: callerId(caller.sourceIp),
      provesWallet: caller.signInWithX !== undefined,
      known: caller.settlementRead?.pk === settlementKey(payment, requirement) ? { record: caller.settlementRead.record } : undefined,
      beforeSend,
    },
    { x402, config: ports.config, now: ports.now, waiting: ports.waiting },
  );
  return answerOf(outcome, ctx);
}

/** Whose purchase an authorization is under a mandate: its wallet's, signed by the wallet itself or by the mandate's agent. */
async function mandateFor(policy: PurchasePolicy, payment: SignedPayment, ctx: Ctx): Promise<PurchasePolicy> {
  const from = payment.payload.authorization.from;
  const signer = ctx.caller.signInWithX
    ? await provenSigner(ctx.caller.signInWithX, ctx.ports, ctx.baseUrl, undefined, ctx.resource)
    : from;
  const payer = policy.payerFor(signer);
  if (!same(payer, from)) throw mandateRejected("AP2 mandate rejected: the authorization is not from the mandate's wallet.");
  return policy;
}

/** x402 v2's `PAYMENT-RESPONSE` of a settlement that did not (yet) unlock: it rides on the refusal, its network by CAIP-2. */
const paymentResponse = (
  s: { success: boolean; transaction: string; payer: string; errorReason?: string },
  ctx: Ctx,
): Record<string, string> => ({
  'payment-response': settlementHeader(s, ctx.ports.config.network.caip2),
});

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

/** The facilitator's refusal as the API's: the challenge again (with x402's `error`), the reason, and what to do next. */
function refusalOf(refusal: Refusal, ctx: Ctx): AppError {
  if (refusal.reason === MANDATE_REFUSED) return mandateRejected(refusal.message);
  return ctx.refuse(refusal.reason, `${refusal.message}${NEXT_STEP[refusal.reason] ?? ''}`, {
    retry: refusal.retry,
    ...(refusal.retryAfter !== undefined ? { headers: { 'retry-after': String(refusal.retryAfter) } } : {}),
    ...(refusal.details ? { details: refusal.details } : {}),
  });
}

/** The facilitator's outcome as this API answers it: the pack, or the error (in one place). */
async function answerOf(outcome: Settled, ctx: Ctx): Promise<Answer> {
  switch (outcome.kind) {
    case 'settled':
      if (outcome.escrow) return deliverEscrowed(ctx, outcome, outcome.escrow);
      return claimRelayed(
        ctx,
        outcome.transfer,
        outcome.claimant ? { provenPayer: outcome.payer } : { signInWithX: ctx.caller.signInWithX },
        {
          bookkeeping: outcome.bookkeeping,
          receipt: outcome.receipt,
          pending: (message) => pendingAnswer(ctx, message, { transaction: outcome.transfer, payer: outcome.payer }),
          ...(outcome.earlier ? { replay: true } : {}),
        },
      );
    case 'unmined': {
      // Not mined within the request: the confirmation loop claims it for this caller when it is.
      const source = callerId(ctx.caller.sourceIp);
      const scheduled = await ctx.ports.confirmations.schedule({
        network: ctx.ports.config.network.name,
        txHash: outcome.transaction,
        skill: ctx.entry.id,
        relayed: true,
        payer: outcome.payer,
        ...(source ? { source } : {}),
        // The loop ends this settlement too once it has decided (the facilitator's endSettlement).
        settlement: outcome.key,
      });
      // Escrowed: if its client never comes back for the pack, the loop ends the payment once it can
      // no longer be delivered (voided: the payer gets it back without reclaiming it).
      if (ctx.captureDeadline !== undefined)
        await ctx.ports.confirmations.schedule(
          escrowExpiryJob(ctx.ports.config.network.name, outcome.transaction, ctx.entry.id, outcome.key, ctx.captureDeadline),
        );
      throw pendingAnswer(
        ctx,
        `The transfer ${outcome.transaction} was sent and is not mined yet${scheduled === 'started' ? '; it will be recorded when it is' : ''}. Send the same request again shortly.`,
        { transaction: outcome.transaction, payer: outcome.payer },
      );
    }
    case 'pending':
      throw pendingAnswer(ctx, outcome.message, outcome.sent);
    case 'failed':
      throw ctx.refuse(
        outcome.failure,
        `The authorization could not be settled: ${FAILURES[outcome.failure] ?? `it was refused before anything was sent (${outcome.failure}), and is never sent now; sign a new one`}.`,
        {
          headers: outcome.transaction
            ? paymentResponse({ success: false, transaction: outcome.transaction, payer: outcome.payer, errorReason: outcome.failure }, ctx)
            : {},
          ...(outcome.transaction ? { details: { transaction: outcome.transaction } } : {}),
        },
      );
    case 'refused':
      throw refusalOf(outcome.refusal, ctx);
    case 'consumed':
      // An owner's signed payment that already got its wallet the pack free: ended, for every resource (I4).
      throw PAYMENT_ERRORS.INVALID_WALLET_SIGNATURE({
        message: `This signed payment already got ${outcome.payer} the pack of ${outcome.resource}, which it owns; a copy of it gets nothing and is never settled.`,
        tip: 'Send a new request: your x402 client signs a fresh authorization, or sign in with SIGN-IN-WITH-X.',
      });
    case 'not_buyer':
      throw PAYMENT_ERRORS.BUYER_PROOF_REQUIRED({
        message:
          'This authorization has already been presented. Only its buyer can get the pack again: present the license token from the unlock, or a signature by the paying wallet.',
        tip: 'Send header X-LICENSE: <license.token>, or header SIGN-IN-WITH-X signed by the wallet that paid (docs/SECURITY.md).',
      });
    case 'payment_id_reused':
      throw PAYMENT_ERRORS.PAYMENT_IDENTIFIER_REUSED({ details: { payment_identifier: outcome.id } });
  }
}

/**
 * An escrowed payment (x402 auth-capture, issue 53), authorized: the seller is paid only once the
 * pack is delivered. In order: the pack's bytes are read (a store that cannot give them voids the
 * payment: the escrow returns the money, and the answer is 503 with `retry: true`); the sale is
 * claimed in the ledger (a claim that fails with no row voids it too); then the payment is
 * captured to the treasury, and the answer carries the pack and the receipt naming the capture. A
 * capture not mined within the request is finished by the confirmation loop, never made twice.
 */
async function deliverEscrowed(ctx: Ctx, outcome: Extract<Settled, { kind: 'settled' }>, escrow: EscrowSettled): Promise<Answer> {
  const x402 = ctx.ports.x402!;
  if (escrow.stage === 'voided' || escrow.stage === 'voiding')
    throw ctx.refuse(
      'payment_voided',
      'This payment was voided because its pack could not be delivered: the escrow gives the whole amount back to the payer, and nothing was charged. Sign a new payment.',
    );
  if (escrow.stage === 'authorized') {
    // Nothing is delivered that could not be captured any more: a payment this close to its capture
    // deadline is refused (and voided while it can be), and so is one the escrow no longer holds
    // (its payer reclaimed it after a stopped service let the deadline pass): one read of the
    // escrow's own record, whatever this service's clock or records say.
    const late = Math.floor(ctx.ports.now().getTime() / 1000) > escrow.captureDeadline - CAPTURE_MARGIN_SECONDS;
    const held = late ? undefined : (await x402.escrow!.contract.state(escrow.paymentInfo)).capturable;
    if (late || (held !== undefined && held < BigInt(ctx.entry.x402.amount))) {
      await outcome.bookkeeping?.catch(() => undefined);
      // Never voided once it is a sale (a row whose capture the loop has not finished): the buyer
      // owns the pack then, and only a capture, not a void, may end the payment.
      const sold = await ctx.ports.ledger.get(ctx.ports.config.network.name, outcome.transfer.toLowerCase()).then(
        (r) => r !== undefined,
        () => true,
      );
      const voided =
        held === 0n || sold
          ? undefined
          : await escrowCall(escrow.key, 'void', x402, {
              waitMs: ESCROW_CALL_WAIT_MS,
              now: ctx.ports.now,
              ethUsdFeed: ctx.ports.config.ethUsdFeed,
            }).catch(() => undefined);
      const back =
        voided?.kind === 'done'
          ? `the escrow returned it to ${outcome.payer} in ${voided.tx}`
          : `${outcome.payer} reclaims it from the escrow, or already did`;
      throw late
        ? ctx.refuse(
            'capture_deadline_passed',
            `This payment can no longer be captured before its escrow deadline (${new Date(escrow.captureDeadline * 1000).toISOString()}), so the pack is not delivered for it and nothing is charged: ${back}. Sign a new payment.`,
          )
        : ctx.refuse(
            'payment_not_in_escrow',
            `The escrow no longer holds this payment (its payer reclaimed it, or it was voided), so the pack is not delivered for it and nothing is charged. Sign a new payment.`,
          );
    }
  }
  try {
    await versionedPack(ctx.ports, ctx.entry.id, undefined, 0);
  } catch (e) {
    throw await undelivered(ctx, escrow.key, outcome, e);
  }
  const network = ctx.ports.config.network.name;
  let claimed: Awaited<ReturnType<typeof claimPayment>>;
  try {
    claimed = await alongside(
      outcome.bookkeeping,
      claimPayment(
        { txHash: outcome.transfer as `0x${string}`, product: skillProduct(ctx.entry), resource: ctx.resource },
        ctx.ports,
        ctx.baseUrl,
        {
          sourceIp: ctx.caller.sourceIp,
          ...(outcome.claimant ? { provenPayer: outcome.payer } : { signInWithX: ctx.caller.signInWithX }),
          relayed: true,
          ...(outcome.receipt ? { relayedReceipt: outcome.receipt } : {}),
          escrow: { paymentHash: escrow.paymentHash, settlement: escrow.key },
        },
      ),
    );
  } catch (e) {
    // A refusal (the claim is another buyer's, a mandate's no) is answered as it is; a fault with no row written voids the payment.
    if (e instanceof AppError && !e.retry) throw e;
    const row = await ctx.ports.ledger.get(network, outcome.transfer.toLowerCase()).then(
      (r) => r,
      () => 'unknown' as const,
    );
    if (row === undefined) throw await undelivered(ctx, escrow.key, outcome, e);
    throw e;
  }
  let { row } = claimed;
  const captured = await escrowCall(escrow.key, 'capture', x402, {
    waitMs: ESCROW_CALL_WAIT_MS,
    now: ctx.ports.now,
    ethUsdFeed: ctx.ports.config.ethUsdFeed,
  });
  if (captured.kind === 'done' || captured.kind === 'pending') {
    if (captured.tx && row.captureTx === undefined) {
      await ctx.ports.ledger.recordCapture(network, row.txHash, captured.tx);
      row = { ...row, captureTx: captured.tx.toLowerCase() };
    }
  }
  if (captured.kind !== 'done') {
    // The sale stands and the pack is the buyer's; the capture is the loop's to finish (it retries until it is mined).
    await ctx.ports.confirmations.schedule({
      network,
      txHash: row.txHash,
      skill: ctx.entry.id,
      relayed: true,
      kind: 'escrow',
      settlement: escrow.key,
    });
  }
  const { body } = await deliverClaim(ctx.entry, row, claimed.replayed, ctx.ports, ctx.baseUrl);
  return { body, settlement: { transaction: row.txHash, payer: row.payer, network: row.network, from: 'authorization' } };
}

/**
 * The pack could not be delivered for an escrowed payment: the operator voids it, so the escrow
 * returns the whole amount to the payer, and the answer is 503 with `retry: true` (a new payment
 * succeeds once the fault is gone). A void that cannot be made now leaves the money in the escrow,
 * which the payer reclaims after the capture deadline without the service.
 */
async function undelivered(ctx: Ctx, key: string, outcome: Extract<Settled, { kind: 'settled' }>, cause: unknown): Promise<AppError> {
  // The settlement's own end (its `settled` record) is written first: the void is a step from it.
  await outcome.bookkeeping?.catch(() => undefined);
  const why = cause instanceof Error ? cause.message.split('\n')[0]! : String(cause);
  const voided = await escrowCall(key, 'void', ctx.ports.x402!, {
    waitMs: ESCROW_CALL_WAIT_MS,
    now: ctx.ports.now,
    ethUsdFeed: ctx.ports.config.ethUsdFeed,
  }).catch((e: unknown) => ({ kind: 'failed' as const, message: (e as Error).message }));
  const amount = formatAtomic(BigInt(ctx.entry.x402.amount));
  const back =
    voided.kind === 'done'
      ? `the payment was voided: the escrow returned ${amount} USDC to ${outcome.payer} in ${voided.tx}`
      : voided.kind === 'pending'
        ? `the payment is being voided: the escrow returns ${amount} USDC to ${outcome.payer} in ${voided.tx}`
        : `the payment stays in the escrow, which returns it to ${outcome.payer} on request (reclaim) after its capture deadline`;
  return PLATFORM_ERRORS.INTERNAL_ERROR({
    message: `The pack could not be delivered (${why}); ${back}. Nothing was charged; pay again shortly.`,
    details: {
      voided: voided.kind === 'done' || voided.kind === 'pending',
      ...('tx' in voided && voided.tx ? { void_tx: voided.tx } : {}),
    },
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
