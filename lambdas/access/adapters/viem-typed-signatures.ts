import { createPublicClient, fallback, http, isAddressEqual, recoverTypedDataAddress, type TypedDataDefinition } from 'viem';
import type { TypedSignatures } from '../ports';

/**
 * EIP-712 checks with viem. A signature that recovers to the address is the key holder's and
 * needs no chain call; anything else is asked of the chain through viem's public client (ERC-1271
 * `isValidSignature`, or ERC-6492 for a smart account not deployed yet), over the configured RPC
 * providers in order. A chain that cannot be asked throws: a fault, never a verdict.
 */
export function viemTypedSignatures(rpcUrls: readonly string[]): TypedSignatures {
  // No chain definition: viem then uses its deployless ERC-6492 validator, which needs no
  // contract at a fixed address (and so works on anvil as on Base).
  const client = createPublicClient({ transport: fallback(rpcUrls.map((url) => http(url, { timeout: 3_000, retryCount: 0 }))) });
  return {
    async verify(input) {
      const typed = input as unknown as TypedDataDefinition;
      try {
        if (isAddressEqual(await recoverTypedDataAddress({ ...typed, signature: input.signature }), input.address)) return true;
      } catch {
        // Not an ECDSA signature (a smart account's): the chain decides.
      }
      return client.verifyTypedData({ ...typed, address: input.address, signature: input.signature });
    },
  };
}
