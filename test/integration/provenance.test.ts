/**
 * GET /api/packs/provenance through the local stack (issue 52): what a buyer fetches, checked as a
 * buyer would: each bundle by @sigstore/verify with the key from /.well-known/jwks.json, then its
 * subjects against the version's bytes (the content-addressed store's record).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes, type JsonWebKey } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { PROVENANCE_TABLE } from '../../lambdas/contract/tables';
import { dynamoSignedStatements } from '../../lambdas/discovery/adapters/dynamo-signed-statements';
import { tableName } from '../../lambdas/platform/table-names';
import { VERSIONS_DIST_DIR } from '../../lambdas/contract/data-dirs';
import { packFiles } from '../../lambdas/contract/pack-seal';
import { versionObjectKey, type PackVersionRecord } from '../../lambdas/contract/pack-versions';
import {
  CHECKS_PREDICATE_TYPE,
  IN_TOTO_PAYLOAD_TYPE,
  SIGSTORE_BUNDLE_MEDIA_TYPE,
  SLSA_PROVENANCE_PREDICATE_TYPE,
  subjectMismatches,
  type ProvenanceDocument,
} from '../../lambdas/contract/provenance';
import { serviceKeyTrust, statementOf, verifyBundle } from '../support/provenance';

const base = inject('baseUrl');
const get = async (query: string) => {
  const res = await fetch(`${base}/api/packs/provenance${query}`);
  return { res, body: (await res.json()) as any };
};
const serviceJwk = async (): Promise<JsonWebKey & { kid: string }> =>
  ((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: (JsonWebKey & { kid: string })[] }).keys[0]!;
const stored = (digest: string): PackVersionRecord =>
  JSON.parse(readFileSync(join(VERSIONS_DIST_DIR, versionObjectKey(digest)), 'utf8')) as PackVersionRecord;

describe('GET /api/packs/provenance', () => {
  it("answers the current version's two statements, which @sigstore/verify accepts with the JWKS key and whose subjects are the version's bytes", async () => {
    const { res, body } = await get('?skill=agent-x402-first-buy');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = body as ProvenanceDocument;
    expect(doc).toMatchObject({ skill_id: 'agent-x402-first-buy', version: 1, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(doc.published).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(doc.attestations.map((a) => a.predicateType)).toEqual([SLSA_PROVENANCE_PREDICATE_TYPE, CHECKS_PREDICATE_TYPE]);
    const jwk = await serviceJwk();
    const record = stored(doc.digest.slice('sha256:'.length));
    for (const { bundle, predicateType } of doc.attestations) {
      const b = bundle as any;
      expect(b.mediaType).toBe(SIGSTORE_BUNDLE_MEDIA_TYPE);
      expect(b.verificationMaterial.publicKey.hint).toBe(jwk.kid);
      expect(b.verificationMaterial.tlogEntries).toEqual([]);
      expect(b.dsseEnvelope.payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
      expect(() => verifyBundle(bundle, serviceKeyTrust(jwk))).not.toThrow();
      const statement = statementOf(bundle);
      expect(statement.predicateType).toBe(predicateType);
      expect(statement.subject[0]).toEqual({ name: 'agent-x402-first-buy@1', digest: { sha256: record.digest } });
      expect(subjectMismatches(statement, record.skill_id, packFiles(record.pack))).toEqual([]);
      const [path, text] = Object.entries(record.pack)[0]!;
      expect(subjectMismatches(statement, record.skill_id, packFiles({ ...record.pack, [path]: `${text} ` }))).toHaveLength(1);
    }
  });

  it('signs each statement once: requests at once and later all get the same bundles, and version=1 is the same', async () => {
    const skill = 'agent-spend-policy-guard';
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(`?skill=${skill}`)));
    for (const a of answers) expect(a.res.status).toBe(200);
    const first = JSON.stringify(answers[0]!.body);
    for (const a of answers) expect(JSON.stringify(a.body)).toBe(first);
    expect(JSON.stringify((await get(`?skill=${skill}&version=1`)).body)).toBe(first);
  });

  it('answers 400 without a skill or with a bad version, and 404 for an unknown skill or version, in the spec failure body', async () => {
    const missing = await get('');
    expect(missing.res.status).toBe(400);
    expect(missing.body).toMatchObject({ ok: false, error_code: 'SKILL_REQUIRED', retry: false, tip: expect.any(String) });
    for (const v of ['0', 'abc', '1.5', '-1']) {
      const bad = await get(`?skill=agent-x402-first-buy&version=${v}`);
      expect(bad.res.status, v).toBe(400);
      expect(bad.body, v).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST', details: { parameter: 'version' } });
    }
    const unknown = await get('?skill=no-such-skill');
    expect(unknown.res.status).toBe(404);
    expect(unknown.body).toMatchObject({ ok: false, error: 'not_found' });
    const noVersion = await get('?skill=agent-x402-first-buy&version=99');
    expect(noVersion.res.status).toBe(404);
    expect(noVersion.body.message).toMatch(/no version 99/);
  });
});

describe('the signed statements table', () => {
  it('keeps the first bundle of a statement: writers racing each get the one that won, and a later reader too', async () => {
    const client = new DynamoDBClient({
      endpoint: inject('dynamoEndpoint'),
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const store = dynamoSignedStatements(client, tableName(PROVENANCE_TABLE, {}));
    const digest = randomBytes(32).toString('hex');
    expect(await store.get(digest, CHECKS_PREDICATE_TYPE)).toBeUndefined();
    const kept = await Promise.all(Array.from({ length: 4 }, (_, i) => store.keepFirst(digest, CHECKS_PREDICATE_TYPE, { signer: i })));
    const winner = kept[0]!;
    expect(kept).toEqual(Array.from({ length: 4 }, () => winner));
    expect(await store.get(digest, CHECKS_PREDICATE_TYPE)).toEqual(winner);
    expect(await store.keepFirst(digest, CHECKS_PREDICATE_TYPE, { signer: 'late' })).toEqual(winner);
    // The other statement of the same version is kept apart.
    expect(await store.get(digest, SLSA_PROVENANCE_PREDICATE_TYPE)).toBeUndefined();
    client.destroy();
  });
});
