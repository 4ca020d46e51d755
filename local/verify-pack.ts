// verify-pack.ts: check a pack's files against the service's signed statement before writing any (npm i @sigstore/verify @sigstore/bundle).
import { createHash, createPublicKey, type JsonWebKey } from 'node:crypto';
import { bundleFromJSON } from '@sigstore/bundle';
import { Verifier, toSignedEntity, type TrustMaterial } from '@sigstore/verify';

export interface Statement {
  _type: string;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: string;
  predicate: unknown;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Verifies `bundle` (one of GET /api/packs/provenance's attestations) offline with the key of `jwks`
 * (GET /.well-known/jwks.json) its hint names, then checks that the statement is for `skill@version`
 * and lists exactly `files` (path → text), each by its SHA-256, and the pack by its seal. Returns the
 * statement, or throws an Error that names the file that does not match.
 */
export function verifyPack(p: {
  skill: string;
  version: number;
  files: Record<string, string>;
  bundle: unknown;
  jwks: { keys: JsonWebKey[] };
}): Statement {
  const bundle = bundleFromJSON(p.bundle);
  const trust: TrustMaterial = {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: (hint) => {
      const jwk = p.jwks.keys.find((k) => k['kid'] === hint);
      if (!jwk) throw new Error(`key ${hint} is not in the service's JWKS`);
      return { publicKey: createPublicKey({ key: jwk, format: 'jwk' }), validFor: () => true };
    },
  };
  try {
    // Offline: no transparency-log entry or timestamp is required; the service key alone is trusted.
    new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(toSignedEntity(bundle));
  } catch (e) {
    throw new Error(`The provenance of ${p.skill}@${p.version} is not signed by the service key (${(e as Error).message}).`, { cause: e });
  }
  const envelope = bundle.content.$case === 'dsseEnvelope' ? bundle.content.dsseEnvelope : undefined;
  if (envelope?.payloadType !== 'application/vnd.in-toto+json') throw new Error('The provenance is not an in-toto statement.');
  const statement = JSON.parse(envelope.payload.toString('utf8')) as Statement;
  const [pack, ...subjects] = statement.subject ?? [];
  if (statement._type !== 'https://in-toto.io/Statement/v1' || pack?.name !== `${p.skill}@${p.version}`)
    throw new Error(`The signed statement is for ${pack?.name}, not ${p.skill}@${p.version}.`);
  const signed = new Map(subjects.map((s) => [s.name, s.digest?.sha256]));
  const paths = Object.keys(p.files).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const lines: string[] = [];
  for (const path of paths) {
    if (path.split('/').some((part) => part === '' || part === '.' || part === '..') || path.includes('\\'))
      throw new Error(`${path} is not a relative path inside the pack.`);
    const digest = sha256(p.files[path]!);
    const expected = signed.get(`${p.skill}/${path}`);
    if (expected === undefined) throw new Error(`${path} is not in the signed statement of ${p.skill}@${p.version}.`);
    if (expected !== digest)
      throw new Error(`${path} does not match the signed statement of ${p.skill}@${p.version} (sha256 ${digest}, signed ${expected}).`);
    signed.delete(`${p.skill}/${path}`);
    lines.push(`${digest}  ${path}\n`);
  }
  const missing = [...signed.keys()][0];
  if (missing !== undefined)
    throw new Error(`${missing.replace(`${p.skill}/`, '')} is in the signed statement of ${p.skill}@${p.version} but not in the pack.`);
  // The pack's seal: the SHA-256 of `sha256sum`'s lines for its files in byte order (lambdas/contract/pack-seal.ts).
  const seal = sha256(lines.join(''));
  if (pack.digest?.sha256 !== seal)
    throw new Error(`The pack's seal ${seal} is not the signed ${pack.digest?.sha256} of ${p.skill}@${p.version}.`);
  return statement;
}
