/**
 * Portable license tokens: a JWS (HS256, jose) binding network, transaction, skill, payer
 * and pack seal. Only this service signs and verifies them, so a symmetric key suffices;
 * it comes from Secrets Manager in AWS and from .data/ locally.
 */
import { createHash } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

export interface LicenseClaims {
  network: string;
  txHash: string;
  skill: string;
  payer: string;
  seal: string;
}

export interface Licenses {
  issue(claims: LicenseClaims): Promise<string>;
  /** The claims of a token this service signed, or undefined for a bad, tampered or foreign one. */
  verify(token: string): Promise<LicenseClaims | undefined>;
}

const ISSUER = 'skill-market';

export function joseLicenses(secret: Uint8Array): Licenses {
  if (secret.byteLength < 32) throw new Error('license key must be at least 32 bytes');
  const kid = createHash('sha256').update(secret).digest('hex').slice(0, 16);
  return {
    async issue(c) {
      return new SignJWT({ net: c.network, tx: c.txHash, payer: c.payer, seal: c.seal })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid })
        .setIssuer(ISSUER)
        .setSubject(c.skill)
        .setIssuedAt()
        .sign(secret);
    },
    async verify(token) {
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
