/**
 * Who may have a card sale's pack from GET /api/checkout/delivery. The Stripe Checkout Session id
 * is in the success URL Stripe sends the buyer to, so it travels (browser history, a forwarded
 * link, an agent's transcript): alone it delivers the pack once, to whoever asks first (the buyer,
 * whom Stripe redirects there the moment they have paid), and that first delivery is recorded.
 * After it, the id alone gets the pack again only for the caller who had the first delivery and
 * only within the retry window: the lost-response retry the rest of the service allows
 * (docs/SECURITY.md, "The same caller, soon"). Anyone else presents what the first delivery gave:
 * the card license, or, for the agent that opened the session, the session's client secret.
 * Pure: no I/O.
 */
import { links } from '../../contract/links';
import type { CheckoutSession } from '../ports';

/**
 * Whether the session's first delivery went to this caller less than `retryWindowSeconds` ago
 * (a caller without an address is never the same caller; a window of 0 turns the retry off).
 */
export function sameCallerSoon(
  session: Pick<CheckoutSession, 'deliveredAt' | 'deliveredTo'>,
  caller: string | undefined,
  now: Date,
  retryWindowSeconds: number,
): boolean {
  if (session.deliveredAt === undefined || session.deliveredTo === undefined || caller === undefined) return false;
  if (session.deliveredTo !== caller) return false;
  const age = (now.getTime() - Date.parse(session.deliveredAt)) / 1000;
  return age >= 0 && age < retryWindowSeconds;
}

/** What a paid session tells its creator (the agent): where the pack is, and what to present there. */
export const paidMessage = (session: Pick<CheckoutSession, 'stripeSessionId'>, baseUrl: string): string =>
  `Paid. The order permalink shows the pack and its license to the buyer; GET ${links(baseUrl).checkout_delivery_of(session.stripeSessionId)} with this session's client secret (Authorization: Bearer <client_secret>) returns them to you.`;
