/**
 * The spec's retry policy for confirmation delays: re-verify after 2 s, 4 s, 8 s and 16 s
 * (about 30 s after broadcast in all). The Step Functions state machine (CDK) and the local
 * in-process loop are both built from this one constant.
 */
export const CONFIRMATION_RETRY_DELAYS_SECONDS = [2, 4, 8, 16] as const;

/**
 * After the reorg window (the `reorgWindowSeconds` setting, 128 s = 64 Base blocks by default)
 * every claim is re-verified once; a finality check that cannot decide (providers lagging or
 * down) tries again after these delays before giving up for an operator to see.
 */
export const FINALITY_RETRY_DELAYS_SECONDS = [30, 60, 120, 240] as const;

/** Bound on one verification across all providers, well under API Gateway's 30 s. */
export const VERIFICATION_BUDGET_MS = 8_000;
/** Bound on one provider's answer. */
export const PROVIDER_TIMEOUT_MS = 3_000;

/**
 * An escrowed payment's end at its expiry (x402 auth-capture, ConfirmationJob `escrow_expiry`):
 * after its time, tried after each of these delays while its void or capture is not mined; all
 * within the four minutes the payment then still has before its capture deadline.
 */
export const ESCROW_EXPIRY_RETRY_DELAYS_SECONDS = [1, 15, 30, 60] as const;
