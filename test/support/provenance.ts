/**
 * How a buyer checks a version's provenance with Sigstore's own verifier (docs/PROVENANCE.md): the
 * bundle verified by @sigstore/verify against the service key (the JWKS key, under its `kid`, the
 * bundle's public-key hint), then the statement's subjects compared with the bytes held.
 */
import { createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { bundleFromJSON } from '@sigstore/bundle';
import { toSignedEntity, toTrustMaterial, Verifier, type TrustMaterial } from '@sigstore/verify';
import { jwkThumbprint } from '../../lambdas/ledger';
import type { InTotoStatement } from '../../lambdas/contract/provenance';

type TrustedRoot = Parameters<typeof toTrustMaterial>[0];

/** A Rekor log a test trusts: its base URL and public key. */
export interface TrustedLog {
  baseUrl: string;
  publicKey: KeyObject;
}

/** Trust material with one public key, the service key's JWK under its thumbprint, and the logs given. */
export function serviceKeyTrust(jwk: JsonWebKey, logs: readonly TrustedLog[] = []): TrustMaterial {
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const kid = jwkThumbprint(jwk);
  const root: TrustedRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    certificateAuthorities: [],
    ctlogs: [],
    timestampAuthorities: [],
    tlogs: logs.map((log) => {
      const der = log.publicKey.export({ type: 'spki', format: 'der' });
      return {
        baseUrl: log.baseUrl,
        hashAlgorithm: 1 /* SHA2_256 */,
        publicKey: { rawBytes: der, keyDetails: 5 /* PKIX_ECDSA_P256_SHA_256 */, validFor: { start: new Date(0), end: undefined } },
        logId: { keyId: createHash('sha256').update(der).digest() },
      };
    }),
  } as unknown as TrustedRoot;
  return toTrustMaterial(root, (hint) => {
    if (hint !== kid) throw new Error(`no trusted key has the hint ${hint}`);
    return { publicKey: key, validFor: () => true };
  });
}

/**
 * @sigstore/verify's verdict on a bundle (throws when it refuses it): offline, no log entry or
 * timestamp is required; with `tlog`, one entry of a trusted log (and its time) is.
 */
export function verifyBundle(bundle: unknown, trust: TrustMaterial, options: { tlog?: boolean } = {}): void {
  const threshold = options.tlog ? 1 : 0;
  new Verifier(trust, { tlogThreshold: threshold, timestampThreshold: threshold }).verify(toSignedEntity(bundleFromJSON(bundle)));
}

/** The in-toto statement a bundle's DSSE envelope carries. */
export function statementOf(bundle: unknown): InTotoStatement<Record<string, unknown>> {
  const envelope = (bundle as { dsseEnvelope: { payload: string } }).dsseEnvelope;
  return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as InTotoStatement<Record<string, unknown>>;
}
