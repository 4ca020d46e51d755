/**
 * x402 v2's standard flow: a client signs an EIP-3009 authorization for the challenge in
 * `PAYMENT-REQUIRED` and sends the same request again with it in `PAYMENT-SIGNATURE`; the
 * service is its own facilitator and submits the transfer from its relayer. Because the service
 * sends the transfer itself, nobody can race the buyer to claim it (settle.ts refuses a relayed
 * transfer to any other claim), and each authorization is settled once:
 *
 * 1. The settlement record is read first: a known authorization is never verified or sent again.
 * 2. New: x402's own verification (signature, receiver, exact value, window, balance by
 *    simulation) against the server's requirement for this resource, never the client's.
 * 3. One conditional write claims the authorization before anything is signed.
 * 4. The relayer signs the call; its hash and raw bytes are stored (while the claim holds)
 *    before it is broadcast, so a retry re-sends that very transaction, never a second one.
 * 5. The receipt, waited for within the request's budget; then the ledger row through the same
 *    claim as a transfer's txHash (`claimPayment`, relayed), and the unlock.
 *
 * A duplicate of a claimed authorization (a retry, or 20 parallel sends of one header) waits for
 * the request that holds the claim and gets the same answer; a slow receipt goes to the
 * confirmation loop. The header becomes public once the transfer is on chain, so sending it
 * again proves nothing: a replay is served only to its buyer, by the ledger's own rule
 * (`isBuyer`: the caller that claimed, within the retry window, or a wallet signature).
 */
import { randomUUID } from 'node:crypto';
import { CAIP2, NETWORK } from '../contract/chain';
import { links } from '../contract/links';
import { requireSkill } from '../catalog';
import { AppError } from '../platform/errors';
import { same } from './core/verify-transfer';
import { skillProduct } from './core/product';
import { callerId, challengeFor, claimPayment, deliverClaim, type Caller } from './pay';
import { paymentRefused, readSignedPayment } from './payment-signature';
import { settlementHeader } from './unlock-response';
import type { PaymentsPorts, Requirement, SettlementRecord, SignedPayment, X402Settlement } from './ports';
import type { PaymentRequiredV2 } from './core/challenge';
import type { CatalogEntry } from '../contract/catalog-data';

/** How long a request waits for its transfer's receipt before handing it to the confirmation loop. */
export const RECEIPT_WAIT_MS = 12_000;
/** How long a duplicate waits for the request that holds the claim. */
const FOLLOW_WAIT_MS = 20_000;
const FOLLOW_POLL_MS = 150;
/** A claim that was never signed after this long belongs to a request that died: it is taken over. */
const STALE_CLAIM_MS = 30_000;

const settlementKey = (payment: SignedPayment, requirement: Requirement): string =>
  `${requirement.network}#${requirement.asset}#${payment.payload.authorization.from}#${payment.payload.authorization.nonce}`.toLowerCase();

/** x402 v2's `PAYMENT-RESPONSE`: the settlement, its network by CAIP-2. */
const paymentResponse = (s: { success: boolean; transaction: string; payer: string; errorReason?: string }): Record<string, string> => ({
  'payment-response': settlementHeader(s, CAIP2),
});

/** The challenge again, with x402's `error` set: a v2 client reads why from PAYMENT-REQUIRED. */
const challengeHeaders = (v2: PaymentRequiredV2, error: string, encoded: string): Record<string, string> => ({
  'payment-required': Buffer.from(JSON.stringify({ ...v2, error })).toString('base64'),
  'x-payment-required': encoded,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Settles a `PAYMENT-SIGNATURE` for a skill and unlocks it: the same answer as POST /api/pay
 * with a txHash, plus `PAYMENT-RESPONSE`. Every refusal is the API's error with the spec's codes.
 */
export async function unlockWithAuthorization(
  header: string,
  skill: string | undefined,
  ports: PaymentsPorts,
  baseUrl: string,
  caller: Caller = {},
): Promise<{ body: unknown; headers: Record<string, string> }> {
  const challenge = challengeFor(skill, ports, baseUrl);
  const entry = requireSkill(ports.catalog, skill);
  const refuse = (reason: string, message: string, retry = false, extra: Record<string, string> = {}): AppError =>
    paymentRefused(reason, message, { ...challengeHeaders(challenge.v2, reason, challenge.encoded), ...extra }, retry);

  const x402 = ports.x402;
  if (!x402) {
    throw refuse(
      'settlement_unavailable',
      'This deployment has no relayer to settle signed authorizations; pay by transfer and POST /api/pay with X-PAYMENT.',
    );
  }
  const payment = readSignedPayment(header, challengeHeaders(challenge.v2, 'invalid_payload', challenge.encoded));
  const requirement = challenge.v2.accepts.find(
    (r) => r.scheme === payment.accepted.scheme && r.network === payment.accepted.network && same(r.asset, payment.accepted.asset),
  );
  if (!requirement) {
    throw refuse(
      'unsupported_scheme',
      'The payment names a scheme, network or asset this resource does not accept (see PAYMENT-REQUIRED).',
    );
  }
  if (payment.resource?.url !== undefined && payment.resource.url !== challenge.v2.resource.url) {
    throw refuse('invalid_payload', `The payment was made out for ${payment.resource.url}, not for this resource.`);
  }
  const pk = settlementKey(payment, requirement);
  const source = callerId(caller.sourceIp);
  const ctx: Ctx = { ports, x402, baseUrl, caller, entry, payment, requirement, pk, source, refuse };

  const known = await x402.settlements.get(pk);
  if (known) return follow(known, ctx);

  const verdict = await x402.verifier.verify(payment, requirement);
  if (!verdict.ok) {
    // A parallel request may have claimed and settled it meanwhile (its nonce is then used on chain): follow that one.
    const settledMeanwhile = await x402.settlements.get(pk);
    if (settledMeanwhile) return follow(settledMeanwhile, ctx);
    throw refuse(verdict.reason, `The signed authorization does not pay for ${entry.id}: ${verdict.message ?? verdict.reason}.`);
  }
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
  };
  const claim = await x402.settlements.claim(record);
  if (!claim.claimed) return follow(claim.existing, ctx);
  return submit(record, ctx);
}

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
  refuse: (reason: string, message: string, retry?: boolean, extra?: Record<string, string>) => AppError;
}

/** The request that holds the claim: sign, store, broadcast, then wait for the receipt. */
async function submit(record: SettlementRecord, ctx: Ctx): Promise<{ body: unknown; headers: Record<string, string> }> {
  // The first signature is stored on the claim; one signed again after its nonce was taken replaces it.
  const tx = await ctx.x402.relayer.submit(ctx.requirement.asset, ctx.payment, (signed, replaces) =>
    replaces === undefined
      ? ctx.x402.settlements.signed(ctx.pk, record.lease, signed)
      : ctx.x402.settlements.replaced(ctx.pk, replaces, signed),
  );
  // Another request took the claim over while this one was slow: it settles; this one follows it.
  if (!tx) return follow(await current(ctx), ctx);
  return conclude({ ...record, state: 'signed', ...tx }, ctx);
}

/** A signed settlement: its receipt, then the ledger claim and the unlock (or the failure, or the loop). */
async function conclude(record: SettlementRecord, ctx: Ctx): Promise<{ body: unknown; headers: Record<string, string> }> {
  const txHash = record.txHash!;
  const payer = record.payer;
  /** 402 `retry: true`: the transfer is sent but not (deep enough) on chain; the confirmation loop records it. */
  const pending = (message: string): AppError =>
    ctx.refuse('settlement_pending', message, true, {
      ...paymentResponse({ success: false, transaction: txHash, payer, errorReason: 'settlement_pending' }),
      'retry-after': '2',
    });
  if (record.state === 'signed') {
    const receipt = await ctx.x402.relayer.receipt(txHash, RECEIPT_WAIT_MS);
    if (!receipt) {
      // Not mined within the request: the confirmation loop claims it for this caller when it is.
      const scheduled = await ctx.ports.confirmations.schedule({
        network: NETWORK,
        txHash,
        skill: ctx.entry.id,
        relayed: true,
        payer,
        ...(record.source ? { source: record.source } : {}),
      });
      throw pending(
        `The transfer ${txHash} was sent and is not mined yet${scheduled === 'started' ? '; it will be recorded when it is' : ''}. Send the same request again shortly.`,
      );
    }
    const finishedAt = ctx.ports.now().toISOString();
    if (receipt.status === 'success') {
      await ctx.x402.settlements.finish(ctx.pk, {
        state: 'settled',
        gasUsed: receipt.gasUsed.toString(),
        effectiveGasPrice: receipt.effectiveGasPrice.toString(),
        gasCostWei: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
        finishedAt,
      });
      record = { ...record, state: 'settled' };
    } else {
      await ctx.x402.settlements.finish(ctx.pk, { state: 'failed', failure: 'transaction_failed', finishedAt });
      record = { ...record, state: 'failed', failure: 'transaction_failed' };
    }
  }
  if (record.state === 'failed') {
    const failure = record.failure ?? 'transaction_failed';
    throw ctx.refuse(
      failure,
      `The authorization could not be settled (${failure}); nothing was transferred. Sign a new one.`,
      false,
      paymentResponse({ success: false, transaction: txHash, payer, errorReason: failure }),
    );
  }
  // The claim of the ledger row: the payer is proven by the authorization's signature, which
  // only the holder of the claim presented before it was public; anyone else is a replay.
  const holder = record.source !== undefined && record.source === ctx.source;
  let claimed: Awaited<ReturnType<typeof claimPayment>>;
  try {
    claimed = await claimPayment(
      {
        txHash: txHash as `0x${string}`,
        product: skillProduct(ctx.entry),
        resource: links(ctx.baseUrl).skill(ctx.entry.id).challenge,
      },
      ctx.ports,
      ctx.baseUrl,
      { ...ctx.caller, relayed: true, ...(holder && !ctx.caller.policy ? { provenPayer: payer } : {}) },
    );
  } catch (e) {
    // Mined but short of the confirmations required: the loop claims it (started by the claim), and this caller resends.
    if (!(e instanceof AppError) || e.code !== 'PAYMENT_VERIFICATION_FAILED' || !e.retry) throw e;
    throw pending(`${e.message} Send the same request again shortly; nothing is charged twice.`);
  }
  const { row, replayed } = claimed;
  const { body, headers } = await deliverClaim(ctx.entry, row, replayed, ctx.ports, ctx.baseUrl);
  return { body, headers: { ...headers, ...paymentResponse({ success: true, transaction: row.txHash, payer: row.payer }) } };
}

async function current(ctx: Ctx): Promise<SettlementRecord> {
  const record = await ctx.x402.settlements.get(ctx.pk);
  if (!record) throw new Error(`settlement ${ctx.pk} vanished`);
  return record;
}

/**
 * An authorization already claimed: this request waits for the one that holds the claim, takes
 * over a claim whose request died before signing, or drives a signed transaction to its end
 * (re-sending the same bytes is harmless). Only a caller that may be its buyer waits at all.
 */
async function follow(record: SettlementRecord, ctx: Ctx): Promise<{ body: unknown; headers: Record<string, string> }> {
  if (record.skill !== ctx.entry.id) {
    throw ctx.refuse('authorization_used', 'This authorization was already used for another resource; sign a new one.');
  }
  const mayBeBuyer = ctx.caller.signInWithX !== undefined || (record.source !== undefined && record.source === ctx.source);
  if (!mayBeBuyer) {
    throw new AppError({
      status: 403,
      code: 'BUYER_PROOF_REQUIRED',
      message:
        'This authorization has already been presented. Only its buyer can get the pack again: present the license token from the unlock, or a signature by the paying wallet.',
      tip: 'Send header X-LICENSE: <license.token>, or header SIGN-IN-WITH-X signed by the wallet that paid (docs/SECURITY.md).',
    });
  }
  const deadline = Date.now() + FOLLOW_WAIT_MS;
  for (;;) {
    if (record.state === 'settled' || record.state === 'failed') return conclude(record, ctx);
    const age = ctx.ports.now().getTime() - Date.parse(record.claimedAt);
    if (record.state === 'claimed' && age > STALE_CLAIM_MS) {
      const used = await ctx.x402.relayer.authorizationUsed(
        ctx.requirement.asset,
        ctx.payment.payload.authorization.from,
        ctx.payment.payload.authorization.nonce,
      );
      if (used) {
        // Nothing was signed here, yet the chain has used it: it was settled elsewhere, not by this service.
        await ctx.x402.settlements.finish(ctx.pk, {
          state: 'failed',
          failure: 'authorization_used_elsewhere',
          finishedAt: ctx.ports.now().toISOString(),
        });
        return conclude({ ...record, state: 'failed', failure: 'authorization_used_elsewhere' }, ctx);
      }
      const lease = randomUUID();
      const claimedAt = ctx.ports.now().toISOString();
      if (await ctx.x402.settlements.takeOver(ctx.pk, record.lease, { lease, claimedAt, source: record.source })) {
        return submit({ ...record, lease, claimedAt }, ctx);
      }
    }
    if (record.state === 'signed' && (age > STALE_CLAIM_MS || Date.now() > deadline)) {
      if ((await ctx.x402.relayer.rebroadcast(record.raw!)) === 'sent') return conclude(record, ctx);
      // Its nonce went to another transaction: mined (it is ours after all), or signed again from here.
      if (await ctx.x402.relayer.receipt(record.txHash!, 1_500)) return conclude(record, ctx);
      const old = record.txHash!;
      const tx = await ctx.x402.relayer.submit(ctx.requirement.asset, ctx.payment, (signed, replaces) =>
        ctx.x402.settlements.replaced(ctx.pk, replaces ?? old, signed),
      );
      return tx ? conclude({ ...record, ...tx }, ctx) : follow(await current(ctx), ctx);
    }
    if (Date.now() > deadline) {
      throw ctx.refuse(
        'settlement_pending',
        'This authorization is being settled by an earlier request; send the same request again shortly.',
        true,
        {
          'retry-after': '2',
        },
      );
    }
    await sleep(FOLLOW_POLL_MS);
    record = await current(ctx);
  }
}
