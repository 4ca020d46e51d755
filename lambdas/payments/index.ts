/**
 * The public face of the payments domain: what other domains may use. Agents settle through
 * the same functions as POST /api/pay (so rules, idempotency and error codes are identical);
 * discovery reads the ledger and builds the same challenge. Nothing else of payments is
 * imported from outside it (the linter holds this).
 */
export type { Ledger, LedgerRow, LedgerSummary, PaymentsPorts } from './ports';
export { buildChallenge, MAX_TIMEOUT_SECONDS, X402_VERSION } from './core/challenge';
export { ChallengeSchema } from './core/challenge-schema';
export { challengeFor, unlockWithProof } from './pay';
export { PROOF_LIMIT, proofDocument, publicRow } from './proof';
export { readSignInWithXHeader } from './proof-input';
export { ledgerFromEnv, paymentsPortsFromEnv } from './wiring';
