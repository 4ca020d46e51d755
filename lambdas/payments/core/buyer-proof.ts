/**
 * What a wallet signature must say to count as the buyer's (x402 sign-in-with-x, EIP-4361):
 * this service's domain, the skill's x402 resource as `uri`, the transaction among `resources`,
 * the configured network's chain id, a fresh issue time and a well-formed nonce. Pure: the signature itself and
 * the nonce's single use are checked through ports by the caller.
 */
import { ADDRESS } from '../../contract/chain';
import { txResource, type Network } from '../../contract/networks';
import type { SignInWithX } from '../ports';

/** A signature is fresh for this long after `issuedAt` (x402's default challenge lifetime). */
export const SIGNATURE_MAX_AGE_SECONDS = 300;
/** Clock skew tolerated for an `issuedAt` slightly in the future. */
const SKEW_SECONDS = 30;
/** EIP-4361: at least 8 alphanumeric characters. */
const NONCE = /^[A-Za-z0-9]{8,64}$/;
/**
 * Hex bytes: an EOA's 65-byte signature, or a smart wallet's (EIP-1271, any length; ERC-6492
 * wraps one with its factory call), up to 3,000 bytes.
 */
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){65,3000}$/;

export interface ExpectedProof {
  /** Host (and port) of the advertised base URL. */
  domain: string;
  /** The skill's x402 resource: `<base>/api/pay?skill=<id>`. */
  uri: string;
  /** The transfer being claimed; undefined when the wallet asks for what it already has access to (no transfer). */
  txHash: string | undefined;
  /** The chain the service settles on: a signature for another chain is not for this service. */
  network: Network;
  now: Date;
}

/** Why a proof does not fit, or undefined when every field does. Never trusts the client's clock. */
export function proofProblem(p: SignInWithX, expected: ExpectedProof): string | undefined {
  if (p.domain !== expected.domain) return `domain must be ${expected.domain}`;
  if (p.uri !== expected.uri) return `uri must be ${expected.uri}`;
  if (expected.txHash !== undefined && !p.resources?.includes(txResource(expected.network.caip2, expected.txHash)))
    return `resources must include ${txResource(expected.network.caip2, expected.txHash)}`;
  if (p.version !== '1') return 'version must be "1"';
  if (p.chainId !== expected.network.caip2) return `chainId must be ${expected.network.caip2}`;
  if (p.type !== 'eip191') return 'type must be eip191';
  if (!ADDRESS.test(p.address)) return 'address must be 0x followed by 40 hex digits';
  if (!NONCE.test(p.nonce)) return 'nonce must be 8 to 64 letters and digits';
  if (!SIGNATURE.test(p.signature))
    return 'signature must be hex bytes: 65 for a wallet key, or a smart wallet signature (EIP-1271, ERC-6492)';
  const now = expected.now.getTime();
  const issued = Date.parse(p.issuedAt);
  if (!Number.isFinite(issued)) return 'issuedAt must be an ISO 8601 time';
  if (issued > now + SKEW_SECONDS * 1000) return 'issuedAt is in the future';
  if (now - issued > SIGNATURE_MAX_AGE_SECONDS * 1000) return `issuedAt is older than ${SIGNATURE_MAX_AGE_SECONDS} s: sign again`;
  if (p.expirationTime !== undefined && !(Date.parse(p.expirationTime) > now)) return 'expirationTime has passed';
  if (p.notBefore !== undefined && !(Date.parse(p.notBefore) <= now)) return 'notBefore is in the future';
  return undefined;
}
