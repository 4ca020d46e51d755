import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Account } from 'viem';
import { cacheUntilFailure } from '../../platform/memo';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { AuthorizationVerifier } from '../ports';
import { basePublicClient } from './viem-base-transport';
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
  // Built on first use: the relayer's address (a KMS key's, in AWS) is read once, when needed.
  const scheme = cacheUntilFailure(async () => new ExactEvmScheme(signerFor((await relayer()).address)));
  const signerFor = (address: Account['address']) =>
    toFacilitatorEvmSigner({
      address,
      readContract: (args) => pub.readContract(args as never),
      verifyTypedData: (args) => pub.verifyTypedData(args as never),
      getCode: (args) => pub.getCode(args),
      waitForTransactionReceipt: (args) => pub.waitForTransactionReceipt(args as never),
      // The scheme's settle is not used (see above): it would send without the service's claim first.
      writeContract: () => Promise.reject(new Error('settlement goes through the relayer, not the x402 scheme')),
      sendTransaction: () => Promise.reject(new Error('settlement goes through the relayer, not the x402 scheme')),
    });
  return {
    async verify(payment, requirement) {
      const requirements: PaymentRequirements = { ...requirement, network: requirement.network as Network };
      const payload: PaymentPayload = {
        x402Version: payment.x402Version,
        accepted: { ...payment.accepted, network: payment.accepted.network as Network },
        payload: { ...payment.payload },
      };
      const result = await (await scheme()).verify(payload, requirements);
      return result.isValid
        ? { ok: true }
        : { ok: false, reason: result.invalidReason ?? 'invalid_payment', message: result.invalidMessage };
    },
  };
}
