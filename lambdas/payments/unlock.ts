/**
 * The unlock: a transfer's claim (`claimPayment`, the one path every payment takes), its delivery,
 * a license's re-redeem, a paid wallet's pack again, and the wallet-signature checks they share.
 * The routes that call it are the access domain's (POST and GET /api/pay, POST /api/recover).
 */
import { createHash } from 'node:crypto';
import { requireSkill, skillRequired } from '../catalog';
import type { CatalogEntry } from '../contract/catalog-data';
import { links } from '../contract/links';
import { refundedInFull, signReceipt } from '../ledger';
import { METRICS } from '../contract/metrics';
import { PLATFORM_ERRORS, type AppError } from '../platform/errors';
import { countMetric } from '../platform/metrics';
import { CARD_NETWORK, redeemCardLicense } from './card-sale';
import { paymentsDisabled, requireSoundConfig } from './challenge-answer';
import { proofProblem, SIGNATURE_MAX_AGE_SECONDS } from './core/buyer-proof';
import { rowKind, skillProduct, type Product } from './core/product';
import { settle, type Admission } from './core/settle';
import { PAYMENT_ERRORS } from './errors';
import { boughtVersion, versionedPack } from './pack-version';
import type { LedgerRow, PaymentsPorts, SettlementRead, SignInWithX } from './ports';
import type { ReceiptView } from './core/verify-transfer';
import type { ProofInput } from './proof-input';
import { verificationFailed } from './refusals';
import { unlockBody, type cardSaleBody, type Settlement, type Unlocked } from './unlock-response';

/** No proof at all: 402 PROOF_REQUIRED. Here rather than with the parser, so the challenge's path never loads zod. */
const proofRequired = (): AppError => PAYMENT_ERRORS.PROOF_REQUIRED();

/** Who sent an unlock request: where from (API Gateway's source address), and any wallet signature they presented. */
export interface Caller {
  sourceIp?: string | undefined;
  signInWithX?: SignInWithX | undefined;
  /** A purchase policy the caller brought (an AP2 mandate): whom its signer acts for, and what it admits. */
  policy?: PurchasePolicy | undefined;
  /**
   * A payer proven otherwise than by SIGN-IN-WITH-X: the `from` of an EIP-3009 authorization
   * whose signature was verified before it was sent (and so before it was public).
   */
  provenPayer?: string | undefined;
  /** The claim is made by the x402 v2 settlement that submitted the transfer. */
  relayed?: boolean | undefined;
  /** That settlement's receipt of the transfer, read in this request: the claim is judged from it, not read again. */
  relayedReceipt?: ReceiptView | undefined;
  /** The signed authorization's settlement record as the owner check of this request read it: not read again. */
  settlementRead?: SettlementRead | undefined;
  /** With `relayed`: the transfer is an escrow's `authorize` (x402 auth-capture): the payment and its settlement. */
  escrow?: { paymentHash: string; settlement: string } | undefined;
}

/** The rules a caller's AP2 mandate adds to a purchase; see access/. */
export interface PurchasePolicy {
  /** The payer a verified signer claims as (a mandate's agent claims as the mandate's wallet); throws an AppError to refuse. */
  payerFor(signer: string | undefined): string | undefined;
  admit: Admission;
}

/** What to present for a transfer that is already claimed; names no skill and no payer, so the public ledger stays useless. */
const invalidSignature = (why: string): AppError =>
  PAYMENT_ERRORS.INVALID_WALLET_SIGNATURE({ message: `The SIGN-IN-WITH-X signature does not prove the paying wallet: ${why}.` });

/** A wallet signature whose fields and signature hold; its nonce is not used up yet. */
export interface SignedIn {
  /** The wallet the signature proves. */
  address: string;
  /**
   * Uses the nonce up (one conditional write, the row that makes the signature single-use), or
   * throws 403 INVALID_WALLET_SIGNATURE when it already was: a replayed signature never gets
   * anything twice. Called only when something is about to be given for the signature.
   */
  spendNonce(): Promise<void>;
}

/**
 * Checks a wallet signature's fields and the signature itself, and stores nothing: a sign-in that
 * turns out to grant nothing (a wallet with no purchase or access) leaves no row, so fresh wallets
 * signing in cannot fill the Nonces table (issue 31). The caller spends the nonce before it gives.
 */
export async function checkedSignIn(
  p: SignInWithX,
  ports: Pick<PaymentsPorts, 'now' | 'signatures' | 'nonces' | 'config'>,
  baseUrl: string,
  txHash: string | undefined,
  uri: string,
): Promise<SignedIn> {
  const problem = proofProblem(p, { domain: new URL(baseUrl).host, uri, txHash, network: ports.config.network, now: ports.now() });
  if (problem) throw invalidSignature(problem);
  if (!(await ports.signatures.verify(p))) throw invalidSignature('the signature does not recover to `address`');
  return {
    address: p.address,
    async spendNonce() {
      // Single use: a signature seen once is never accepted again, whoever replays it.
      const expires = new Date(Date.parse(p.issuedAt) + SIGNATURE_MAX_AGE_SECONDS * 1000);
      if (!(await ports.nonces.use(p.address, p.nonce, expires)))
        throw invalidSignature('this nonce was already used; sign again with a new one');
    },
  };
}

/** The address a wallet signature proves, after every field, the signature and the nonce's single use are checked. */
export async function provenSigner(
  p: SignInWithX,
  ports: Pick<PaymentsPorts, 'now' | 'signatures' | 'nonces' | 'config'>,
  baseUrl: string,
  txHash: string | undefined,
  uri: string,
): Promise<string> {
  const signedIn = await checkedSignIn(p, ports, baseUrl, txHash, uri);
  await signedIn.spendNonce();
  return signedIn.address;
}

/** A pseudonym for a caller's source address, stored with a claim so the same caller can retry; never published. */
export const callerId = (sourceIp: string | undefined): string | undefined =>
  sourceIp ? createHash('sha256').update(`caller:${sourceIp}`).digest('hex') : undefined;

/**
 * The unlock itself, for any surface (HTTP, MCP). A license re-redeems with one ledger read (a
 * reorged or revoked unlock stops working); a txHash settles, and a claimed transfer goes only
 * to its buyer. Failures are thrown as the API's errors, with the spec's error codes.
 */
/** What an unlock answer adds when its payer already owned the skill: the earlier purchase, and that this one was its choice. */
export interface RepeatPurchase {
  owned_since: string;
  earlier_tx: string;
  note: string;
}

export async function unlockWithProof(
  proof: ProofInput,
  ports: PaymentsPorts,
  baseUrl: string,
  caller: Caller = {},
): Promise<Unlocked<(ReturnType<typeof unlockBody> & { repeat_purchase?: RepeatPurchase }) | ReturnType<typeof cardSaleBody>>> {
  requireSoundConfig(ports);
  if (proof.license !== undefined) {
    const claims = await ports.licenses.verify(proof.license);
    const valid =
      claims !== undefined && (proof.skill === undefined || proof.skill === claims.skill) && ports.catalog.get(claims.skill) !== undefined;
    // A card sale's license is checked against its sale, as an x402 license against its ledger row.
    if (valid && claims.network === CARD_NETWORK)
      return { body: await redeemCardLicense(claims, proof.license, ports, baseUrl, proof.version) };
    const row = valid ? await ports.ledger.get(claims.network, claims.txHash) : undefined;
    if (!valid || !row || row.status !== 'confirmed' || row.skill !== claims.skill || refundedInFull(row)) {
      throw PAYMENT_ERRORS.INVALID_LICENSE(
        valid && row?.status === 'reorged'
          ? { message: 'The license is revoked: its transfer is no longer on chain (a reorganisation dropped it).' }
          : valid && row && refundedInFull(row)
            ? { message: 'The license is revoked: its purchase was refunded in full.' }
            : {},
      );
    }
    const entry = ports.catalog.get(claims.skill)!;
    // The version asked for, if the license covers it: the one its sale bought and every later one.
    const delivered = await versionedPack(ports, entry.id, proof.version, boughtVersion(ports.catalog.versions(entry.id), row.packSeal));
    return {
      body: unlockBody({
        entry,
        delivered,
        license: proof.license,
        // The sale's receipt, signed again from its row: the same claims the first answer carried.
        receipt: await signReceipt(row, baseUrl, ports.serviceSigner, ports.catalog.versions),
        payment: { txHash: claims.txHash, payer: claims.payer, network: claims.network, row },
        ledger: { recorded: true, replayed: true, via: 'license' },
        baseUrl,
      }),
      settlement: { transaction: claims.txHash, payer: claims.payer, network: claims.network, from: 'proof' },
    };
  }

  if (proof.txHash === undefined) throw proofRequired();
  if (proof.skill === undefined) throw skillRequired('X-PAYMENT or the body (`skill`)');
  const entry = requireSkill(ports.catalog, proof.skill, 'X-PAYMENT or the body (`skill`)');
  const { row, replayed } = await claimPayment(
    { txHash: proof.txHash, product: skillProduct(entry), resource: links(baseUrl).skill(entry.id).challenge },
    ports,
    baseUrl,
    caller,
  );
  // A replay is a re-download and may ask for a version; a paid purchase gets the current one.
  const delivered = await deliverClaim(entry, row, replayed, ports, baseUrl, replayed ? proof.version : undefined);
  if (replayed) return delivered;
  // A transfer is the buyer's own act, made before the claim: a payer that already owned the skill
  // bought it again by its choice. The answer says so (the signed-payment and CLI paths never charge an owner).
  const earlier = await ports.ledger.owned(row.payer, entry.id, 'first');
  if (!earlier || earlier.txHash === row.txHash) return delivered;
  return {
    ...delivered,
    body: {
      ...delivered.body,
      repeat_purchase: {
        owned_since: earlier.recordedAt,
        earlier_tx: earlier.txHash,
        note: `${row.payer} already owned ${entry.id}: this transfer bought it again, by the payer's choice. Nothing is refunded; next time sign in (SIGN-IN-WITH-X) or send the license to get the pack for nothing.`,
      },
    },
  };
}

/**
 * A wallet that paid for the skill (by either flow) gets the pack again by signing in
 * (SIGN-IN-WITH-X: this domain, the skill's resource as `uri`, chain 8453, a fresh single-use
 * nonce; EOA, EIP-1271 or ERC-6492): its newest confirmed unlock of the skill, as a replay.
 * Undefined when the wallet has none (the caller answers with the challenge): then nothing is
 * stored, and the nonce is used up only for a delivery.
 */
export async function packForPayer(
  skill: string | undefined,
  proof: SignInWithX,
  ports: PaymentsPorts,
  baseUrl: string,
  version?: number | undefined,
) {
  requireSoundConfig(ports);
  const entry = requireSkill(ports.catalog, skill);
  const signedIn = await checkedSignIn(proof, ports, baseUrl, undefined, links(baseUrl).skill(entry.id).challenge);
  // Its newest unlock of the skill from the `owned` index, then the row itself (strongly consistent): two reads whatever its history.
  const owned = await ports.ledger.owned(signedIn.address, entry.id, 'last');
  const row = owned && (await ports.ledger.get(owned.network, owned.txHash));
  if (!row || row.status !== 'confirmed' || row.skill !== entry.id || rowKind(row) !== 'unlock') return undefined;
  await signedIn.spendNonce();
  return deliverClaim(entry, row, true, ports, baseUrl, version);
}

/**
 * The unlock answer for a claimed (or replayed) ledger row of a skill: the pack, a fresh license,
 * the payment. `version` is what a re-download asked for (the current version when undefined),
 * delivered if the row's sale covers it.
 */
export async function deliverClaim(
  entry: CatalogEntry,
  row: LedgerRow,
  replayed: boolean,
  ports: PaymentsPorts,
  baseUrl: string,
  version?: number | undefined,
): Promise<Unlocked<ReturnType<typeof unlockBody>> & { settlement: Settlement }> {
  const delivered = await versionedPack(ports, entry.id, version, boughtVersion(ports.catalog.versions(entry.id), row.packSeal));
  const [license, receipt] = await Promise.all([
    // The license names the seal its sale bought (the version it covers from), whatever this answer carries.
    ports.licenses.issue({
      network: row.network,
      txHash: row.txHash,
      skill: entry.id,
      payer: row.payer,
      seal: row.packSeal ?? delivered.meta.seal,
    }),
    // The books' signed statement of the sale, from its row (a replay's is the same sale, signed again).
    signReceipt(row, baseUrl, ports.serviceSigner, ports.catalog.versions),
  ]);
  return {
    body: unlockBody({
      entry,
      delivered,
      license,
      receipt,
      payment: { txHash: row.txHash, payer: row.payer, network: row.network, row },
      ledger: { recorded: true, replayed, via: replayed ? 'replay' : 'verification' },
      baseUrl,
    }),
    settlement: { transaction: row.txHash, payer: row.payer, network: row.network, from: 'proof' },
  };
}

/**
 * Verifies a transfer for any product (a skill, a plan, a meter top-up) and claims it, or
 * delivers the claim again to its buyer: the one path every payment takes, with the spec's
 * error codes for every refusal. `resource` is the URL a wallet signature must name as `uri`.
 */
export async function claimPayment(
  proof: { txHash: `0x${string}`; product: Product; resource: string },
  ports: PaymentsPorts,
  baseUrl: string,
  caller: Caller = {},
): Promise<{ row: LedgerRow; replayed: boolean }> {
  requireSoundConfig(ports);
  const signer = caller.signInWithX
    ? await provenSigner(caller.signInWithX, ports, baseUrl, proof.txHash, proof.resource)
    : caller.provenPayer;
  const payer = caller.policy ? caller.policy.payerFor(signer) : signer;
  const claimant = { source: callerId(caller.sourceIp), payer };
  const outcome = await settle({ txHash: proof.txHash, product: proof.product }, ports, {
    schedule: true,
    claimant,
    admit: caller.policy?.admit,
    relayed: caller.relayed,
    relayedReceipt: caller.relayedReceipt,
    escrow: caller.escrow,
  });

  if (outcome.kind === 'unlocked' && !outcome.replayed) countMetric(METRICS.unlocks);
  else if (outcome.kind === 'refused') countMetric(METRICS.verificationFailures, { Reason: outcome.reason });
  else if (outcome.kind === 'pending')
    countMetric(METRICS.verificationFailures, { Reason: outcome.confirmations === undefined ? 'not_found' : 'too_few_confirmations' });

  switch (outcome.kind) {
    case 'unlocked':
      return { row: outcome.row, replayed: outcome.replayed };
    case 'not_admitted':
      throw PAYMENT_ERRORS.AP2_MANDATE_REJECTED({ message: outcome.message });
    case 'pending':
      throw verificationFailed(
        'transfer',
        outcome.message,
        true,
        {
          reason: outcome.confirmations === undefined ? 'not_found' : 'too_few_confirmations',
          confirmations: outcome.confirmations ?? 0,
          required: ports.config.minConfirmations,
          re_verification_scheduled: outcome.scheduled,
        },
        { 'retry-after': '2' },
      );
    case 'not_yours':
      throw PAYMENT_ERRORS.BUYER_PROOF_REQUIRED();
    case 'refused':
      if (outcome.reason === 'payer_mismatch' && caller.policy) {
        // Under a mandate the claim is made for the mandate's wallet: a transfer from anyone else is not its purchase.
        throw PAYMENT_ERRORS.AP2_MANDATE_REJECTED({
          message: "AP2 mandate rejected: the transfer was not paid by the mandate's wallet.",
          tip: "Pay from the mandate's wallet, or omit X-AP2-MANDATE; nothing was claimed or unlocked.",
        });
      }
      if (outcome.reason === 'payer_mismatch' || outcome.reason === 'payer_proof_required' || outcome.reason === 'authorized_transfer') {
        throw PAYMENT_ERRORS.PAYER_PROOF_REQUIRED({ message: outcome.message, details: { reason: outcome.reason } });
      }
      throw verificationFailed('transfer', outcome.message, false, { reason: outcome.reason });
    case 'unavailable':
      throw PLATFORM_ERRORS.INTERNAL_ERROR({
        message: outcome.message,
        tip: 'Retry with backoff (2 s, 4 s, 8 s); your transfer is safe on chain.',
      });
    case 'disabled':
      throw paymentsDisabled(outcome.message);
  }
}
