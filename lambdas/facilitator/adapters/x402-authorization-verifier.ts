import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Account } from 'viem';
import { cacheUntilFailure } from '../../platform/memo';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { AuthorizationVerifier } from '../ports';
import { basePublicClient } from '../../platform/adapters/viem-base-transport';
import type { Network as MarketNetwork } from '../../contract/networks';

/**
 * x402's own `exact` verification (@x402/evm's facilitator scheme), so a signed payment is judged
 * exactly as the x402 reference facilitator judges it: EIP-712 signature (EOA, ERC-1271;
 * counterfactual ERC-6492 wallets refused, as no factory is allowed), receiver, exact value,
 * validity window, the token's EIP-712 domain, and the transfer simulated (balance, nonce
 * unused), with x402's invalid reasons. Only verification is used: the settlement steps are
 * the service's own (authorization.ts), so that each is claimed and stored before it happens.
 */
export function x402AuthorizationVerifier(
  rpcUrls: RpcUrls,
  relayer: () => Promise<Account>,
  network: MarketNetwork,
): AuthorizationVerifier {
  const pub = basePublicClient(rpcUrls, network);
  // Read on first use: the relayer's address (a KMS key's, in AWS), once, when needed.
  const relayerAddress = cacheUntilFailure(async () => (await relayer()).address);
  /**
   * The scheme's signer for one verification. The scheme asks for the payer's code twice in a row
   * (is it a counterfactual ERC-6492 wallet, then EOA or ERC-1271 for the signature): within one
   * verification the answer cannot differ, so it is asked of the chain once.
   */
  const signerFor = (address: Account['address']) => {
    const codes = new Map<string, ReturnType<typeof pub.getCode>>();
    return toFacilitatorEvmSigner({
      address,
      readContract: (args) => pub.readContract(args as never),
      verifyTypedData: (args) => pub.verifyTypedData(args as never),
      getCode: (args) => {
        const key = args.address.toLowerCase();
        let code = codes.get(key);
        if (!code) codes.set(key, (code = pub.getCode(args)));
        return code;
      },
      waitForTransactionReceipt: (args) => pub.waitForTransactionReceipt(args as never),
      // The scheme's settle is not used (see above): it would send without the service's claim first.
      writeContract: () => Promise.reject(new Error('settlement goes through the relayer, not the x402 scheme')),
      sendTransaction: () => Promise.reject(new Error('settlement goes through the relayer, not the x402 scheme')),
    });
  };
  return {
    async verify(payment, requirement) {
      const requirements: PaymentRequirements = { ...requirement, network: requirement.network as Network };
      const payload: PaymentPayload = {
        x402Version: payment.x402Version,
        accepted: { ...payment.accepted, network: payment.accepted.network as Network },
        payload: { ...payment.payload },
      };
      // A scheme per verification holds only that verification's signer; x402's token-code check keeps its own cache.
      const result = await new ExactEvmScheme(signerFor(await relayerAddress())).verify(payload, requirements);
      return result.isValid
        ? { ok: true }
        : { ok: false, reason: result.invalidReason ?? 'invalid_payment', message: result.invalidMessage };
    },
  };
}
