/**
 * The service key in AWS (receipts and the agent card): an ECC_NIST_P256 SIGN_VERIFY key in KMS whose private half
 * never leaves KMS. KMS answers DER signatures; JWS wants raw r||s.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { derToJose } from '../../platform/adapters/der-signature';
import type { ServiceSigner } from '../ports';
import { METRICS } from '../../contract/metrics';
import { countMetric } from '../../platform/metrics';
import { traced } from '../../platform/tracer';

export function kmsServiceSigner(keyId: string, client = traced(new KMSClient({}))): ServiceSigner {
  let jwk: Promise<JsonWebKey> | undefined;
  return {
    async sign(input) {
      const out = await client
        .send(new SignCommand({ KeyId: keyId, Message: input, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }))
        .catch((e: unknown) => {
          // No receipt or agent card can be signed: the SignerFailures alarm watches this.
          countMetric(METRICS.signerFailures, { Key: 'service' });
          throw e;
        });
      if (!out.Signature) throw new Error('KMS returned no signature');
      return derToJose(out.Signature);
    },
    publicJwk() {
      jwk ??= client.send(new GetPublicKeyCommand({ KeyId: keyId })).then((out) => {
        if (!out.PublicKey) throw new Error('KMS returned no public key');
        return createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }).export({ format: 'jwk' });
      });
      return jwk;
    },
  };
}
