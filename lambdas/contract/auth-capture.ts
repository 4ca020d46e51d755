/**
 * x402's `auth-capture` scheme with `paymentFlow: escrow` (issue 53): the terms a challenge offers
 * and the ones a payment may come back with, and the escrow's PaymentInfo a payment stands for.
 * Pure: the caller passes the clock, the operator and the deployment.
 *
 * Deadlines are absolute (the specification's wire format), so a challenge made now names them.
 * They are taken from the challenge's minute, so the same skill's challenge is the same for a
 * minute and is made once per minute, and a payment is accepted only with deadlines one of this
 * service's challenges gave in the last `escrowCaptureSeconds`: at least `maxTimeoutSeconds` plus a
 * minute to capture in, never a deadline a client chose.
 */
import type { AuthCaptureDeployment } from './networks';
import type { AuthCaptureRequirement, SignedPayment } from './x402';

/**
 * An escrowed payment is delivered only with this long left before its capture deadline: its
 * capture is sent seconds after the sale is claimed, and the confirmation loop retries one not
 * mined well within it. A payment is accepted only with this long left plus its own timeout.
 */
export const CAPTURE_MARGIN_SECONDS = 300;

/**
 * How long after a payment stops being deliverable (its capture deadline less
 * CAPTURE_MARGIN_SECONDS, when every request refuses it) the confirmation loop ends it: longer than
 * any request lives (an API function's 15 s timeout, API Gateway's 29 s), so no request that began
 * delivering it is still running.
 * Then a sale whose capture never began is captured, and a payment that bought nothing is voided.
 */
export const ESCROW_EXPIRY_AFTER_SECONDS = 60;

/** When the loop ends an escrowed payment nobody came back for (Unix seconds): see ESCROW_EXPIRY_AFTER_SECONDS. */
export const escrowExpiryAt = (captureDeadline: number): number => captureDeadline - CAPTURE_MARGIN_SECONDS + ESCROW_EXPIRY_AFTER_SECONDS;

/** A challenge's deadlines are those of its minute. */
export const CHALLENGE_MINUTE_SECONDS = 60;

/**
 * The code the escrow operator's account delegates to (EIP-7702): EscrowOperatorGuard
 * (local/contracts/EscrowOperatorGuard.sol), whose `authorize` reaches the escrow only while the
 * payer still holds the amount and its authorization is unused, so a payer who moves its funds
 * ahead of the operator's authorize costs the operator less than itself (docs/SECURITY.md, I2). Its
 * address is where the CREATE2 deployer every OP Stack chain and anvil carry
 * (0x4e59b44847b379578588920cA78FbF26c0B4956C) puts its committed bytecode with a zero salt: the
 * same on Base, Base Sepolia and the local chain (test/unit/escrow-operator-guard.test.ts holds it to the artifact).
 */
export const ESCROW_OPERATOR_GUARD = '0x9959Ec5ab635330a6C974c9E0991f6Eab3ea9371';

/** An account's code once it delegates to `target` (EIP-7702's designator: 0xef0100 and the address), lower case. */
export const delegationCode = (target: string): string => `0xef0100${target.slice(2)}`.toLowerCase();

/** What the escrow terms depend on: the clock (Unix seconds) and the settings. */
export interface EscrowClock {
  nowSeconds: number;
  maxTimeoutSeconds: number;
  /** `escrowCaptureSeconds`. */
  captureSeconds: number;
  /** `escrowRefundDays`. */
  refundDays: number;
}

/** The deadlines a challenge made at `nowSeconds` names. */
export function escrowDeadlines(c: EscrowClock): { captureDeadline: number; refundDeadline: number } {
  const minute = Math.floor(c.nowSeconds / CHALLENGE_MINUTE_SECONDS) * CHALLENGE_MINUTE_SECONDS;
  return deadlinesFrom(minute, c);
}

const deadlinesFrom = (minute: number, c: EscrowClock) => {
  const captureDeadline = minute + CHALLENGE_MINUTE_SECONDS + c.maxTimeoutSeconds + c.captureSeconds;
  return { captureDeadline, refundDeadline: captureDeadline + c.refundDays * 86_400 };
};

/** The cache key of a challenge's escrow terms: its minute. */
export const challengeMinute = (nowSeconds: number): number => Math.floor(nowSeconds / CHALLENGE_MINUTE_SECONDS);

/** An `auth-capture` requirement from an `exact` one's facts, the escrow, the operator and the deadlines. */
export function authCaptureRequirement(
  base: {
    network: string;
    amount: string;
    asset: string;
    payTo: string;
    maxTimeoutSeconds: number;
    eip712: { name: string; version: string };
  },
  deployment: AuthCaptureDeployment,
  operator: string,
  deadlines: { captureDeadline: number; refundDeadline: number },
): AuthCaptureRequirement {
  return {
    scheme: 'auth-capture',
    network: base.network,
    amount: base.amount,
    asset: base.asset,
    payTo: base.payTo,
    maxTimeoutSeconds: base.maxTimeoutSeconds,
    extra: {
      name: base.eip712.name,
      version: base.eip712.version,
      authCaptureEscrow: deployment.escrow,
      tokenCollector: deployment.tokenCollector,
      captureAuthorizer: operator,
      ...deadlines,
      // No fee is taken: the whole price goes to payTo, and no fee receiver can be named at capture.
      feeRecipient: ZERO_ADDRESS,
      minFeeBps: 0,
      maxFeeBps: 0,
      paymentFlow: 'escrow',
      assetTransferMethod: 'eip3009',
    },
  };
}

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const same = (a: unknown, b: string): boolean => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/**
 * The server's requirement a payment's `accepted` terms stand for, or why not. Everything but the
 * deadlines must be the server's own (`ours`, made now); the deadlines must be those of one of its
 * challenges no older than `captureSeconds`, so at least a minute and `maxTimeoutSeconds` remain
 * to capture in, and the refund deadline must follow from the capture deadline by the setting.
 */
export function acceptedEscrowTerms(
  accepted: SignedPayment['accepted'],
  ours: AuthCaptureRequirement,
  c: EscrowClock,
): { ok: true; requirement: AuthCaptureRequirement } | { ok: false; message: string } {
  const x = accepted.extra;
  const o = ours.extra;
  const fixed: Array<[string, boolean]> = [
    ['payTo', same(accepted.payTo, ours.payTo)],
    ['amount', accepted.amount === ours.amount],
    ['asset', same(accepted.asset, ours.asset)],
    ['maxTimeoutSeconds', accepted.maxTimeoutSeconds === ours.maxTimeoutSeconds],
    ['extra.authCaptureEscrow', same(x['authCaptureEscrow'], o.authCaptureEscrow)],
    ['extra.captureAuthorizer', same(x['captureAuthorizer'], o.captureAuthorizer)],
    ['extra.feeRecipient', same(x['feeRecipient'], o.feeRecipient)],
    ['extra.minFeeBps', x['minFeeBps'] === 0],
    ['extra.maxFeeBps', x['maxFeeBps'] === 0],
    ['extra.name', x['name'] === o.name],
    ['extra.version', x['version'] === o.version],
  ];
  const wrong = fixed.filter(([, ok]) => !ok).map(([name]) => name);
  if (wrong.length > 0) return { ok: false, message: `${wrong.join(', ')} differ from this resource's own terms (see PAYMENT-REQUIRED)` };
  const captureDeadline = x['captureDeadline'];
  const refundDeadline = x['refundDeadline'];
  if (typeof captureDeadline !== 'number' || typeof refundDeadline !== 'number')
    return { ok: false, message: 'extra.captureDeadline and extra.refundDeadline must be the numbers PAYMENT-REQUIRED gives' };
  const minute = captureDeadline - CHALLENGE_MINUTE_SECONDS - c.maxTimeoutSeconds - c.captureSeconds;
  const given =
    Number.isSafeInteger(minute) &&
    minute % CHALLENGE_MINUTE_SECONDS === 0 &&
    minute <= c.nowSeconds &&
    minute > c.nowSeconds - c.captureSeconds &&
    captureDeadline - c.nowSeconds >= CAPTURE_MARGIN_SECONDS + c.maxTimeoutSeconds &&
    deadlinesFrom(minute, c).refundDeadline === refundDeadline;
  if (!given)
    return {
      ok: false,
      message: 'its deadlines are not those of a challenge of this service from the last ' + `${c.captureSeconds} s; pay the current one`,
    };
  return { ok: true, requirement: { ...ours, extra: { ...o, captureDeadline, refundDeadline } } };
}

/** base/commerce-payments' PaymentInfo (its Solidity field names), as the escrow hashes it. */
export interface PaymentInfo {
  operator: string;
  payer: string;
  receiver: string;
  token: string;
  maxAmount: string;
  preApprovalExpiry: number;
  authorizationExpiry: number;
  refundExpiry: number;
  minFeeBps: number;
  maxFeeBps: number;
  feeReceiver: string;
  salt: string;
}

/**
 * The PaymentInfo a payment for `requirement` stands for: the payer is the authorization's `from`,
 * the pre-approval ends when the authorization does (`validBefore`, as x402's client sets both),
 * and the salt is the payload's. Undefined without a salt.
 */
export function paymentInfoOf(requirement: AuthCaptureRequirement, payment: Pick<SignedPayment, 'payload'>): PaymentInfo | undefined {
  const { authorization: a, salt } = payment.payload;
  if (salt === undefined) return undefined;
  const e = requirement.extra;
  return {
    operator: e.captureAuthorizer,
    payer: a.from,
    receiver: requirement.payTo,
    token: requirement.asset,
    maxAmount: requirement.amount,
    preApprovalExpiry: Number(a.validBefore),
    authorizationExpiry: e.captureDeadline,
    refundExpiry: e.refundDeadline,
    minFeeBps: e.minFeeBps,
    maxFeeBps: e.maxFeeBps,
    feeReceiver: e.feeRecipient,
    salt,
  };
}
