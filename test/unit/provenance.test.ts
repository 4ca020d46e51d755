/**
 * Issue 52's acceptance: for every version in dist/versions, both signed statements are accepted
 * by Sigstore's own verifier (@sigstore/verify) with the service key, and refused when one byte of
 * a file changes (the file no longer has the digest its subject names; an envelope changed by one
 * byte fails the signature) or with another key. Also the transparency log, against @sigstore/mock's Rekor.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mockRekor } from '@sigstore/mock';
import { describe, expect, it } from 'vitest';
import { VERSIONS_DIST_DIR } from '../../lambdas/contract/data-dirs';
import { packFiles, sha256Hex } from '../../lambdas/contract/pack-seal';
import type { PackVersionRecord } from '../../lambdas/contract/pack-versions';
import {
  checksStatement,
  CHECKS_PREDICATE_TYPE,
  IN_TOTO_PAYLOAD_TYPE,
  PROVENANCE_PREDICATE_TYPES,
  provenanceStatement,
  SIGSTORE_BUNDLE_MEDIA_TYPE,
  slsaProvenanceStatement,
  SLSA_PROVENANCE_PREDICATE_TYPE,
  statementPayload,
  subjectMismatches,
} from '../../lambdas/contract/provenance';
import { sigstoreStatementSigner } from '../../lambdas/discovery/adapters/sigstore-statement-signer';
import { jwkThumbprint, type ServiceSigner } from '../../lambdas/ledger';
import { keyFileServiceSigner } from '../../lambdas/ledger/adapters/key-file-service-signer';
import { joseToDer, derToJose } from '../../lambdas/platform/adapters/der-signature';
import { serviceKeyTrust, statementOf, verifyBundle } from '../support/provenance';

const records: PackVersionRecord[] = readdirSync(join(VERSIONS_DIST_DIR, 'sha256'))
  .filter((n) => n.endsWith('.json'))
  .map((n) => JSON.parse(readFileSync(join(VERSIONS_DIST_DIR, 'sha256', n), 'utf8')) as PackVersionRecord);

const service: ServiceSigner = keyFileServiceSigner(undefined);
const other: ServiceSigner = keyFileServiceSigner(undefined);

/** One byte of `text` changed (its first character's code moved by one). */
const oneByteChanged = (text: string): string => String.fromCharCode(text.charCodeAt(0) ^ 1) + text.slice(1);

/** The same bundle with one byte of its DSSE payload changed. */
function tamperedEnvelope(bundle: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(bundle) as { dsseEnvelope: { payload: string } };
  const bytes = Buffer.from(copy.dsseEnvelope.payload, 'base64');
  const at = bytes.indexOf('sha256');
  bytes[at + 12] = bytes[at + 12]! ^ 1;
  copy.dsseEnvelope.payload = bytes.toString('base64');
  return copy as unknown as Record<string, unknown>;
}

describe('signed provenance of every version', () => {
  it('has every version of every pack to sign (250 skills)', () => {
    expect(new Set(records.map((r) => r.skill_id)).size).toBe(250);
  });

  it('is accepted by @sigstore/verify with the service key, and refused after a byte of any file changes or with another key', async () => {
    const signer = sigstoreStatementSigner(service);
    const jwk = await service.publicJwk();
    const trust = serviceKeyTrust(jwk);
    const otherTrust = serviceKeyTrust(await other.publicJwk());
    // Another key under the service key's own kid: @sigstore/verify itself refuses the signature.
    const otherUnderServiceKid = serviceKeyTrustWithKid(jwkThumbprint(jwk), await other.publicJwk());
    let checked = 0;
    for (const record of records) {
      const held = packFiles(record.pack);
      for (const type of PROVENANCE_PREDICATE_TYPES) {
        const bundle = await signer.sign(statementPayload(provenanceStatement(record, type)));
        expect(bundle['mediaType']).toBe(SIGSTORE_BUNDLE_MEDIA_TYPE);
        expect((bundle['verificationMaterial'] as { publicKey: { hint: string } }).publicKey.hint).toBe(jwkThumbprint(jwk));
        expect((bundle['dsseEnvelope'] as { payloadType: string }).payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
        expect(() => verifyBundle(bundle, trust), `${record.skill_id}@${record.version} ${type}`).not.toThrow();
        const statement = statementOf(bundle);
        expect(statement.subject[0]).toEqual({ name: `${record.skill_id}@${record.version}`, digest: { sha256: record.digest } });
        expect(subjectMismatches(statement, record.skill_id, held)).toEqual([]);

        // One byte of each file changed: its digest is no longer the one the signed statement names.
        for (const path of Object.keys(record.pack)) {
          const changed = packFiles({ ...record.pack, [path]: oneByteChanged(record.pack[path]!) });
          expect(subjectMismatches(statement, record.skill_id, changed), path).toEqual([
            `${path}: sha256 ${sha256Hex(oneByteChanged(record.pack[path]!))} is not the signed ${record.files.find((f) => f.path === path)!.sha256}`,
          ]);
        }
        // The envelope changed by one byte (a subject's digest): Sigstore refuses the signature.
        expect(() => verifyBundle(tamperedEnvelope(bundle), trust)).toThrow(/signature verification failed/);
        // Another key: refused, whether it is unknown by the hint or stands under the same name.
        expect(() => verifyBundle(bundle, otherTrust)).toThrow(/no trusted key has the hint/);
        expect(() => verifyBundle(bundle, otherUnderServiceKid)).toThrow(/signature verification failed/);
        checked++;
      }
    }
    expect(checked).toBe(records.length * 2);
  }, 120_000);

  it('refuses a bundle whose key stands under the service key name but is another key', async () => {
    const signer = sigstoreStatementSigner(service);
    const bundle = await signer.sign(statementPayload(slsaProvenanceStatement(records[0]!)));
    const serviceJwk = await service.publicJwk();
    const otherJwk = await other.publicJwk();
    const trust = serviceKeyTrust(serviceJwk);
    // The trust store maps the service key's kid to another key: the signature does not verify.
    const swapped = serviceKeyTrust({ ...otherJwk }, []);
    expect(() => verifyBundle(bundle, trust)).not.toThrow();
    expect(() => verifyBundle(bundle, swapped)).toThrow(/no trusted key has the hint/);
    const underTheSameName = serviceKeyTrustWithKid(jwkThumbprint(serviceJwk), otherJwk);
    expect(() => verifyBundle(bundle, underTheSameName)).toThrow(/signature verification failed/);
  });
});

/** Trust material naming `kid` but holding `jwk`'s key: a verifier misled about the key. */
function serviceKeyTrustWithKid(kid: string, jwk: JsonWebKeyLike) {
  const trust = serviceKeyTrust(jwk);
  const find = trust.publicKey;
  return { ...trust, publicKey: (hint: string) => find(hint === kid ? jwkThumbprint(jwk) : hint) };
}
type JsonWebKeyLike = Parameters<typeof serviceKeyTrust>[0];

describe('the statements', () => {
  const record = records.find((r) => r.checks.security.result.findings.length > 0) ?? records[0]!;
  it('SLSA provenance v1 names the catalog build, the authored record by sha256, the commit and the builder', () => {
    const s = slsaProvenanceStatement(record);
    expect(s._type).toBe('https://in-toto.io/Statement/v1');
    expect(s.predicateType).toBe(SLSA_PROVENANCE_PREDICATE_TYPE);
    expect(s.subject).toHaveLength(1 + record.files.length);
    expect(s.subject.slice(1)).toEqual(record.files.map((f) => ({ name: `${record.skill_id}/${f.path}`, digest: { sha256: f.sha256 } })));
    const deps = s.predicate.buildDefinition.resolvedDependencies;
    expect(deps[0]!.digest).toEqual({ sha256: record.source.record.sha256 });
    if (record.source.commit) expect(deps[1]!.digest).toEqual({ gitCommit: record.source.commit.sha });
    expect(s.predicate.runDetails.builder.id).toContain('catalog/build.ts');
    expect(s.predicate.runDetails.metadata.finishedOn).toBe(`${record.published}T00:00:00Z`);
  });

  it('the checks statement names the scanners, rule sets, findings, the prompt-injection rules over SKILL.md and the eval scores', () => {
    const s = checksStatement(record);
    expect(s.predicateType).toBe(CHECKS_PREDICATE_TYPE);
    expect(s.predicate.security.scanners.map((x) => x.name)).toEqual(['secretlint', 'skill-market-rules']);
    expect(s.predicate.security.findings).toEqual(record.checks.security.result.findings);
    expect(s.predicate.prompt_injection.file).toBe('SKILL.md');
    expect(s.predicate.prompt_injection.rules).toEqual(['SM-PI-001', 'SM-PI-002', 'SM-PI-003']);
    expect(s.predicate.eval).toMatchObject({
      suite: record.checks.eval.suite,
      version: record.checks.eval.version,
      score: record.checks.eval.result.score,
    });
  });

  it('reports a prompt-injection finding in SKILL.md, and not one in another file', () => {
    const finding = (file: string) => ({
      rule_id: 'SM-PI-001',
      category: 'prompt_injection',
      severity: 'high' as const,
      file,
      line: 3,
      column: 1,
      snippet: 'ignore previous instructions',
      remediation: 'Remove it.',
      scanner: 'skill-market-rules' as const,
    });
    const withFindings = structuredClone(record);
    withFindings.checks.security.result.findings = [finding('SKILL.md'), finding('templates/x.md')];
    const pi = checksStatement(withFindings).predicate.prompt_injection;
    expect(pi.findings).toEqual([finding('SKILL.md')]);
    expect(pi.passed).toBe(false);
  });

  it('is the same bytes for the same version, so a kept signature stays valid', () => {
    for (const type of PROVENANCE_PREDICATE_TYPES)
      expect(statementPayload(provenanceStatement(structuredClone(record), type))).toBe(
        statementPayload(provenanceStatement(record, type)),
      );
  });
});

describe('DER signatures for Sigstore', () => {
  it('round-trips r||s through DER, with high bits and leading zeros', () => {
    for (const rs of [
      Buffer.concat([Buffer.alloc(32, 0xff), Buffer.alloc(32, 0x01)]),
      Buffer.concat([Buffer.alloc(1), Buffer.alloc(31, 0x80), Buffer.alloc(2), Buffer.alloc(30, 0x7f)]),
    ]) {
      expect(Buffer.from(derToJose(joseToDer(rs)))).toEqual(rs);
    }
    const der = Buffer.from(joseToDer(Buffer.concat([Buffer.alloc(32, 0xff), Buffer.alloc(32, 0x01)])));
    expect(der[3]).toBe(33); // r gets a 0 byte in front: a DER INTEGER is signed
  });
});

describe('the transparency log (Rekor, @sigstore/mock)', () => {
  const rekorUrl = 'https://rekor.test.invalid';
  // The mock's log key: a P-256 pair as @sigstore/mock makes its own. Its nock interceptor answers one entry per mockRekor.
  const rekorKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  it('with a Rekor URL the bundle carries its entry, and verifies with one required; without, it verifies offline with none', async () => {
    const record = records[0]!;
    const jwk = await service.publicJwk();
    const logged = sigstoreStatementSigner(service, { rekorUrl });
    await mockRekor({ baseURL: rekorUrl, keyPair: rekorKeys });
    const bundle = await logged.sign(statementPayload(checksStatement(record)));
    const entries = (bundle['verificationMaterial'] as { tlogEntries: { kindVersion: { kind: string } }[] }).tlogEntries;
    expect(entries).toHaveLength(1);
    expect(entries[0]!.kindVersion.kind).toBe('intoto');
    const withLog = serviceKeyTrust(jwk, [{ baseUrl: rekorUrl, publicKey: rekorKeys.publicKey }]);
    expect(() => verifyBundle(bundle, withLog, { tlog: true })).not.toThrow();
    // A log the verifier does not trust: the entry is refused.
    const otherLog = serviceKeyTrust(jwk, [{ baseUrl: rekorUrl, publicKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey }]);
    expect(() => verifyBundle(bundle, otherLog, { tlog: true })).toThrow();
    // One byte of the envelope changed: the signature (and the logged body) no longer match.
    expect(() => verifyBundle(tamperedEnvelope(bundle), withLog, { tlog: true })).toThrow();

    const offline = await sigstoreStatementSigner(service).sign(statementPayload(checksStatement(record)));
    expect((offline['verificationMaterial'] as { tlogEntries: unknown[] }).tlogEntries).toEqual([]);
    expect(() => verifyBundle(offline, serviceKeyTrust(jwk))).not.toThrow();
    // Where a log entry is required, a bundle without one is refused.
    expect(() => verifyBundle(offline, withLog, { tlog: true })).toThrow(/expected 1/);
  });
});
