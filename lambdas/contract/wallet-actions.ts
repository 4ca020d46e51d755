/**
 * The EIP-712 typed data a wallet signs to change what belongs to it: create or revoke an AP2
 * mandate, cancel a subscription, set a meter's cap, draw a skill from a meter. A published
 * format (clients build the same data), so it lives in the contract, free of libraries.
 *
 * Every action names the wallet, the service it is meant for (`audience`: the advertised base
 * URL, so a signature for one deployment is useless at another), a single-use `nonce` and a
 * `deadline` (Unix seconds) after which it is refused.
 */
import { NETWORKS } from './networks';

/**
 * EIP-712 domain of every wallet action on the chain the service settles on (a wallet signs typed
 * data only for the chain it is on); no verifying contract (the service checks, not a chain contract).
 */
export const walletActionDomain = (chainId: number) => ({ name: 'Skill Market', version: '1', chainId }) as const;

/** A signed action may name a deadline at most this far ahead: a signature is short-lived. */
export const WALLET_ACTION_MAX_LIFETIME_SECONDS = 3_600;

/** 8 to 64 letters and digits, like EIP-4361 nonces. */
export const WALLET_ACTION_NONCE = /^[A-Za-z0-9]{8,64}$/;

const COMMON = [
  { name: 'wallet', type: 'address' },
  { name: 'audience', type: 'string' },
  { name: 'nonce', type: 'string' },
  { name: 'deadline', type: 'uint256' },
] as const;

/** The typed-data types of each action (the primary type is the key). */
export const WALLET_ACTION_TYPES = {
  /** `mandate` is the mandate object as RFC 8785 canonical JSON (what the wallet shows is what it signs). */
  CreateMandate: [{ name: 'mandate', type: 'string' }, ...COMMON],
  RevokeMandate: [{ name: 'mandateId', type: 'string' }, ...COMMON],
  CancelSubscription: [{ name: 'plan', type: 'string' }, ...COMMON],
  /** `capped` false removes the cap (then `cap` must be 0); a cap limits what draws may spend per calendar month (UTC). */
  SetMeterCap: [{ name: 'cap', type: 'uint256' }, { name: 'capped', type: 'bool' }, ...COMMON],
  /** `maxPrice` (atomic USDC): the draw is refused if the skill costs more. */
  DrawMeter: [{ name: 'skill', type: 'string' }, { name: 'maxPrice', type: 'uint256' }, ...COMMON],
} as const;

export type WalletActionType = keyof typeof WALLET_ACTION_TYPES;

/** The fields every action carries. */
export interface WalletActionCommon {
  wallet: `0x${string}`;
  audience: string;
  nonce: string;
  deadline: bigint;
}

/** The message of each action type. */
export interface WalletActionMessages {
  CreateMandate: WalletActionCommon & { mandate: string };
  RevokeMandate: WalletActionCommon & { mandateId: string };
  CancelSubscription: WalletActionCommon & { plan: string };
  SetMeterCap: WalletActionCommon & { cap: bigint; capped: boolean };
  DrawMeter: WalletActionCommon & { skill: string; maxPrice: bigint };
}

/** The full EIP-712 payload of an action, as `signTypedData` and `verifyTypedData` take it; Base's chain id unless told. */
export function walletActionTypedData<T extends WalletActionType>(
  primaryType: T,
  message: WalletActionMessages[T],
  chainId: number = NETWORKS.base.chainId,
) {
  return {
    domain: walletActionDomain(chainId),
    types: { [primaryType]: WALLET_ACTION_TYPES[primaryType] } as { [K in T]: (typeof WALLET_ACTION_TYPES)[T] },
    primaryType,
    message,
  };
}
