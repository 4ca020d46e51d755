import { createPublicClient, isAddressEqual, recoverTypedDataAddress, type TypedDataDefinition } from 'viem';
import { chainSaysNo, rpcTransport } from '../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { TypedSignatures } from '../ports';

/**
 * EIP-712 checks with viem. A signature that recovers to the address is the key holder's and
 * needs no chain call; anything else is asked of the chain through viem's public client (ERC-1271
 * `isValidSignature`, or ERC-6492 for a smart account not deployed yet), over the configured RPC
 * providers in order. A chain that cannot be asked throws: a fault, never a verdict.
 */
export function viemTypedSignatures(rpcUrls: RpcUrls): TypedSignatures {
  // No chain definition: viem then uses its deployless ERC-6492 validator, which needs no
  // contract at a fixed address (and so works on anvil as on Base).
  const client = createPublicClient({ transport: rpcTransport(rpcUrls, { timeout: 3_000 }) });
  return {
    async verify(input) {
      const typed = input as unknown as TypedDataDefinition;
      try {
        if (isAddressEqual(await recoverTypedDataAddress({ ...typed, signature: input.signature }), input.address)) return true;
      } catch {
        // Not an ECDSA signature (a smart account's): the chain decides.
      }
      if (await client.verifyTypedData({ ...typed, address: input.address, signature: input.signature })) return true;
      return chainSaysNo(client);
    },
  };
}
