/**
 * A version's provenance answer as `GET /api/packs/provenance` gives it (issue 52), made in a test
 * with a key of the test's own: two in-toto statements (SLSA provenance and the pack checks) about
 * `<skill>@<version>` and its files, each in a Sigstore bundle v0.3 built by @sigstore/sign's
 * DSSEBundleBuilder over a node P-256 key, and the JWKS that publishes the key under its kid.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { bundleToJSON } from '@sigstore/bundle';
import { DSSEBundleBuilder, type Signer } from '@sigstore/sign';

export const SLSA = 'https://slsa.dev/provenance/v1';
export const CHECKS = 'urn:skill-market:attestation:pack-checks:v1';
const IN_TOTO = 'application/vnd.in-toto+json';

export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A new P-256 key, published under `kid`. */
export function testKey(kid: string): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, publicKey };
}

/** The JWKS that publishes these keys, as /.well-known/jwks.json does. */
export const jwksOf = (...keys: TestKey[]): { keys: JsonWebKey[] } => ({
  keys: keys.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, use: 'sig', alg: 'ES256' })),
});

/** A Sigstore signer over a node key: DER ECDSA (node's default), the public key's kid as the hint. */
const signer = (key: TestKey): Signer => ({
  sign: async (data) => ({
    signature: sign('sha256', data, key.privateKey),
    key: { $case: 'publicKey', publicKey: key.publicKey.export({ format: 'pem', type: 'spki' }).toString(), hint: key.kid },
  }),
});

export interface Subject {
  skill: string;
  version: number;
  /** The version's digest, hex. */
  digest: string;
  files?: { path: string; sha256: string }[];
}

/** One statement, signed into a bundle (its JSON form). */
export async function signedStatement(key: TestKey, subject: Subject, predicateType: string): Promise<unknown> {
  const statement = {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [
      { name: `${subject.skill}@${subject.version}`, digest: { sha256: subject.digest } },
      ...(subject.files ?? []).map((f) => ({ name: f.path, digest: { sha256: f.sha256 } })),
    ],
    predicateType,
    predicate:
      predicateType === SLSA ? { buildDefinition: { buildType: 'test' }, runDetails: { builder: { id: 'test' } } } : { checks: [] },
  };
  const bundle = await new DSSEBundleBuilder({ signer: signer(key), witnesses: [] }).create({
    data: Buffer.from(JSON.stringify(statement)),
    type: IN_TOTO,
  });
  return bundleToJSON(bundle);
}

/** The provenance route's answer for a version: both attestations, signed with `key`. */
export async function provenanceAnswer(key: TestKey, subject: Subject): Promise<Record<string, unknown>> {
  return {
    skill_id: subject.skill,
    version: subject.version,
    digest: `sha256:${subject.digest}`,
    published: '2026-11-29',
    attestations: [
      { predicateType: SLSA, bundle: await signedStatement(key, subject, SLSA) },
      { predicateType: CHECKS, bundle: await signedStatement(key, subject, CHECKS) },
    ],
  };
}

/**
 * The answer with one byte of the first attestation's signed payload changed: the last letter of
 * the statement (in its predicate), so the statement stays valid JSON naming the same subjects and
 * only the signature can tell.
 */
export function tampered(answer: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(answer) as { attestations: { bundle: { dsseEnvelope: { payload: string } } }[] };
  const envelope = copy.attestations[0]!.bundle.dsseEnvelope;
  const bytes = Buffer.from(envelope.payload, 'base64');
  const at = bytes.findLastIndex((b) => b >= 0x61 && b <= 0x7a);
  bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61;
  envelope.payload = bytes.toString('base64');
  return copy as unknown as Record<string, unknown>;
}
