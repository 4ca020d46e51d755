/**
 * Signed provenance as GET /api/packs/provenance answers it (issue 52), made in a test with a key of
 * the test's own: an in-toto Statement v1 per attestation (the pack `<skill>@<version>` with its seal,
 * then `<skill>/<path>` per file), in a DSSE envelope signed by @sigstore/sign's DSSEBundleBuilder
 * over a node P-256 key (DER signatures), as a Sigstore bundle v0.3 with the key's JWKS `kid` as the
 * public-key hint and no transparency-log entry (offline).
 */
import { generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { bundleToJSON } from '@sigstore/bundle';
import { DSSEBundleBuilder } from '@sigstore/sign';
import { calculateJwkThumbprint } from 'jose';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';

export const SLSA_PROVENANCE = 'https://slsa.dev/provenance/v1';
/** The checks statement's predicate type, as a test names it (the signing helper's may differ; the verifier never reads it). */
export const CHECKS_PREDICATE = 'https://skill-market.example/checks/v1';

export interface TestKey {
  privateKey: KeyObject;
  kid: string;
  jwks: { keys: JsonWebKey[] };
}

/** A fresh P-256 key and its JWKS, its `kid` the RFC 7638 thumbprint as the service's is. */
export async function testKey(): Promise<TestKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const kid = await calculateJwkThumbprint({ kty: 'EC', crv: jwk.crv!, x: jwk.x!, y: jwk.y! });
  return { privateKey, kid, jwks: { keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] } };
}

/** The statement's subjects: the pack by its seal, then every file by its SHA-256. */
export function packSubjects(skill: string, version: number, files: Record<string, string>) {
  const meta = packFiles(files);
  return [
    { name: `${skill}@${version}`, digest: { sha256: packSeal(meta) } },
    ...meta.map((f) => ({ name: `${skill}/${f.path}`, digest: { sha256: f.sha256 } })),
  ];
}

export function statement(subject: unknown[], predicateType = SLSA_PROVENANCE, predicate: unknown = {}) {
  return { _type: 'https://in-toto.io/Statement/v1', subject, predicateType, predicate };
}

/** A Sigstore bundle (its JSON) of `payload` in a DSSE envelope signed by `key`, hinted by `hint` (the key's kid by default). */
export async function signedBundle(
  key: TestKey,
  payload: unknown,
  options: { hint?: string; payloadType?: string } = {},
): Promise<Record<string, unknown>> {
  const builder = new DSSEBundleBuilder({
    witnesses: [],
    signer: {
      // DER-encoded ECDSA over SHA-256, what KMS's ECDSA_SHA_256 answers too.
      sign: async (data) => ({
        signature: sign('sha256', data, key.privateKey),
        key: { $case: 'publicKey', publicKey: '', hint: options.hint ?? key.kid },
      }),
    },
  });
  const bundle = await builder.create({
    data: Buffer.from(JSON.stringify(payload)),
    type: options.payloadType ?? 'application/vnd.in-toto+json',
  });
  return bundleToJSON(bundle) as unknown as Record<string, unknown>;
}

/** GET /api/packs/provenance's answer for `files` as version `version` of `skill`, signed by `key`. */
export async function provenanceAnswer(key: TestKey, skill: string, version: number, files: Record<string, string>) {
  const subject = packSubjects(skill, version, files);
  return {
    skill_id: skill,
    version,
    digest: `sha256:${subject[0]!.digest.sha256}`,
    published: '2026-11-29',
    attestations: [
      { predicateType: SLSA_PROVENANCE, bundle: await signedBundle(key, statement(subject, SLSA_PROVENANCE, { buildDefinition: {} })) },
      { predicateType: CHECKS_PREDICATE, bundle: await signedBundle(key, statement(subject, CHECKS_PREDICATE, { scan: {} })) },
    ],
  };
}
