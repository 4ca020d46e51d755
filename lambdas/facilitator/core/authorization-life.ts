/**
 * How long the service keeps an authorization in mind, as pure decisions (issue 50, I4 and I7).
 * An EIP-3009 authorization can move money until its `validBefore`, a value the client picks; a
 * row kept because of it must not live longer than the challenge allows, or a client could fill
 * a table with rows that last for ever, and a date past JavaScript's range must be a refusal, not
 * a crash.
 */

/**
 * The failure that records an authorization answered without settlement (an owner's signed
 * payment that got the pack free): it ended there, and is never settled, for any resource, by
 * either protocol version.
 */
export const CONSUMED = 'authorization_consumed';

/**
 * The failure that records an authorization never sent because its payer was already paying for
 * the same resource with an earlier one still in flight (I6): a stock client signs anew on every
 * call, so settling it would charge twice for one pack.
 */
export const PAYMENT_IN_FLIGHT = 'payment_in_flight';

/**
 * Seconds a `validBefore` may lie beyond the challenge's `maxTimeoutSeconds` from now: the
 * clocks of client and service differ, and a stock client signs `now + maxTimeoutSeconds` by its
 * own clock. Beyond it the authorization is refused before anything is read or written.
 */
export const VALID_BEFORE_SLACK_SECONDS = 60;

/** Whether an authorization's `validBefore` lies further ahead than the challenge it answers allows. */
export const validBeforeTooFar = (validBefore: string, nowSeconds: number, maxTimeoutSeconds: number): boolean =>
  BigInt(validBefore) > BigInt(nowSeconds + maxTimeoutSeconds + VALID_BEFORE_SLACK_SECONDS);

/**
 * When the record of a consumed authorization may go (TTL, Unix seconds): once nobody can settle
 * it any more, with the same slack. Only called for a `validBefore` that is not too far.
 */
export const consumedExpiry = (validBefore: string): number => Number(validBefore) + VALID_BEFORE_SLACK_SECONDS;
