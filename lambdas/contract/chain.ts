/**
 * Base mainnet's facts, taken from the network table (networks.ts, the one source), for the local
 * chain (which is Base) and the static site built before any stack's network is known; and the
 * formats of chain values. The Lambdas take the configured network (`MarketConfig.network`), never
 * these: the linter holds that (eslint.config.mjs).
 */
import { NETWORKS } from './networks';

const BASE = NETWORKS.base;
export const CHAIN_ID = BASE.chainId;
export const NETWORK = BASE.name;
export const CAIP2 = BASE.caip2;
/** A transaction's page on the deployment's block explorer (`explorerUrl` setting), or null when it has none (a local chain). */
export const explorerTx = (explorerUrl: string | undefined, txHash: string): string | null =>
  explorerUrl ? `${explorerUrl}/tx/${txHash}` : null;
/** Both accepted assets are 6-decimal USD stablecoins. */
export const USD_DECIMALS = 6;
/** Atomic units in one USD (10^USD_DECIMALS). */
export const ATOMIC_PER_USD = 10n ** BigInt(USD_DECIMALS);
/** Base mainnet contract addresses, the defaults for a cloud deployment. */
export const BASE_MAINNET_USDC = BASE.assets.USDC.address;
export const BASE_MAINNET_USDBC = BASE.assets.USDbC!.address;
/** Chainlink's ETH / USD feed on Base mainnet; the local run puts its test feed (local/contracts/TestPriceFeed.sol) there. */
export const BASE_MAINNET_ETH_USD_FEED = BASE.ethUsdFeed!;
/** Multicall3, at the same address on Base and on most EVM chains (the local run puts its own there). */
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** The EIP-712 domain (name, version) of each asset on Base (networks.ts says where each comes from). */
export const ASSET_EIP712 = { USDC: BASE.assets.USDC.eip712, USDbC: BASE.assets.USDbC!.eip712 };

/** A transaction hash: 0x and 64 hex digits, either case (stored lower-case). */
export const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** An EVM address: 0x and 40 hex digits (checksum checked separately where it matters). */
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Formats atomic units of a 6-decimal stablecoin, e.g. 99000n → "0.099". */
export function formatAtomic(value: bigint): string {
  return formatDecimal(value, USD_DECIMALS);
}

/** An integer amount of units with `decimals` places, as an exact decimal string without trailing zeros ("12.5", "-0.01", "3"). */
export function formatDecimal(value: bigint, decimals: number): string {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const unit = 10n ** BigInt(decimals);
  const frac = (abs % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${sign}${abs / unit}${frac ? `.${frac}` : ''}`;
}

/** Whether two addresses are the same, ignoring EIP-55 case; an absent one matches nothing. */
export const same = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/** What is read of a mined transaction's receipt (the chain reader's proofs, the relayer's own settlements). */
export interface TransferLog {
  /** The contract that emitted the log. */
  address: string;
  from: string;
  to: string;
  value: bigint;
  logIndex: number;
}

/** An EIP-3009 `AuthorizationUsed(authorizer, nonce)` log: the transfer beside it was made with the authorizer's signature. */
export interface AuthorizationLog {
  /** The token that emitted it. */
  address: string;
  authorizer: string;
  nonce: string;
}

export interface ReceiptView {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  blockHash: string;
  transferLogs: TransferLog[];
  /** The EIP-3009 authorizations the transaction used, whoever sent it. */
  authorizationLogs?: AuthorizationLog[] | undefined;
  /** The account that sent the transaction (for an x402 v2 settlement, the service's relayer). */
  sender?: string | undefined;
}
