/**
 * How often the scheduled tasks run: EventBridge Scheduler in AWS; `npm start` runs none (each has an npm script for on demand).
 * The reconcile job recounts every record; daily, and on demand with `npm run reconcile`.
 */
export const RECONCILE_EVERY_MINUTES = 24 * 60;
/**
 * The relayer's ETH balance is read and published this often (payments' scheduled task), so its
 * alarm fires within minutes of the relayer running short, not when a buyer's payment is refused.
 */
export const RELAYER_WATCH_EVERY_MINUTES = 5;
/**
 * The synthetic purchase buys the canary end to end this often where its schedule is on (staging
 * by default): each run costs the canary's price (paid to the treasury) and one USDC transfer's gas.
 */
export const SYNTHETIC_PURCHASE_EVERY_MINUTES = 60;
/** The unmatched-receipts run reads two days of blocks, daily (each transfer is seen twice); on demand with `npm run unmatched`. */
export const UNMATCHED_EVERY_MINUTES = 24 * 60;

/**
 * The license signing key is replaced this often. A token names its key (kid); the key before
 * the current one still verifies, so a license stays valid for at least this long after the
 * rotation that follows its issue (docs/OPERATIONS.md, "Keys and secrets").
 */
export const LICENSE_KEY_ROTATION_DAYS = 90;

/**
 * The origin secret CloudFront sends the API is replaced this often (docs/OPERATIONS.md, "Keys
 * and secrets"); an operator can rotate it at once with `aws secretsmanager rotate-secret`.
 */
export const ORIGIN_SECRET_ROTATION_DAYS = 30;
