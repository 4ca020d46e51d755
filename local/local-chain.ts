import { defineChain } from 'viem';
import { base } from 'viem/chains';
import { CHAIN_ID } from '../lambdas/contract/chain';

/** viem chain for the local anvil node: Base's id and currency, the local RPC URL. */
export function localChain(rpcUrl: string) {
  return defineChain({ ...base, id: CHAIN_ID, rpcUrls: { default: { http: [rpcUrl] } } });
}
