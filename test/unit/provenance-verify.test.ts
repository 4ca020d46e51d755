/**
 * The skill page's provenance check (catalog/storefront/browser/provenance.ts, issue 52), run in
 * node's WebCrypto over an answer made here: both statements signed by a test key into Sigstore
 * bundles (@sigstore/sign), which @sigstore/verify itself accepts with that key. The page's check
 * accepts it, and refuses one changed byte of a payload, another key, a key the JWKS does not
 * publish, a statement about another digest or another version, and an answer without the SLSA
 * provenance.
 */
import { bundleFromJSON } from '@sigstore/bundle';
import { toSignedEntity, Verifier } from '@sigstore/verify';
import { beforeAll, describe, expect, it } from 'vitest';
import { derToRaw, pae, verifyProvenance } from '../../catalog/storefront/browser/provenance';
import { CHECKS, jwksOf, provenanceAnswer, SLSA, tampered, testKey, type TestKey } from '../support/provenance-bundle';

const DIGEST = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);
const subject = { skill: 'csv-cleaner', version: 2, digest: DIGEST, files: [{ path: 'SKILL.md', sha256: 'ef'.repeat(32) }] };
const expected = { skill: 'csv-cleaner', version: 2, digest: `sha256:${DIGEST}` };
let key: TestKey;
let answer: Record<string, unknown>;

beforeAll(async () => {
  key = testKey('service-key-1');
  answer = await provenanceAnswer(key, subject);
});

const attestations = (a: Record<string, unknown>) => a['attestations'] as { predicateType: string; bundle: unknown }[];

describe("the skill page's provenance check", () => {
  it("the test bundles are ones Sigstore's own verifier accepts with the service key (and refuses with another)", () => {
    const verifier = (k: TestKey) =>
      new Verifier(
        {
          certificateAuthorities: [],
          timestampAuthorities: [],
          tlogs: [],
          ctlogs: [],
          publicKey: (hint) => {
            if (hint !== k.kid) throw new Error(`key not found: ${hint}`);
            return { publicKey: k.publicKey, validFor: () => true };
          },
        },
        { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
      );
    for (const a of attestations(answer)) {
      const entity = toSignedEntity(bundleFromJSON(a.bundle));
      expect(() => verifier(key).verify(entity)).not.toThrow();
      const other = { ...testKey(key.kid) };
      expect(() => verifier(other).verify(entity)).toThrow();
    }
    expect(attestations(answer).map((a) => a.predicateType)).toEqual([SLSA, CHECKS]);
  });

  it('accepts both statements signed by the published key, naming the version and the digest the page prints', async () => {
    await expect(verifyProvenance(answer, jwksOf(testKey('unrelated'), key), expected)).resolves.toBeUndefined();
  });

  it('refuses the answer after one byte of a signed payload changed', async () => {
    await expect(verifyProvenance(tampered(answer), jwksOf(key), expected)).rejects.toThrow(/signature does not match/);
  });

  it('refuses a signature by another key published under the same kid, and a kid the JWKS does not publish', async () => {
    await expect(verifyProvenance(answer, jwksOf(testKey(key.kid)), expected)).rejects.toThrow(/signature does not match/);
    await expect(verifyProvenance(answer, jwksOf(testKey('another-kid')), expected)).rejects.toThrow(/key the shop does not publish/);
    await expect(verifyProvenance(answer, { keys: [] }, expected)).rejects.toThrow(/key the shop does not publish/);
  });

  it('refuses statements about another digest than the page prints, or another version', async () => {
    await expect(verifyProvenance(answer, jwksOf(key), { ...expected, digest: `sha256:${OTHER}` })).rejects.toThrow(/other files/);
    const otherDigest = await provenanceAnswer(key, { ...subject, digest: OTHER });
    await expect(verifyProvenance(otherDigest, jwksOf(key), expected)).rejects.toThrow(/other files/);
    await expect(verifyProvenance(answer, jwksOf(key), { ...expected, version: 3 })).rejects.toThrow(/another pack or version/);
    await expect(verifyProvenance(answer, jwksOf(key), { ...expected, skill: 'other-skill' })).rejects.toThrow(/another pack or version/);
  });

  it('refuses an answer without the SLSA provenance, a statement announced as another type, and one with a statement unsigned', async () => {
    const checksOnly = { ...answer, attestations: attestations(answer).filter((a) => a.predicateType !== SLSA) };
    await expect(verifyProvenance(checksOnly, jwksOf(key), expected)).rejects.toThrow(/no signed provenance/);
    await expect(verifyProvenance({ attestations: [] }, jwksOf(key), expected)).rejects.toThrow(/no signed provenance/);
    await expect(verifyProvenance(null, jwksOf(key), expected)).rejects.toThrow(/no signed provenance/);
    // The checks statement announced as the SLSA one: its signature holds, its predicate type does not.
    const swapped = { ...answer, attestations: attestations(answer).map((a) => ({ ...a, predicateType: SLSA })) };
    await expect(verifyProvenance(swapped, jwksOf(key), expected)).rejects.toThrow(/not the one announced/);
    const unsigned = structuredClone(answer) as { attestations: { bundle: { dsseEnvelope: { signatures: unknown[] } } }[] };
    unsigned.attestations[1]!.bundle.dsseEnvelope.signatures = [];
    await expect(verifyProvenance(unsigned, jwksOf(key), expected)).rejects.toThrow(/not one signed/);
  });

  it("encodes DSSE's PAE and turns a DER signature into r||s, refusing what is not DER", () => {
    expect(new TextDecoder().decode(pae('application/vnd.in-toto+json', new TextEncoder().encode('{}')))).toBe(
      'DSSEv1 28 application/vnd.in-toto+json 2 {}',
    );
    // r with its sign byte (33 bytes), s short (31 bytes): both come out 32 bytes, left-padded.
    const r = [0x00, 0x80, ...new Array<number>(31).fill(1)];
    const s = new Array<number>(31).fill(2);
    const der = Uint8Array.from([0x30, 4 + r.length + s.length, 0x02, r.length, ...r, 0x02, s.length, ...s]);
    expect([...derToRaw(der)]).toEqual([0x80, ...new Array<number>(31).fill(1), 0, ...s]);
    expect(() => derToRaw(der.subarray(1))).toThrow(/not a DER/);
    expect(() => derToRaw(Uint8Array.from([...der, 0]))).toThrow(/not a DER/);
  });
});
