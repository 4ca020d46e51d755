/**
 * The settlement networks a deployment can be configured for (the `network` setting), with every
 * fact about each in one table: the chain id, its CAIP-2 and x402 v1 names, what messages call it,
 * whether it is a testnet, the assets it accepts with their EIP-712 domains, the Chainlink ETH / USD
 * feed and the public block explorer and RPC. The running code takes the configured network from
 * the settings (`MarketConfig.network`), never from a module constant, so a staging stack on Base
 * Sepolia advertises, verifies and links to Base Sepolia throughout.
 */

/** The x402 v1 network strings the service can settle on. */
export const NETWORK_NAMES = ['base', 'base-sepolia'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

/** The stablecoins the service accepts (both 6-decimal USD coins), by symbol. */
export type AssetSymbol = 'USDC' | 'USDbC';

/** One accepted token on a network: its contract and the EIP-712 domain (name, version) an EIP-3009 authorization is signed against. */
export interface NetworkAsset {
  address: `0x${string}`;
  eip712: { name: string; version: string };
}

export interface Network {
  /** The x402 v1 network string, also the ledger's partition of this network's transfers. */
  name: NetworkName;
  chainId: number;
  /** `eip155:<chainId>`: the x402 v2 network and the CAIP-2 chain of SIGN-IN-WITH-X and ERC-8004. */
  caip2: `eip155:${number}`;
  /** What messages call it ("Base", "Base Sepolia"). */
  label: string;
  /** A testnet's coins have no value: a production stage refuses one, a staging stage requires one. */
  testnet: boolean;
  /** The assets a challenge advertises, USDC first. USDbC exists on Base only. */
  assets: { USDC: NetworkAsset; USDbC?: NetworkAsset };
  /** Chainlink's ETH / USD proxy (AggregatorV3Interface) the relayer's gas is priced with; undefined leaves gas unpriced. */
  ethUsdFeed: `0x${string}` | undefined;
  /** The ERC-8004 Identity Registry (its deterministic address: one for mainnets, one for testnets). */
  identityRegistry: `0x${string}`;
  /** base/commerce-payments' escrow deployment x402's `auth-capture` scheme pays into (one of AUTH_CAPTURE_DEPLOYMENTS). */
  authCapture: AuthCaptureDeployment;
  /** The public block explorer the proof ledger links to. */
  explorerUrl: string;
  /** A public JSON-RPC endpoint, the `rpcUrls` default (keyed providers go in the RPC secret). */
  publicRpcUrl: string;
}

/**
 * base/commerce-payments' `AuthCaptureEscrow`, its ERC-3009 token collector and its operator
 * refund collector, as deployed (the same addresses on Base and Base Sepolia, per the project's
 * README). These are the deployments x402's stock `auth-capture` client knows
 * (`resolveAuthCaptureDeployment` in @x402/evm): it signs to the collector of the escrow a
 * challenge names and refuses any other escrow, so a deployment
 * can only choose among these (the `authCaptureEscrow` setting). v1.0 is the source vendored in
 * local/contracts/commerce-payments/ and placed at the same addresses on the local chain; it is
 * the only one listed because it is the one whose functions the facilitator calls (v1.1, at
 * 0xf968…b19c, changed the charge and capture arguments and is not vendored here).
 */
export interface AuthCaptureDeployment {
  version: 'v1.0';
  escrow: `0x${string}`;
  /** ERC3009PaymentCollector: the `to` of the buyer's ReceiveWithAuthorization. */
  tokenCollector: `0x${string}`;
  /**
   * OperatorRefundCollector: the collector an operator's `refund` names. It takes the amount from
   * the operator's own balance (an ERC-20 allowance the operator gave it) into the escrow, which
   * sends it on to the payer.
   */
  refundCollector: `0x${string}`;
}
export const AUTH_CAPTURE_DEPLOYMENTS: readonly [AuthCaptureDeployment, ...AuthCaptureDeployment[]] = [
  {
    version: 'v1.0',
    escrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
    tokenCollector: '0x0E3dF9510de65469C4518D7843919c0b8C7A7757',
    refundCollector: '0x934907bffd0901b6A21e398B9C53A4A38F02fa5d',
  },
];

export const NETWORKS: Readonly<Record<NetworkName, Network>> = {
  base: {
    name: 'base',
    chainId: 8453,
    caip2: 'eip155:8453',
    label: 'Base',
    testnet: false,
    assets: {
      // Circle's native USDC on Base; its EIP-712 domain is ("USD Coin", "2"), as x402's own asset table has it.
      USDC: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', eip712: { name: 'USD Coin', version: '2' } },
      // Bridged USDC (USDbC); the domain is what the local test token uses (docs/PAYMENTS.md says what is known of the mainnet contract).
      USDbC: { address: '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA', eip712: { name: 'USD Base Coin', version: '1' } },
    },
    // Chainlink's ETH / USD proxy (EACAggregatorProxy) on Base mainnet. The local run puts its test feed
    // (local/contracts/TestPriceFeed.sol) at the same address.
    ethUsdFeed: '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70',
    identityRegistry: '0x8004A169FB4a3325136EB29fA0ceB6D2e539a432',
    authCapture: AUTH_CAPTURE_DEPLOYMENTS[0],
    explorerUrl: 'https://basescan.org',
    publicRpcUrl: 'https://mainnet.base.org',
  },
  'base-sepolia': {
    name: 'base-sepolia',
    chainId: 84532,
    caip2: 'eip155:84532',
    label: 'Base Sepolia',
    testnet: true,
    assets: {
      // Circle's testnet USDC on Base Sepolia. Its EIP-712 name is "USDC", not "USD Coin": x402's default
      // asset tables (@x402/evm defaultAssets, x402's evm config) both say ("USDC", "2") for this contract.
      // There is no USDbC on Base Sepolia: a staging challenge advertises USDC only.
      USDC: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', eip712: { name: 'USDC', version: '2' } },
    },
    // Chainlink's ETH / USD proxy on Base Sepolia (8 decimals).
    ethUsdFeed: '0x4aDC67696bA383F43DD60A9e78F2C97Fbbfc7cb1',
    identityRegistry: '0x8004A818BFB912233c491871b3d84c89A494BD9e',
    authCapture: AUTH_CAPTURE_DEPLOYMENTS[0],
    explorerUrl: 'https://sepolia.basescan.org',
    publicRpcUrl: 'https://sepolia.base.org',
  },
};

/** The assets a network accepts, USDC first: what a challenge on it advertises. */
export const networkAssets = (network: Network): AssetSymbol[] => (network.assets.USDbC ? ['USDC', 'USDbC'] : ['USDC']);

/** How messages name the chain: "Base (chain 8453)". */
export const chainLabel = (network: Network): string => `${network.label} (chain ${network.chainId})`;

/** Every network's CAIP-2 id and chain id, in NETWORK_NAMES order: what a published schema allows. */
export const NETWORK_CAIP2S = NETWORK_NAMES.map((n) => NETWORKS[n].caip2) as [Network['caip2'], ...Network['caip2'][]];
export const NETWORK_CHAIN_IDS = NETWORK_NAMES.map((n) => NETWORKS[n].chainId) as [number, ...number[]];

/** The CAIP-2 chain of a ledger row's `network` (a network name); a name outside the table is given as it is. */
export const caip2Of = (name: string): string =>
  (NETWORK_NAMES as readonly string[]).includes(name) ? NETWORKS[name as NetworkName].caip2 : name;

/** The sign-in-with-x `resources` entry that binds a wallet signature to one transaction on the network. */
export const txResource = (caip2: Network['caip2'], txHash: string): string => `${caip2}:tx:${txHash.toLowerCase()}`;

/** The stages a deployment can be (the `stage` setting): production takes real money, staging rehearses on a testnet. */
export const STAGE_NAMES = ['production', 'staging'] as const;
export type Stage = (typeof STAGE_NAMES)[number];
