/**
 * The public face of the payments domain: what other domains may use. Access answers /api/pay
 * (both methods) with the challenge and the unlocks here; agents settle through the same
 * functions (so rules, idempotency and error codes are identical); discovery reads the ledger and
 * builds the same challenge. Nothing else of payments is
 * imported from outside it (the linter holds this).
 */
import type { unlockWithAuthorization as UnlockWithAuthorization } from './authorization';
import type { signedPaymentCheck as SignedPaymentCheckOf } from './owner-proof';
import type { signedPaymentFor as SignedPaymentForOf } from './presented-payment';
import type { PaymentsPorts } from './ports';

export type { NonceStore, PaymentsPorts, PresentedPayment, SettlementRead, SignedPayment, SignInWithX } from './ports';
export { CARD_NETWORK, deliverCardSale } from './card-sale';
export {
  buildChallenge,
  buildPaymentRequired,
  MAX_TIMEOUT_SECONDS,
  productChallenge,
  X402_V2,
  X402_VERSION,
  type EscrowOffer,
} from './core/challenge';
/** The escrow operator's address, for a function that lists auth-capture offers without settling them (discovery). */
export { escrowOfferFromEnv } from '../facilitator';
export { METER_PRODUCT, productFor, rowKind, skillProduct, type Product } from './core/product';
export type { Admission, Purchase } from './core/settle';
export { challengeAnswer, challengeFor, takesPayments } from './challenge-answer';
export { checkedSignIn, claimPayment, packForPayer, provenSigner, unlockWithProof, type Caller, type PurchasePolicy } from './unlock';
/** The pseudonym of a caller's address the unlock's retry window keys on; card checkout keys its own caller checks on the same. */
export { callerId } from './unlock';
export { PAYMENT_ERRORS } from './errors';
export { readProof, signInWithXOf, type ProofInput } from './proof-input';
/**
 * x402 v2's settlement of a `PAYMENT-SIGNATURE` (authorization.ts), loaded on its first call: the
 * access function settles a signed authorization rarely next to transfers, and the domains that
 * import this face (access, agents, discovery) need not parse the settlement path at a cold start.
 */
export const unlockWithAuthorization: typeof UnlockWithAuthorization = async (...args) =>
  (await import('./authorization')).unlockWithAuthorization(...args);
/** A PAYMENT-SIGNATURE as an owner's proof (owner-proof.ts), loaded with the settlement path it precedes. */
export const signedPaymentCheck = async (
  ...args: Parameters<typeof SignedPaymentCheckOf>
): Promise<ReturnType<typeof SignedPaymentCheckOf>> => (await import('./owner-proof')).signedPaymentCheck(...args);
export type { AuthorizationSigner, SignedPaymentCheck } from './owner-proof';
/** x402 v1's X-PAYMENT (base64, told from the spec's JSON by its first character), decoded once. */
export { v1PaymentOf } from './payment-header';
/** A signed payment decoded once by the surface that received it (issue 50). */
export { decodePaymentHeader } from './payment-header';
/** ...then shape-checked once (presented-payment.ts), loaded with the settlement path it precedes. */
export const signedPaymentFor = async (...args: Parameters<typeof SignedPaymentForOf>): Promise<ReturnType<typeof SignedPaymentForOf>> =>
  (await import('./presented-payment')).signedPaymentFor(...args);
export { deliverPack, settleResponse, settlementHeaders, type Settlement, type Unlocked } from './unlock-response';
export { readSignInWithXHeader } from './proof-input';
/** Which version a delivery gives (issue 52): the `version` parameter, what a sale bought, and the versioned bytes. */
export { boughtVersion, readVersionParam, versionedPack, versionView, type VersionedPack } from './pack-version';

/**
 * This deployment's payments ports, built from the environment by payments' own wiring: what
 * another function's composition (access, agents, checkout, discovery) builds its ports from. The wiring and its adapters (the AWS SDK, viem)
 * load with the first call, in a chunk of their own.
 */
export const paymentsPortsFromEnv = async (env?: NodeJS.ProcessEnv): Promise<PaymentsPorts> =>
  (await import('./wiring')).paymentsPortsFromEnv(env);
