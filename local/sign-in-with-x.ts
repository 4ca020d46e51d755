/**
 * The buyer's side of a wallet signature (x402 sign-in-with-x, EIP-4361 over EIP-191): what
 * the buyer CLI sends so that only the paying wallet can claim a transfer or fetch its pack
 * again. docs/SECURITY.md describes the fields; lambdas/payments/core/buyer-proof.ts checks them.
 */
import type { LocalAccount } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import {
  nonceHex,
  purchasesSignInFields,
  signInWithXFields,
  siweParameters,
  type SignInWithXFields,
} from '../lambdas/contract/sign-in-with-x';

export interface SignInWithXInput {
  account: LocalAccount;
  baseUrl: string;
  skill: string;
  /** The transfer being claimed; without one, a sign-in for what the wallet already paid for. */
  txHash?: string | undefined;
  /** Defaults to now; tests move it. */
  issuedAt?: Date;
  nonce?: string;
}

/** Fields with the account's signature of their EIP-4361 message: the proof as JSON. */
const signed = async (account: LocalAccount, fields: SignInWithXFields): Promise<Record<string, unknown>> => ({
  ...fields,
  signature: await account.signMessage({ message: createSiweMessage(siweParameters(fields)) }),
});

/** The signed proof as JSON fields. */
export async function signInWithXProof(i: SignInWithXInput): Promise<Record<string, unknown>> {
  const fields = signInWithXFields({
    ...i,
    address: i.account.address,
    issuedAt: i.issuedAt ?? new Date(),
    nonce: i.nonce ?? nonceHex(crypto.getRandomValues(new Uint8Array(12))),
  });
  return signed(i.account, fields);
}

/** The SIGN-IN-WITH-X header value: base64 of the proof's JSON. */
export async function signInWithXHeader(i: SignInWithXInput): Promise<string> {
  return Buffer.from(JSON.stringify(await signInWithXProof(i))).toString('base64');
}

/** The SIGN-IN-WITH-X header that opens a wallet's purchases (GET /api/purchases): the purchases URL as `uri`. */
export async function purchasesSignInHeader(i: Omit<SignInWithXInput, 'skill' | 'txHash'>): Promise<string> {
  const fields = purchasesSignInFields({
    baseUrl: i.baseUrl,
    address: i.account.address,
    issuedAt: i.issuedAt ?? new Date(),
    nonce: i.nonce ?? nonceHex(crypto.getRandomValues(new Uint8Array(12))),
  });
  return Buffer.from(JSON.stringify(await signed(i.account, fields))).toString('base64');
}
