/**
 * x402's sign-in-with-x for eip155 (docs/SECURITY.md): the fields of lambdas/contract/sign-in-with-x.ts
 * as an EIP-4361 message (viem's `createSiweMessage`, the text the service rebuilds and checks),
 * signed with personal_sign; sent base64 in SIGN-IN-WITH-X. It proves the wallet that paid and
 * moves no funds. Used by the wallet purchase and by /recover/.
 */
import { getAddress, stringToHex, type Address, type Hex } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import {
  nonceHex,
  purchasesSignInFields,
  signInWithXFields,
  siweParameters,
  type SignInWithXFields,
} from '../../../lambdas/contract/sign-in-with-x';

export interface SignInWithXRequest {
  address: Address;
  /** The shop's base URL (the page's origin, or the challenge's resource's). */
  baseUrl: string;
  skill: string;
  /** The transfer being claimed; without one, a sign-in for what the wallet already has. */
  txHash?: string | undefined;
  /** personal_sign by the wallet. */
  sign: (message: string) => Promise<Hex>;
}

/** The header value of signed fields: base64 of the fields and the wallet's signature of their EIP-4361 message. */
const signedHeader = async (fields: SignInWithXFields, sign: SignInWithXRequest['sign']): Promise<string> =>
  btoa(JSON.stringify({ ...fields, signature: await sign(createSiweMessage(siweParameters(fields))) }));

/** The SIGN-IN-WITH-X header value. */
export async function signInWithXHeader(r: SignInWithXRequest): Promise<string> {
  const fields = signInWithXFields({
    baseUrl: r.baseUrl,
    skill: r.skill,
    address: getAddress(r.address),
    txHash: r.txHash,
    issuedAt: new Date(),
    nonce: nonceHex(crypto.getRandomValues(new Uint8Array(12))),
  });
  return signedHeader(fields, r.sign);
}

/** The SIGN-IN-WITH-X header that opens the wallet's purchases (/purchases/): the purchases URL as `uri`. */
export async function purchasesSignInHeader(r: Omit<SignInWithXRequest, 'skill' | 'txHash'>): Promise<string> {
  const fields = purchasesSignInFields({
    baseUrl: r.baseUrl,
    address: getAddress(r.address),
    issuedAt: new Date(),
    nonce: nonceHex(crypto.getRandomValues(new Uint8Array(12))),
  });
  return signedHeader(fields, r.sign);
}

/** personal_sign through an injected wallet (EIP-1193): the message as UTF-8 hex, as wallets expect. */
export const injectedPersonalSign =
  (wallet: { request(args: { method: string; params?: unknown }): Promise<unknown> }, address: Address) =>
  (message: string): Promise<Hex> =>
    wallet.request({ method: 'personal_sign', params: [stringToHex(message), address] }) as Promise<Hex>;
