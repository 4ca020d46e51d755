/**
 * Wallet signatures as x402's sign-in-with-x extension defines them for eip155 chains: the
 * EIP-4361 (SIWE) message built from the proof's fields, signed with EIP-191 (personal_sign) by
 * an externally owned account, or checked by the wallet contract itself (EIP-1271), or by a
 * wallet not deployed yet (ERC-6492). An EOA's signature is recovered locally (no RPC); only a
 * signature that does not recover to the address is asked of the chain (viem's
 * `verifyMessage`, which runs the 1271 call or the 6492 validator as an `eth_call`); a chain that
 * cannot be asked throws (a fault, retried), as the access domain's typed signatures do.
 */
import { authorizationTypes } from '@x402/evm';
import { getAddress, recoverMessageAddress, recoverTypedDataAddress, type Hex } from 'viem';
import type { Network } from '../../contract/networks';
import { createSiweMessage } from 'viem/siwe';
import { siweParameters } from '../../contract/sign-in-with-x';
import type { Requirement, SignedPayment, SignInWithX, WalletSignatures } from '../ports';
import { basePublicClient } from '../../platform/adapters/viem-base-transport';
import { chainSaysNo } from '../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';

/** The EIP-4361 message text a wallet signs for these fields. */
const siweMessage = (f: Omit<SignInWithX, 'signature'>): string => createSiweMessage(siweParameters(f));

export function viemSiwe(rpcUrls: RpcUrls, network: Network): WalletSignatures {
  const pub = basePublicClient(rpcUrls, network);
  return {
    async verify(f: SignInWithX) {
      let checksummed: Hex;
      let forms: string[];
      const signature = f.signature as Hex;
      try {
        const { signature: _, ...fields } = f;
        const canonical = siweMessage(fields);
        // EIP-4361 writes the address in its EIP-55 form; browser wallets hand out lower case, and a
        // page without keccak cannot checksum it. Both texts name the same address and every other
        // field, so either signed form is accepted.
        checksummed = getAddress(f.address);
        forms = f.address === checksummed ? [canonical] : [canonical, canonical.replace(`\n${checksummed}\n`, `\n${f.address}\n`)];
      } catch {
        return false;
      }
      for (const message of forms) {
        // A 65-byte signature that recovers to the address is an EOA's: no chain call.
        const signer = await recoverMessageAddress({ message, signature }).catch(() => undefined);
        if (signer === checksummed) return true;
      }
      // A contract wallet (EIP-1271) or one not deployed yet (ERC-6492): the chain decides.
      try {
        for (const message of forms) {
          if (await pub.verifyMessage({ address: checksummed, message, signature })) return true;
        }
      } catch {
        // Judged below, as a "no" is.
      }
      // None said yes: "the signature is wrong" only if the chain answers now, else a fault.
      return chainSaysNo(pub);
    },
    async authorizationSigned(payment: SignedPayment, requirement: Requirement) {
      const a = payment.payload.authorization;
      const receive = requirement.scheme === 'auth-capture';
      // The token's own EIP-712 domain and x402's EIP-3009 types: what the wallet signed when it paid.
      const typed = {
        domain: {
          name: requirement.extra.name,
          version: requirement.extra.version,
          chainId: network.chainId,
          verifyingContract: requirement.asset as Hex,
        },
        // `exact` signs a TransferWithAuthorization; `auth-capture` a ReceiveWithAuthorization (the same fields) to the escrow's collector.
        types: (receive ? { ReceiveWithAuthorization: authorizationTypes.TransferWithAuthorization } : authorizationTypes) as Record<
          string,
          readonly { name: string; type: string }[]
        >,
        primaryType: receive ? 'ReceiveWithAuthorization' : 'TransferWithAuthorization',
        message: {
          from: getAddress(a.from),
          to: getAddress(a.to),
          value: BigInt(a.value),
          validAfter: BigInt(a.validAfter),
          validBefore: BigInt(a.validBefore),
          nonce: a.nonce as Hex,
        },
      };
      const signature = payment.payload.signature as Hex;
      const signer = await recoverTypedDataAddress({ ...typed, signature } as never).catch(() => undefined);
      if (signer === typed.message.from) return true;
      try {
        if (await pub.verifyTypedData({ ...typed, address: typed.message.from, signature } as never)) return true;
      } catch {
        // Judged below, as a "no" is.
      }
      return chainSaysNo(pub);
    },
  };
}
