import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToJose } from '../../lambdas/agents/adapters/kms-card-signer';
import { slidingWindowLimiter } from '../../lambdas/agents/rate-limiter';

describe('derToJose', () => {
  it('turns DER ECDSA signatures (what KMS returns) into the r||s form JWS verifies', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (let i = 0; i < 50; i++) {
      const data = Buffer.from(`message ${i}`);
      const raw = derToJose(sign('sha256', data, { key: privateKey, dsaEncoding: 'der' }));
      expect(raw).toHaveLength(64);
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
    }
  });
  it('refuses what is not a DER signature', () => {
    expect(() => derToJose(Buffer.from([1, 2, 3]))).toThrow();
  });
});

describe('slidingWindowLimiter', () => {
  it('admits exactly the limit in any rolling window and says when a slot frees', () => {
    const limiter = slidingWindowLimiter(3, 60_000);
    expect([limiter.take(0), limiter.take(10_000), limiter.take(20_000)]).toEqual([undefined, undefined, undefined]);
    expect(limiter.take(30_000)).toBe(30);
    expect(limiter.take(60_000)).toBe(undefined); // the first stamp has left the window
    expect(limiter.take(60_001)).toBe(10);
  });
});
