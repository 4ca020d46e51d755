/**
 * x402's sign-in-with-x for eip155 (docs/SECURITY.md): an EIP-4361 message (viem's
 * `createSiweMessage`, the text the service rebuilds and checks) for the skill's x402 resource,
 * naming the transaction, signed with personal_sign; sent base64 in SIGN-IN-WITH-X. It proves the
 * wallet that paid and moves no funds. Used by the wallet purchase and by /recover/.
 */
import { getAddress, stringToHex, type Address, type Hex } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { CAIP2, CHAIN_ID, txResource } from '../../../lambdas/contract/chain';

export interface SignInWithXRequest {
  address: Address;
  /** The skill's x402 resource, `<base>/api/pay?skill=<id>`, as the challenge names it. */
  resource: string;
  skill: string;
  txHash: string;
  /** personal_sign by the wallet. */
  sign: (message: string) => Promise<Hex>;
}

/** The SIGN-IN-WITH-X header value. */
export async function signInWithXHeader(r: SignInWithXRequest): Promise<string> {
  const fields = {
    domain: new URL(r.resource).host,
    address: getAddress(r.address),
    uri: r.resource,
    version: '1',
    chainId: CAIP2,
    type: 'eip191',
    nonce: Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join(''),
    issuedAt: new Date().toISOString(),
    statement: `Claim ${r.skill} with transaction ${r.txHash.toLowerCase()}`,
    resources: [txResource(r.txHash)],
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
    resources: fields.resources,
  });
  return btoa(JSON.stringify({ ...fields, signature: await r.sign(message) }));
}

/** personal_sign through an injected wallet (EIP-1193): the message as UTF-8 hex, as wallets expect. */
export const injectedPersonalSign =
  (wallet: { request(args: { method: string; params?: unknown }): Promise<unknown> }, address: Address) =>
  (message: string): Promise<Hex> =>
    wallet.request({ method: 'personal_sign', params: [stringToHex(message), address] }) as Promise<Hex>;
