/**
 * The skill page's version facts (issue 52): the digest's Copy button, and "Verified" for the
 * version on sale once this browser has checked its signed provenance (provenance.ts) against the
 * key the shop publishes. Loaded by skill.ts as a chunk of its own once the page is usable.
 */
import { call, isFailure } from './api';
import { byId } from './dom';
import { verifyProvenance } from './provenance';

/** What the provenance fact says, in its three ends: verified, the check failed, or no record to check. */
function provenanceShown(state: 'verified' | 'failed' | 'unavailable', text: string, note: string): void {
  const fact = byId('provenance');
  fact.dataset['state'] = state;
  fact.className = state === 'verified' ? 'ok' : 'err';
  fact.textContent = text;
  byId('provenance-note').textContent = note;
}

/**
 * Verifies the version's signed provenance: the statements from the shop, the key from its JWKS,
 * the version and digest from this page. "Verified" only when every check passed; an answer that
 * cannot be read or is not a record is "unavailable", anything that does not verify "failed".
 */
async function provenance(skill: string): Promise<void> {
  const version = Number(byId('version').dataset['version']);
  const expected = { skill, version, digest: byId('version-digest').textContent ?? '' };
  let answer: unknown, jwks: unknown;
  try {
    const [record, keys] = await Promise.all([
      call<unknown>(`/api/packs/provenance?skill=${encodeURIComponent(skill)}&version=${version}`),
      call<unknown>('/.well-known/jwks.json'),
    ]);
    if (record.status !== 200 || keys.status !== 200 || isFailure(record.body)) throw new Error('no record');
    [answer, jwks] = [record.body, keys.body];
  } catch {
    // Said in plain words: the shop's own message names its API paths, which a person does not need here.
    return provenanceShown(
      'unavailable',
      'Not available',
      "The shop did not send this version's signed record just now, so it could not be checked. Try again later.",
    );
  }
  try {
    await verifyProvenance(answer, jwks, expected);
    provenanceShown(
      'verified',
      'Verified',
      `Version ${version}'s build record and checks are signed by the shop's published key and name exactly these files; checked in this browser.`,
    );
  } catch (e) {
    provenanceShown(
      'failed',
      'Check failed',
      `The signed record does not hold: ${e instanceof Error ? e.message : String(e)}. Do not rely on it.`,
    );
  }
}

/** The digest is copyable: a button, once there is a script to copy with. */
function copyDigest(): void {
  const button = byId<HTMLButtonElement>('copy-digest');
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(byId('version-digest').textContent ?? '');
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed: select the digest instead';
    }
  });
}

/** Wires the version facts of the page of `skill`. */
export function versionFacts(skill: string): void {
  copyDigest();
  void provenance(skill);
}
