/**
 * A checkout session's client secret: what only its creator holds. Our session id travels in
 * URLs (the session's path, access logs), so it cannot be what lets a call read, change, complete
 * or cancel the session; the secret, answered once on creation (as Stripe answers a
 * `client_secret`), is presented on each of those calls as `Authorization: Bearer <secret>`: the
 * header ACP 2026-04-17 requires on every checkout call, and the one UCP 2026-08-25's REST
 * binding names for a bearer credential. It is stored only as its sha256, and compared in
 * constant time. Pure functions: no I/O.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'chks_';
/** `chks_` and 32 random bytes in base64url (wiring.ts makes them). */
const SECRET = /^chks_[A-Za-z0-9_-]{43}$/;
/** RFC 6750's credentials: `Bearer` and a token68. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i;

/** What is stored of a secret. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** What an `Authorization` header presents. */
export type Presented = { kind: 'none' } | { kind: 'malformed' } | { kind: 'bearer'; token: string };

export function presentedSecret(authorization: string | undefined): Presented {
  if (authorization === undefined || authorization.trim() === '') return { kind: 'none' };
  const m = BEARER.exec(authorization.trim());
  return m ? { kind: 'bearer', token: m[1]! } : { kind: 'malformed' };
}

/**
 * Whether `token` is the secret whose hash the session keeps: the hashes are compared in
 * constant time (a session without a hash, made before secrets existed, opens for no token).
 */
export function opensSession(secretHash: string | undefined, token: string): boolean {
  if (secretHash === undefined || !SECRET.test(token)) return false;
  const stored = Buffer.from(secretHash, 'hex');
  const given = createHash('sha256').update(token, 'utf8').digest();
  return stored.length === given.length && timingSafeEqual(stored, given);
}

/** The verdict on a call that must come from the session's creator. */
export type CreatorCheck = 'creator' | 'missing' | 'malformed' | 'mismatch';

export function checkCreator(secretHash: string | undefined, authorization: string | undefined): CreatorCheck {
  const presented = presentedSecret(authorization);
  if (presented.kind !== 'bearer') return presented.kind === 'none' ? 'missing' : 'malformed';
  return opensSession(secretHash, presented.token) ? 'creator' : 'mismatch';
}
