/**
 * /api/pay, both methods, and POST /api/recover: who gets a pack. GET without a payment answers
 * the 402 challenge (built by payments). A transfer (X-PAYMENT), a license or x402 v2's signed
 * authorization (PAYMENT-SIGNATURE, on GET or POST) settles through the payments domain, under
 * the AP2 mandate of X-AP2-MANDATE when one is sent; a wallet that signs (SIGN-IN-WITH-X) without
 * a new transfer gets the pack when `decideAccess` says it already has access (POST), or when it
 * paid for the skill (GET, x402's sign-in-with-x).
 */
import { requireSkill } from '../catalog';
import { links } from '../contract/links';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import {
  challengeAnswer,
  challengeFor,
  checkedSignIn,
  deliverPack,
  packForPayer,
  readProof,
  signInWithXOf,
  unlockWithAuthorization,
  unlockWithProof,
  v1PaymentOf,
  decodePaymentHeader,
  signedPaymentFor,
  settlementHeaders,
  signedPaymentCheck,
  type ProofInput,
  type PresentedPayment,
  type SettlementRead,
  type SignedPayment,
  type Settlement,
  type SignInWithX,
  PAYMENT_ERRORS,
  readVersionParam,
} from '../payments';
import { decisionView } from './access-route';
import { decideAccess, type AccessDecision } from './core/decide-access';
import { mandatePolicy } from './mandates';
import { accessCoverage } from './versions';
import type { AccessPorts } from './ports';

/**
 * A wallet that already has access gets the pack by signing; nothing is charged. The signature's
 * nonce is used up only when the pack is given: a wallet with no access gets the 402 and leaves
 * no row behind, and a replayed signature never gets the pack twice.
 */
async function unlockByAccess(proof: ProofInput & { skill: string; signInWithX: SignInWithX }, ports: AccessPorts, baseUrl: string) {
  const entry = requireSkill(ports.catalog, proof.skill, 'X-PAYMENT or the body (`skill`)');
  const challenge = links(baseUrl).skill(entry.id).challenge;
  const signedIn = await checkedSignIn(proof.signInWithX, ports.payments, baseUrl, undefined, challenge);
  const wallet = signedIn.address;
  const decision = await decideAccess(wallet, entry, ports.now(), ports);
  const view = decisionView(decision, entry, wallet, ports, baseUrl);
  if (decision.granted && decision.via !== 'meter') {
    // The version asked for must be one the access covers: checked before the nonce is spent.
    const { coveredFrom, receipt } = await accessCoverage(decision, entry.id, ports, baseUrl);
    const { ok: _ok, ...access } = view;
    const body = await deliverPack(ports.payments, entry.id, access, { asked: proof.version, coveredFrom });
    await signedIn.spendNonce();
    return { ...body, ...(receipt !== undefined ? { receipt } : {}) };
  }
  const hit = challengeFor(entry.id, ports.payments, baseUrl);
  throw PAYMENT_ERRORS.PAYMENT_REQUIRED({
    message:
      decision.via === 'meter'
        ? `${wallet} has no access to ${entry.id} yet; its meter can pay: draw it (POST /api/meter, action draw, signed by the wallet).`
        : `${wallet} has no access to ${entry.id}: no purchase, subscription or meter draw covers it.`,
    tip: 'Pay the challenge (PAYMENT-REQUIRED header), subscribe, or draw from a meter; `details.access.next` lists each.',
    details: { access: view },
    headers: { 'payment-required': hit.v2Encoded, 'x-payment-required': hit.encoded },
  });
}

/**
 * The payment that bought a wallet's access, as x402's settlement response names it to an owner who
 * pays again (nothing is settled for it): the sale for a purchase; for a subscription, a transfer
 * that paid the covering subscription; for a meter draw, a top-up credited to the meter the skill
 * was drawn from. The last two are sets with no order (one read of the row, on this path only), so
 * the first hash in order is named, the same each time. Undefined when there is none to name.
 */
async function paymentBehind(decision: AccessDecision, wallet: string, ports: AccessPorts): Promise<string | undefined> {
  if (!decision.granted) return undefined;
  if (decision.via === 'one-time' && decision.source === 'transfer') return decision.txHash;
  const transfers =
    decision.via === 'subscription'
      ? (await ports.subscriptions.get(wallet, decision.plan))?.transfers
      : decision.via === 'one-time'
        ? (await ports.meters.get(wallet))?.credited
        : undefined;
  return transfers?.map((t) => t.toLowerCase()).sort()[0];
}

/**
 * A wallet that already has access and answers the 402 with a signed payment (a stock x402 v2
 * client does, whatever it owns) gets the pack, and the authorization is never settled: its
 * signature proves the wallet, and its nonce is used up here, so a copy of the header gets
 * nothing. No `owned` when the header proves no wallet here or the wallet has no access (or only
 * a meter that would charge): the authorization then settles as a purchase, reusing `read`.
 * `settlement` names the payment that bought the access (`paymentBehind`), so a stock client that
 * reads x402's settlement response after a paid request finds one.
 */
async function unlockBySignedPayment(
  payment: SignedPayment,
  skill: string | undefined,
  ports: AccessPorts,
  baseUrl: string,
  version: number | undefined,
): Promise<{ owned?: unknown; settlement?: Settlement | undefined; read?: SettlementRead | undefined }> {
  const entry = requireSkill(ports.catalog, skill);
  const check = await signedPaymentCheck(payment, entry.id, ports.payments, baseUrl);
  if (!check) return {};
  // One round of reads, not two: what the named wallet owns is read beside the signature's check
  // and counts only if the signature is that wallet's.
  const [{ signer, read }, decision] = await Promise.all([check.prove(), decideAccess(check.from, entry, ports.now(), ports)]);
  if (!signer || !decision.granted || decision.via === 'meter') return { read };
  // The version asked for must be one the access covers: checked before the authorization is used up.
  const { ok: _ok, ...access } = decisionView(decision, entry, signer.address, ports, baseUrl);
  const [{ coveredFrom, receipt }, transaction] = await Promise.all([
    accessCoverage(decision, entry.id, ports, baseUrl),
    paymentBehind(decision, signer.address, ports),
  ]);
  const body = await deliverPack(ports.payments, entry.id, { ...access, charged_atomic: '0' }, { asked: version, coveredFrom });
  if (!(await signer.spend()))
    throw PAYMENT_ERRORS.INVALID_WALLET_SIGNATURE({
      message: `This signed payment already got ${signer.address} the pack of ${entry.id}, which it owns; a copy of it gets nothing and is never settled.`,
      tip: 'Send a new request: your x402 client signs a fresh authorization, or sign in with SIGN-IN-WITH-X.',
    });
  const network = ports.payments.config.network.name;
  return {
    owned: { ...body, ...(receipt !== undefined ? { receipt } : {}) },
    settlement: transaction === undefined ? undefined : { transaction, payer: signer.address, network, from: 'owned' },
  };
}

/** What an unlock request carries, from any surface (HTTP, MCP). */
export interface UnlockRequest {
  proof: ProofInput;
  /** The X-AP2-MANDATE value, if any. */
  mandate?: string | undefined;
  /** A signed payment (x402 v2 or v1 exact), decoded once by the surface: the service settles it. */
  payment?: PresentedPayment | undefined;
  sourceIp?: string | undefined;
}

/**
 * The unlock, for every surface: a wallet's signature alone gets what it already has access
 * to; a transfer or a license settles through payments, under the AP2 mandate when one is sent.
 * Failures are thrown as the API's errors, with the spec's codes.
 */
export async function unlockPack(
  request: UnlockRequest,
  ports: AccessPorts,
  baseUrl: string,
): Promise<{ body: unknown; settlement?: Settlement | undefined }> {
  const { proof } = request;
  if (request.payment !== undefined) {
    // Shape-checked once here, for both the owner check and the settlement.
    const payment = await signedPaymentFor(request.payment, proof.skill, ports.payments, baseUrl);
    // An owner's signed payment proves its wallet: the pack, and nothing settled (a mandate's purchase always settles).
    const { owned, settlement, read } =
      request.mandate === undefined ? await unlockBySignedPayment(payment, proof.skill, ports, baseUrl, proof.version) : {};
    if (owned) return { body: owned, settlement };
    // x402 v2: a signed authorization the service settles itself, under the mandate when one is sent.
    const policy = request.mandate !== undefined ? await mandatePolicy(request.mandate, proof.skill, ports, baseUrl) : undefined;
    return unlockWithAuthorization(payment, proof.skill, ports.payments, baseUrl, {
      sourceIp: request.sourceIp,
      signInWithX: proof.signInWithX,
      policy,
      settlementRead: read,
    });
  }
  if (proof.txHash === undefined && proof.license === undefined && proof.signInWithX !== undefined && proof.skill !== undefined) {
    // Nothing is paid: the pack comes with no settlement.
    return { body: await unlockByAccess({ ...proof, skill: proof.skill, signInWithX: proof.signInWithX }, ports, baseUrl) };
  }
  // A license re-redeems what was already bought: nothing is spent, so a mandate has nothing to add.
  const policy =
    request.mandate !== undefined && proof.license === undefined
      ? await mandatePolicy(request.mandate, proof.skill, ports, baseUrl)
      : undefined;
  return unlockWithProof(proof, ports.payments, baseUrl, {
    sourceIp: request.sourceIp,
    signInWithX: proof.signInWithX,
    policy,
  });
}

/**
 * The request's signed payment, decoded once (issue 50): x402 v2's `PAYMENT-SIGNATURE`, or an x402
 * v1 `X-PAYMENT` (base64; told from the spec's `{txHash, skill}` by `v1PaymentOf`), which settles
 * on the same path as the v2 payment it is. Undefined when there is neither. `xPaymentV1` is the v1
 * payment `v1PaymentOf` already decoded, so the header is not read twice.
 */
function signedPaymentOf(req: ApiRequest, xPaymentV1: object | undefined): PresentedPayment | undefined {
  const v2 = req.headers['payment-signature'];
  if (v2 !== undefined) return { version: 2, value: decodePaymentHeader(v2), field: 'PAYMENT-SIGNATURE' };
  return xPaymentV1 !== undefined ? { version: 1, value: xPaymentV1, field: 'X-PAYMENT' } : undefined;
}

/** The v1 payment of X-PAYMENT, decoded, if it is one (the spec's JSON proof is not). */
const v1Of = (req: ApiRequest): object | undefined => {
  const xPayment = req.headers['x-payment'];
  return xPayment === undefined ? undefined : v1PaymentOf(xPayment);
};

/** The request without an x402 v1 X-PAYMENT: what the spec's proof reader sees (a v1 payment is no `{txHash, skill}`). */
function withoutV1Payment(req: ApiRequest, xPaymentV1: object | undefined): ApiRequest {
  if (xPaymentV1 === undefined) return req;
  const { 'x-payment': _v1, ...headers } = req.headers;
  return { ...req, headers };
}

async function unlock(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const v1 = v1Of(req);
  const proof = readProof(withoutV1Payment(req, v1));
  // The skill from X-PAYMENT or the body, else the query: a client that POSTs the resource URL (/api/pay?skill=).
  const skill = proof.skill ?? req.query['skill'];
  const { body, settlement } = await unlockPack(
    {
      proof: { ...proof, skill },
      mandate: req.headers['x-ap2-mandate'],
      payment: signedPaymentOf(req, v1),
      sourceIp: req.sourceIp,
    },
    ports,
    req.baseUrl,
  );
  // The one place an unlock's settlement becomes x402's headers.
  return json(200, body, settlementHeaders(settlement));
}

/**
 * GET /api/pay?skill=: the 402 challenge, or, with a proof, what x402 asks of the same URL.
 * With `PAYMENT-SIGNATURE` (a stock x402 v2 client's retry) or x402 v1's base64 `X-PAYMENT`, the settlement and the pack exactly as
 * POST settles it, the AP2 mandate of X-AP2-MANDATE included; with `SIGN-IN-WITH-X` alone, the pack
 * again for a wallet that paid for the skill, else the challenge. The settlement path
 * (payments' authorization.ts, the relayer) is loaded by payments' face on its first use, so a
 * cold start that only challenges does not parse it.
 */
export async function getPay(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  // x402 v1 clients retry the same GET with X-PAYMENT (base64): it settles as PAYMENT-SIGNATURE does.
  const payment = signedPaymentOf(req, v1Of(req));
  const signInWithX = signInWithXOf(req);
  // A re-download's version (an owner's, or a payer's by sign-in); a purchase gets the current one.
  const version = readVersionParam(req.query['version']);
  if (payment !== undefined) {
    const { body, settlement } = await unlockPack(
      {
        proof: { skill: req.query['skill'], txHash: undefined, license: undefined, signInWithX, version },
        mandate: req.headers['x-ap2-mandate'],
        payment,
        sourceIp: req.sourceIp,
      },
      ports,
      req.baseUrl,
    );
    return json(200, body, settlementHeaders(settlement));
  }
  // x402's sign-in-with-x: a wallet that already paid downloads the pack again, paying nothing.
  const again = signInWithX ? await packForPayer(req.query['skill'], signInWithX, ports.payments, req.baseUrl, version) : undefined;
  return again ? json(200, again.body, settlementHeaders(again.settlement)) : challengeAnswer(req, ports.payments);
}

export const postPay = unlock;
/** Same proof and rules as POST /api/pay: re-unlocks a transfer that landed when the unlock did not. */
export const postRecover = unlock;
