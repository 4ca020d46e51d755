/**
 * Portable license tokens: a JWS (HS256, jose) binding network, transaction, skill, payer
 * and pack seal. Only this service signs and verifies them, so a symmetric key suffices;
 * it comes from Secrets Manager in AWS and from .data/ locally (license-secret.ts).
 */
import { createHash } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { cacheUntilFailure } from '../../platform/memo';
import type { Licenses } from '../ports';

const ISSUER = 'skill-market';

/**
 * The key is fetched on the first issue or verify, not at cold start: routes that never touch
 * a license (the 402 challenge, the ledger) do not wait on Secrets Manager. A failed fetch is
 * a fault (503), never a verdict on the token.
 */
export function joseLicenses(loadSecret: () => Promise<Uint8Array>): Licenses {
  const key = cacheUntilFailure(async () => {
    const secret = await loadSecret();
    if (secret.byteLength < 32) throw new Error('license key must be at least 32 bytes');
    return { secret, kid: createHash('sha256').update(secret).digest('hex').slice(0, 16) };
  });
  return {
    async issue(c) {
      const { secret, kid } = await key();
      return new SignJWT({ net: c.network, tx: c.txHash, payer: c.payer, seal: c.seal })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid })
        .setIssuer(ISSUER)
        .setSubject(c.skill)
        .setIssuedAt()
        .sign(secret);
    },
    async verify(token) {
      const { secret, kid } = await key();
      try {
        const { payload, protectedHeader } = await jwtVerify(token, secret, { issuer: ISSUER, algorithms: ['HS256'] });
        if (protectedHeader.kid !== kid) return undefined;
        const { net, tx, payer, seal, sub } = payload as Record<string, unknown>;
        if ([net, tx, payer, seal, sub].some((v) => typeof v !== 'string')) return undefined;
        return { network: net as string, txHash: tx as string, payer: payer as string, seal: seal as string, skill: sub as string };
      } catch {
        return undefined;
      }
    },
  };
}
