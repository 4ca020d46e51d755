/**
 * The spec's retry policy for confirmation delays: re-verify after 2 s, 4 s, 8 s and 16 s
 * (about 30 s after broadcast in all). The Step Functions state machine (CDK) and the local
 * in-process loop are both built from this one constant.
 */
export const CONFIRMATION_RETRY_DELAYS_SECONDS = [2, 4, 8, 16] as const;

/**
 * A claimed unlock younger than this is re-checked on chain when replayed, so a reorg that
 * drops the transfer is noticed; older claims replay from the ledger alone. 128 s is 64
 * Base blocks.
 */
export const REORG_WINDOW_SECONDS = 128;

/** Bound on one verification across all providers, well under API Gateway's 30 s. */
export const VERIFICATION_BUDGET_MS = 8_000;
/** Bound on one provider's answer. */
export const PROVIDER_TIMEOUT_MS = 3_000;
