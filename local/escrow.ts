/**
 * Puts x402 `auth-capture`'s escrow on anvil (issue 53): base/commerce-payments' AuthCaptureEscrow
 * and its ERC-3009 token collector (local/contracts/commerce-payments/, compiled by
 * local/contracts/compile.ts). They are deployed by a dedicated key (test mnemonic index 31, which
 * nothing else sends from), the escrow with its nonce 0 and the collector with its nonce 1, so both
 * addresses are the same on every fresh chain; with a persisted chain they are found and reused.
 *
 * Not placed with anvil_setCode as the test tokens are: the escrow has immutables (its TokenStore
 * implementation, made in its constructor, names the escrow's own address), so its code is only
 * right at the address it was created at.
 */
import { createPublicClient, getContractAddress, http, type Address } from 'viem';
import { MULTICALL3 } from '../lambdas/contract/chain';
import { contractArtifact, deployAtNonce, testAccount } from './anvil';
import { localChain } from './local-chain';

/** Test-mnemonic index of the escrow's deployer: outside anvil's funded ten and every other role's index. */
export const ESCROW_DEPLOYER_INDEX = 31;

const escrowArtifact = contractArtifact('auth-capture-escrow.artifact.json');
const collectorArtifact = contractArtifact('erc3009-payment-collector.artifact.json');
export const AUTH_CAPTURE_ESCROW_ABI = escrowArtifact.abi;
export const ERC3009_PAYMENT_COLLECTOR_ABI = collectorArtifact.abi;

const deployer = testAccount(ESCROW_DEPLOYER_INDEX);
/** Where the escrow is on every local chain. */
export const LOCAL_AUTH_CAPTURE_ESCROW: Address = getContractAddress({ from: deployer.address, nonce: 0n });
/** Where the ERC-3009 token collector is on every local chain. */
export const LOCAL_ERC3009_PAYMENT_COLLECTOR: Address = getContractAddress({ from: deployer.address, nonce: 1n });

export interface LocalEscrow {
  escrow: Address;
  collector: Address;
  /** Both were already on the (persisted) chain. */
  reused: boolean;
}

/** Ensures the escrow and its collector are deployed at their fixed addresses. Idempotent over a persisted chain. */
export async function ensureAuthCaptureEscrow(rpcUrl: string): Promise<LocalEscrow> {
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const hasCode = async (address: Address): Promise<boolean> => {
    const code = await pub.getCode({ address });
    return code !== undefined && code !== '0x';
  };
  const targets = [
    { name: 'AuthCaptureEscrow', address: LOCAL_AUTH_CAPTURE_ESCROW, ...escrowArtifact, args: [] },
    {
      name: 'ERC3009PaymentCollector',
      address: LOCAL_ERC3009_PAYMENT_COLLECTOR,
      ...collectorArtifact,
      args: [LOCAL_AUTH_CAPTURE_ESCROW, MULTICALL3],
    },
  ];
  let reused = true;
  for (const [nonce, t] of targets.entries()) {
    if (await hasCode(t.address)) continue;
    reused = false;
    await deployAtNonce(rpcUrl, { account: deployer, index: ESCROW_DEPLOYER_INDEX }, nonce, t);
  }
  return { escrow: LOCAL_AUTH_CAPTURE_ESCROW, collector: LOCAL_ERC3009_PAYMENT_COLLECTOR, reused };
}
