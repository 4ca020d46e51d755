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
 * An x402 settlement is stuck when it is still in flight (claimed or signed, no outcome) this long
 * after its claim: a buyer's request follows it for 20 s and takes over a claim left for 30 s, so
 * one still open after 10 minutes has no request driving it (the buyer gave up, a transaction is
 * stuck in the pool, or the function died between the broadcast and the receipt). The payments
 * watch counts them every RELAYER_WATCH_EVERY_MINUTES over the last STUCK_SETTLEMENT_WINDOW_HOURS;
 * older ones leave the count (a transfer that moved money by then is in the daily unmatched report).
 */
export const STUCK_SETTLEMENT_AFTER_MINUTES = 10;
export const STUCK_SETTLEMENT_WINDOW_HOURS = 24;
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
