/**
 * "Provenance verified" on a skill page (issue 52): the page checks, in the browser, that the
 * shop's signed statements about the version it shows name exactly that version's digest, signed
 * by the key the shop publishes. Nothing is trusted from the answer but what the signature covers.
 *
 * `GET /api/packs/provenance?skill=&version=` answers the version's attestations, each a Sigstore
 * bundle v0.3 holding a DSSE envelope (an in-toto Statement v1); `GET /.well-known/jwks.json`
 * answers the service's public keys. For every attestation (the SLSA provenance one must be among
 * them): the envelope's one signature is an ECDSA P-256 SHA-256 signature (DER, as Sigstore
 * writes it; WebCrypto takes r||s) over DSSE's PAE(payloadType, payload) by the JWKS key whose
 * kid is the bundle's key hint; the statement's predicate type is the one the answer claims; its
 * first subject is `<skill>@<version>` with the digest printed on the page. Any other answer is a
 * failure: the page never says "verified" unless every check passed. WebCrypto only, no library.
 */

/** The SLSA provenance predicate: the attestation that must be among a version's. */
export const SLSA_PROVENANCE = 'https://slsa.dev/provenance/v1';

/** What the page shows and expects the statements to name. */
export interface Expected {
  skill: string;
  version: number;
  /** The version's digest, `sha256:<hex>`, as printed on the page. */
  digest: string;
}

/** A reason the provenance is not verified, said to a person. */
export class ProvenanceError extends Error {}

/** The answers as JSON may hold them: every field is read as possibly missing, and checked. */
interface Bundle {
  dsseEnvelope?: { payload?: string; payloadType?: string; signatures?: { sig?: string }[] };
  verificationMaterial?: { publicKey?: { hint?: string } };
}
interface Attestation {
  predicateType?: string;
  bundle?: Bundle;
}
type Jwk = JsonWebKey & { kid?: string };

const fail = (why: string): never => {
  throw new ProvenanceError(why);
};

const bytes = (b64: unknown): Uint8Array =>
  typeof b64 === 'string' ? Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)) : fail('a signed field is missing');

/** DSSE's pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
export function pae(type: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const t = new TextEncoder().encode(type);
  const head = new TextEncoder().encode(`DSSEv1 ${t.length} ${type} ${body.length} `);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

/** An ECDSA P-256 signature, DER (SEQUENCE of two INTEGERs) to the raw r||s WebCrypto verifies. */
export function derToRaw(der: Uint8Array): Uint8Array<ArrayBuffer> {
  const raw = new Uint8Array(64);
  if (der[0] !== 0x30 || der[1] !== der.length - 2) fail('the signature is not a DER ECDSA signature');
  let at = 2;
  for (const offset of [0, 32]) {
    const len = der[at + 1]!;
    if (der[at] !== 0x02 || len < 1 || at + 2 + len > der.length) fail('the signature is not a DER ECDSA signature');
    let int = der.subarray(at + 2, at + 2 + len);
    while (int.length > 1 && int[0] === 0) int = int.subarray(1);
    if (int.length > 32) fail('the signature is not a P-256 signature');
    raw.set(int, offset + 32 - int.length);
    at += 2 + len;
  }
  if (at !== der.length) fail('the signature is not a DER ECDSA signature');
  return raw;
}

/** Checks one attestation; returns nothing when its signature and statement hold, throws why not. */
async function verifyOne(attestation: Attestation | undefined, keys: Jwk[], expected: Expected): Promise<void> {
  const envelope = attestation?.bundle?.dsseEnvelope;
  const hint = attestation?.bundle?.verificationMaterial?.publicKey?.hint;
  const jwk = keys.find((k) => typeof hint === 'string' && k?.kid === hint && k.kty === 'EC' && k.crv === 'P-256');
  if (!jwk) return fail('it is signed by a key the shop does not publish');
  if (envelope?.payloadType !== 'application/vnd.in-toto+json' || envelope.signatures?.length !== 1)
    return fail('it is not one signed in-toto statement');
  const payload = bytes(envelope.payload);
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) },
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
  const signed = await crypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    derToRaw(bytes(envelope.signatures[0]?.sig)),
    pae(envelope.payloadType, payload),
  );
  if (!signed) fail("its signature does not match the shop's key");
  const statement = JSON.parse(new TextDecoder().decode(payload)) as {
    _type?: string;
    predicateType?: string;
    subject?: { name?: string; digest?: { sha256?: string } }[];
  } | null;
  const subject = statement?.subject?.[0];
  if (statement?._type !== 'https://in-toto.io/Statement/v1' || statement.predicateType !== attestation?.predicateType)
    fail('the signed statement is not the one announced');
  if (subject?.name !== `${expected.skill}@${expected.version}`)
    fail(`it is about another pack or version than version ${expected.version}`);
  if (`sha256:${subject?.digest?.sha256}` !== expected.digest) fail('it names other files than the ones this page lists');
}

/**
 * Verifies a provenance answer against the service's JWKS and what the page shows: resolves when
 * every attestation verifies and the SLSA provenance is among them, rejects with a
 * {@link ProvenanceError} (or any error on malformed input) otherwise.
 */
export async function verifyProvenance(answer: unknown, jwks: unknown, expected: Expected): Promise<void> {
  const list = (answer as { attestations?: unknown } | null)?.attestations;
  const attestations = (Array.isArray(list) ? list : []) as (Attestation | undefined)[];
  if (!attestations.some((a) => a?.predicateType === SLSA_PROVENANCE)) fail('the shop sent no signed provenance for this version');
  const published = (jwks as { keys?: unknown } | null)?.keys;
  const keys = (Array.isArray(published) ? published : []) as Jwk[];
  for (const a of attestations) await verifyOne(a, keys, expected);
}
