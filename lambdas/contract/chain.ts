/** Facts about the settlement chain that never vary by deployment, and the formats of its values. */
export const CHAIN_ID = 8453;
export const NETWORK = 'base';
export const CAIP2 = `eip155:${CHAIN_ID}`;
/** A transaction's page on the deployment's block explorer (`explorerUrl` setting), or null when it has none (a local chain). */
export const explorerTx = (explorerUrl: string | undefined, txHash: string): string | null =>
  explorerUrl ? `${explorerUrl}/tx/${txHash}` : null;
/** Both accepted assets are 6-decimal USD stablecoins. */
export const USD_DECIMALS = 6;
/** Atomic units in one USD (10^USD_DECIMALS). */
export const ATOMIC_PER_USD = 10n ** BigInt(USD_DECIMALS);
/** Base mainnet contract addresses, the defaults for a cloud deployment. */
export const BASE_MAINNET_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const BASE_MAINNET_USDBC = '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA';
/**
 * Chainlink's ETH / USD feed on Base mainnet (the proxy, EACAggregatorProxy, listed in Chainlink's
 * data feeds addresses for Base): what the relayer's gas is priced with at settlement. The local
 * run puts its test feed (local/contracts/TestPriceFeed.sol) at the same address.
 */
export const BASE_MAINNET_ETH_USD_FEED = '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70';
/** Multicall3, at the same address on Base and on most EVM chains (the local run puts its own there). */
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

/**
 * The EIP-712 domain (name, version) of each accepted asset, which an EIP-3009 authorization is
 * signed against and x402 v2 clients read from `extra`. USDC's is Base USDC's own ("USD Coin",
 * "2"); USDbC's is what the local test token uses (docs/PAYMENTS.md says what is known of the
 * mainnet contract).
 */
export const ASSET_EIP712 = {
  USDC: { name: 'USD Coin', version: '2' },
  USDbC: { name: 'USD Base Coin', version: '1' },
} as const;

/** A transaction hash: 0x and 64 hex digits, either case (stored lower-case). */
export const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** An EVM address: 0x and 40 hex digits (checksum checked separately where it matters). */
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The sign-in-with-x `resources` entry that binds a wallet signature to one transaction on Base. */
export const txResource = (txHash: string): string => `${CAIP2}:tx:${txHash.toLowerCase()}`;

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
