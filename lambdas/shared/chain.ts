/** Facts about the settlement chain that never vary by deployment. */
export const CHAIN_ID = 8453;
export const NETWORK = 'base';
export const CAIP2 = `eip155:${CHAIN_ID}`;
/** Both accepted assets are 6-decimal USD stablecoins: 1 USD = 1_000_000 atomic units. */
export const USD_DECIMALS = 6;
/** Base mainnet contract addresses, the defaults for a cloud deployment. */
export const BASE_MAINNET_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const BASE_MAINNET_USDBC = '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA';
