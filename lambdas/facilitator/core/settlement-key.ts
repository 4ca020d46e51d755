/**
 * An x402 settlement's key: one per (network, token, authorizer, nonce), the identity of an
 * EIP-3009 authorization, which can move money once. Lower case throughout.
 */
import type { Requirement, SignedPayment } from '../ports';

/** `<caip2>#<token>#<from>#<nonce>`: the settlement record's `pk`. */
export const settlementKey = (payment: SignedPayment, requirement: Requirement): string =>
  `${requirement.network}#${requirement.asset}#${payment.payload.authorization.from}#${payment.payload.authorization.nonce}`.toLowerCase();

/** The authorization a settlement key names: its token, authorizer and nonce (what the token's `authorizationState` is asked about). */
export function authorizationOfKey(pk: string): { token: string; from: string; nonce: string } | undefined {
  const parts = pk.split('#');
  if (parts.length !== 4) return undefined;
  const [, token, from, nonce] = parts as [string, string, string, string];
  return { token, from, nonce };
}
