/**
 * x402's sign-in-with-x for eip155 (CAIP-122; EIP-4361 signed with EIP-191): the fields a wallet
 * signs to prove it paid, and the parameters of their EIP-4361 message. One definition for the
 * three places that build that message: the service, which rebuilds it to check a signature
 * (payments' viem-siwe adapter), the buyer CLI (local/sign-in-with-x.ts) and the storefront
 * (catalog/storefront/browser/wallet-siwx.ts). Pure: each passes the parameters to viem's
 * `createSiweMessage`. docs/SECURITY.md describes the fields.
 */
import { links } from './links';
import { NETWORKS, txResource } from './networks';

/** The fields, as they travel (JSON, base64, in SIGN-IN-WITH-X), without the signature. */
export interface SignInWithXFields {
  domain: string;
  address: string;
  uri: string;
  version: string;
  chainId: string;
  type: string;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  statement?: string;
  resources?: string[];
}

/** `createSiweMessage`'s parameters for those fields. */
export interface SiweParameters {
  domain: string;
  address: `0x${string}`;
  uri: string;
  version: '1';
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime?: Date;
  notBefore?: Date;
  statement?: string;
  resources?: string[];
}

/** The EIP-4361 message parameters of a proof's fields. */
export function siweParameters(f: SignInWithXFields): SiweParameters {
  return {
    domain: f.domain,
    address: f.address as `0x${string}`,
    uri: f.uri,
    version: '1',
    chainId: Number(f.chainId.replace(/^eip155:/, '')),
    nonce: f.nonce,
    issuedAt: new Date(f.issuedAt),
    ...(f.expirationTime ? { expirationTime: new Date(f.expirationTime) } : {}),
    ...(f.notBefore ? { notBefore: new Date(f.notBefore) } : {}),
    ...(f.statement ? { statement: f.statement } : {}),
    ...(f.resources ? { resources: f.resources } : {}),
  };
}

export interface SignInWithXRequest {
  /** The advertised base URL: the domain and the skill's x402 resource (`uri`) come from it. */
  baseUrl: string;
  skill: string;
  /** EIP-55 or lower case; the service accepts both spellings. */
  address: string;
  /** The transfer being claimed; without one, a sign-in for what the wallet already paid for. */
  txHash?: string | undefined;
  /** Now, from the caller's clock (tests move it). */
  issuedAt: Date;
  /** EIP-4361: at least 8 alphanumerics; {@link nonceHex} of 12 random bytes. */
  nonce: string;
  /**
   * The CAIP-2 chain the service settles on (its challenge's `network`); Base by default. A
   * staging stack on Base Sepolia checks `eip155:84532`.
   */
  chain?: `eip155:${number}` | undefined;
}

/** A nonce from the caller's random bytes, in hex (12 bytes give 24 characters). */
export const nonceHex = (random: Uint8Array): string => Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('');

/** The fields a buyer signs for `skill` (and the transfer, if any). */
export function signInWithXFields(r: SignInWithXRequest): SignInWithXFields {
  const chain = r.chain ?? NETWORKS.base.caip2;
  return {
    domain: new URL(r.baseUrl).host,
    address: r.address,
    uri: links(r.baseUrl).skill(r.skill).challenge,
    version: '1',
    chainId: chain,
    type: 'eip191',
    nonce: r.nonce,
    issuedAt: r.issuedAt.toISOString(),
    statement: r.txHash ? `Claim ${r.skill} with transaction ${r.txHash.toLowerCase()}` : `Get ${r.skill} again`,
    ...(r.txHash ? { resources: [txResource(chain, r.txHash)] } : {}),
  };
}

/** What a purchases sign-in says to the person signing: it opens a list, it moves nothing. */
export const PURCHASES_STATEMENT = 'See my purchases';

/**
 * The fields a wallet signs to see what it bought (GET /api/purchases): the purchases URL as
 * `uri`, so a sign-in made for a pack (whose `uri` is its challenge) never opens the list, and
 * the other way round.
 */
export function purchasesSignInFields(r: Omit<SignInWithXRequest, 'skill' | 'txHash'>): SignInWithXFields {
  return {
    domain: new URL(r.baseUrl).host,
    address: r.address,
    uri: links(r.baseUrl).purchases,
    version: '1',
    chainId: r.chain ?? NETWORKS.base.caip2,
    type: 'eip191',
    nonce: r.nonce,
    issuedAt: r.issuedAt.toISOString(),
    statement: PURCHASES_STATEMENT,
  };
}
