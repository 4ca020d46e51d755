/**
 * How often the scheduled tasks run: EventBridge Scheduler in AWS, timers in `npm start`.
 * Writers fold their own change at once, so the fold schedule only bounds how long a change
 * whose writer stopped half-way stays out of the figures (plus the journal's grace period).
 */
export const TALLY_FOLD_EVERY_MINUTES = 5;
/** The reconcile job recounts every record; daily, and on demand with `npm run reconcile`. */
export const RECONCILE_EVERY_MINUTES = 24 * 60;
