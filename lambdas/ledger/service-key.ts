/**
 * The service key's public form and names: its RFC 7638 thumbprint (the `kid` of everything it
 * signs: receipts and the agent card) and the JWKS published at /.well-known/jwks.json.
 */
import { createHash, type JsonWebKey } from 'node:crypto';
import type { ServiceSigner } from './ports';

const b64url = (data: string | Uint8Array): string => Buffer.from(data).toString('base64url');

/** RFC 7638 thumbprint of an EC public key. */
export function jwkThumbprint(jwk: JsonWebKey): string {
  return b64url(createHash('sha256').update(`{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}","y":"${jwk.y}"}`).digest());
}

/** The JWKS of the service key: the public half only, named by its thumbprint. */
export async function jwks(signer: ServiceSigner): Promise<{ keys: JsonWebKey[] }> {
  const jwk = await signer.publicJwk();
  return { keys: [{ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: jwkThumbprint(jwk), alg: 'ES256', use: 'sig' } as JsonWebKey] };
}

/**
 * A JWS signed with the service key (ES256): the protected header gets `alg` and `kid`, and the
 * signing input is `<header>.<payload>`, both base64url; the signer returns raw r||s. Answers the
 * header and the signature, so a caller can keep the payload detached (the agent card) or not.
 */
export async function serviceJws(
  signer: ServiceSigner,
  header: Record<string, unknown>,
  payload: string,
): Promise<{ protected: string; payload: string; signature: string }> {
  const kid = jwkThumbprint(await signer.publicJwk());
  const protectedHeader = b64url(JSON.stringify({ alg: 'ES256', ...header, kid }));
  const encoded = b64url(payload);
  const signature = b64url(await signer.sign(Buffer.from(`${protectedHeader}.${encoded}`, 'ascii')));
  return { protected: protectedHeader, payload: encoded, signature };
}
