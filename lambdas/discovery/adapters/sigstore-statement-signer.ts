/**
 * Signs in-toto statements with the service key into Sigstore bundles v0.3, with @sigstore/sign as
 * it documents: its DSSEBundleBuilder over a Signer of ours, which asks the service key (KMS in
 * AWS, the key file locally) and hands Sigstore the DER signature it expects; the verification
 * material is the public key's hint, the JWKS `kid`. With a Rekor URL, its RekorWitness logs each
 * envelope (Rekor's v1 API) and the bundle carries the entry.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { bundleToJSON } from '@sigstore/bundle';
import { DSSEBundleBuilder, RekorWitness, type Signer, type Witness } from '@sigstore/sign';
import { IN_TOTO_PAYLOAD_TYPE } from '../../contract/provenance';
import { jwkThumbprint, type ServiceSigner } from '../../ledger';
import { joseToDer } from '../../platform/adapters/der-signature';
import type { StatementSigner } from '../ports';

/** Sigstore's Signer over the service key: DER ECDSA over the DSSE pre-authentication encoding. */
export function serviceKeySigstoreSigner(service: ServiceSigner): Signer {
  let key: Promise<{ pem: string; hint: string }> | undefined;
  const publicKey = () =>
    (key ??= service.publicJwk().then((jwk: JsonWebKey) => ({
      pem: createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString(),
      hint: jwkThumbprint(jwk),
    })));
  return {
    sign: async (data) => {
      const [{ pem, hint }, signature] = await Promise.all([publicKey(), service.sign(data)]);
      return { signature: Buffer.from(joseToDer(signature)), key: { $case: 'publicKey', publicKey: pem, hint } };
    },
  };
}

export interface SigstoreSignerOptions {
  /** A Rekor instance's base URL: each bundle then carries its transparency log entry. */
  rekorUrl?: string | undefined;
}

export function sigstoreStatementSigner(service: ServiceSigner, options: SigstoreSignerOptions = {}): StatementSigner {
  // An `intoto` 0.0.2 entry, as npm's provenance bundles carry: Rekor v1 (rekor.sigstore.dev, a
  // self-hosted Rekor) records the envelope and its signature, and @sigstore/verify checks both.
  const witnesses: Witness[] = options.rekorUrl ? [new RekorWitness({ rekorBaseURL: options.rekorUrl, entryType: 'intoto' })] : [];
  const builder = new DSSEBundleBuilder({ signer: serviceKeySigstoreSigner(service), witnesses });
  return {
    sign: async (payload) => {
      const json = bundleToJSON(await builder.create({ data: Buffer.from(payload, 'utf8'), type: IN_TOTO_PAYLOAD_TYPE }));
      // Protobuf's JSON leaves an empty list out; the published shape says `tlogEntries: []` when nothing was logged.
      return { ...json, verificationMaterial: { ...json.verificationMaterial, tlogEntries: json.verificationMaterial.tlogEntries ?? [] } };
    },
  };
}
