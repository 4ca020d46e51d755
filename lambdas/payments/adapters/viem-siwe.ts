/**
 * Wallet signatures as x402's sign-in-with-x extension defines them for eip155 chains: the
 * EIP-4361 (SIWE) message built from the proof's fields, signed with EIP-191 (personal_sign).
 * Recovery is local (no RPC), so only externally owned accounts can sign here; smart-contract
 * wallets (EIP-1271) would need a chain call and are not accepted.
 */
import { getAddress, recoverMessageAddress, type Hex } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import type { SignInWithX, WalletSignatures } from '../ports';

/** The EIP-4361 message text a wallet signs for these fields. */
function siweMessage(f: Omit<SignInWithX, 'signature'>): string {
  return createSiweMessage({
    domain: f.domain,
    address: f.address as Hex,
    uri: f.uri,
    version: '1',
    chainId: Number(f.chainId.replace(/^eip155:/, '')),
    nonce: f.nonce,
    issuedAt: new Date(f.issuedAt),
    ...(f.expirationTime ? { expirationTime: new Date(f.expirationTime) } : {}),
    ...(f.notBefore ? { notBefore: new Date(f.notBefore) } : {}),
    ...(f.statement ? { statement: f.statement } : {}),
    ...(f.resources ? { resources: f.resources } : {}),
  });
}

export const viemSiwe: WalletSignatures = {
  async verify(f: SignInWithX) {
    try {
      const { signature, ...fields } = f;
      const canonical = siweMessage(fields);
      // EIP-4361 writes the address in its EIP-55 form; browser wallets hand out lower case, and a
      // page without keccak cannot checksum it. Both texts name the same address and every other
      // field, so either signed form is accepted.
      const checksummed = getAddress(f.address);
      const forms = f.address === checksummed ? [canonical] : [canonical, canonical.replace(`\n${checksummed}\n`, `\n${f.address}\n`)];
      for (const message of forms) {
        const signer = await recoverMessageAddress({ message, signature: signature as Hex });
        if (signer === checksummed) return true;
      }
      return false;
    } catch {
      return false;
    }
  },
};
