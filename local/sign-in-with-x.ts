/**
 * The buyer's side of a wallet signature (x402 sign-in-with-x, EIP-4361 over EIP-191): what
 * the buyer CLI sends so that only the paying wallet can claim a transfer or fetch its pack
 * again. docs/SECURITY.md describes the fields; lambdas/payments/core/buyer-proof.ts checks them.
 */
import { randomBytes } from 'node:crypto';
import type { LocalAccount } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { CAIP2, CHAIN_ID, txResource } from '../lambdas/contract/chain';
import { links } from '../lambdas/contract/links';

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

/** The signed proof as JSON fields. */
export async function signInWithXProof(i: SignInWithXInput): Promise<Record<string, unknown>> {
  const fields = {
    domain: new URL(i.baseUrl).host,
    address: i.account.address,
    uri: links(i.baseUrl).skill(i.skill).challenge,
    version: '1',
    chainId: CAIP2,
    type: 'eip191',
    nonce: i.nonce ?? randomBytes(12).toString('hex'),
    issuedAt: (i.issuedAt ?? new Date()).toISOString(),
    statement: i.txHash ? `Claim ${i.skill} with transaction ${i.txHash.toLowerCase()}` : `Get ${i.skill} again`,
    ...(i.txHash ? { resources: [txResource(i.txHash)] } : {}),
  };
  const message = createSiweMessage({
    domain: fields.domain,
    address: fields.address,
    uri: fields.uri,
    version: '1',
    chainId: CHAIN_ID,
    nonce: fields.nonce,
    issuedAt: new Date(fields.issuedAt),
    statement: fields.statement,
    ...(fields.resources ? { resources: fields.resources } : {}),
  });
  return { ...fields, signature: await i.account.signMessage({ message }) };
}

/** The SIGN-IN-WITH-X header value: base64 of the proof's JSON. */
export async function signInWithXHeader(i: SignInWithXInput): Promise<string> {
  return Buffer.from(JSON.stringify(await signInWithXProof(i))).toString('base64');
}
