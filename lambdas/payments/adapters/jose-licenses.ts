/**
 * Portable license tokens: a JWS (HS256, jose) binding network, transaction, skill, payer
 * and pack seal. Only this service signs and verifies them, so a symmetric key suffices;
 * it comes from Secrets Manager in AWS, where it rotates, and from .data/ locally (license-secret.ts).
 */
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { cacheUntilFailure } from '../../platform/memo';
import type { LicenseKeys, Licenses } from '../ports';

const ISSUER = 'skill-market';
/** A wallet session's audience: a license has none, so `jwtVerify` with this audience refuses every license. */
const SESSION_AUDIENCE = 'skill-market:purchases';
const SESSION_TYPE = 'session+jwt';

/** A key's id in a token's header: the first 16 hex digits of its sha256. */
const kidOf = (secret: Uint8Array): string => createHash('sha256').update(secret).digest('hex').slice(0, 16);

/** After a token names a key this instance does not hold, it asks for the keys again at most this often. */
const RELOAD_AFTER_MS = 60_000;

/**
 * The keys are fetched on the first issue or verify, not at cold start: routes that never touch
 * a license (the 402 challenge, the ledger) do not wait on Secrets Manager. A failed fetch is
 * a fault (503), never a verdict on the token. Tokens are signed with the current key and name
 * it (kid); a token naming the previous key still verifies, so a rotation breaks no license. A
 * kid this instance does not know (a rotation since it loaded) makes it fetch the keys again.
 */
export function joseLicenses(loadKeys: () => Promise<LicenseKeys>, now: () => number = Date.now): Licenses {
  const load = async () => {
    const keys = await loadKeys();
    const all = [keys.current, ...(keys.previous ? [keys.previous] : [])];
    if (all.some((k) => k.byteLength < 32)) throw new Error('license key must be at least 32 bytes');
    return { current: { secret: keys.current, kid: kidOf(keys.current) }, byKid: new Map(all.map((k) => [kidOf(k), k])), at: now() };
  };
  let keys = cacheUntilFailure(load);
  /** The key a token names (its kid), fetching the keys again once after a rotation; undefined for a token naming none. */
  const keyOf = async (token: string): Promise<Uint8Array | undefined> => {
    let header: { kid?: unknown };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
    if (typeof header.kid !== 'string') return undefined;
    let held = await keys();
    if (!held.byKid.has(header.kid) && now() - held.at >= RELOAD_AFTER_MS) {
      keys = cacheUntilFailure(load);
      held = await keys();
    }
    return held.byKid.get(header.kid);
  };
  return {
    async issue(c) {
      const { secret, kid } = (await keys()).current;
      return new SignJWT({ net: c.network, tx: c.txHash, payer: c.payer, seal: c.seal })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid })
        .setIssuer(ISSUER)
        .setSubject(c.skill)
        .setIssuedAt()
        .sign(secret);
    },
    async verify(token) {
      const secret = await keyOf(token);
      if (!secret) return undefined;
      try {
        const { payload } = await jwtVerify(token, secret, { issuer: ISSUER, algorithms: ['HS256'] });
        // A session names an audience; a license never does.
        if (payload.aud !== undefined) return undefined;
        const { net, tx, payer, seal, sub } = payload as Record<string, unknown>;
        if ([net, tx, payer, seal, sub].some((v) => typeof v !== 'string')) return undefined;
        return { network: net as string, txHash: tx as string, payer: payer as string, seal: seal as string, skill: sub as string };
      } catch {
        return undefined;
      }
    },
    async issueSession(address, expiresAt) {
      const { secret, kid } = (await keys()).current;
      return new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: SESSION_TYPE, kid })
        .setIssuer(ISSUER)
        .setAudience(SESSION_AUDIENCE)
        .setSubject(address)
        .setIssuedAt(Math.floor(now() / 1000))
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(secret);
    },
    async verifySession(token) {
      const secret = await keyOf(token);
      if (!secret) return undefined;
      try {
        const { payload } = await jwtVerify(token, secret, {
          issuer: ISSUER,
          audience: SESSION_AUDIENCE,
          typ: SESSION_TYPE,
          algorithms: ['HS256'],
          currentDate: new Date(now()),
        });
        if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined;
        return { address: payload.sub, expiresAt: new Date(payload.exp * 1000) };
      } catch {
        return undefined;
      }
    },
  };
}
