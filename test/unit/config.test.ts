import { describe, expect, it } from 'vitest';
import { configToEnv } from '../../lambdas/contract/settings';
import { readConfigFromEnv, readMarketConfig } from '../../lambdas/platform/config';
import { BASE_MAINNET_USDBC, BASE_MAINNET_USDC } from '../../lambdas/contract/chain';

const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const LEGACY = '0xBaD000000000000000000000000000000000DeAD';

describe('readMarketConfig', () => {
  it('accepts a sound configuration and fills the Base mainnet defaults', () => {
    const { config, problems } = readMarketConfig({ treasury: TREASURY.toLowerCase(), legacyTreasury: LEGACY }, { requireTreasury: true });
    expect(problems).toEqual([]);
    expect(config.treasury).toBe(TREASURY); // normalised to EIP-55
    expect(config.assets).toEqual({ USDC: BASE_MAINNET_USDC, USDbC: BASE_MAINNET_USDBC });
    expect(config.minConfirmations).toBe(1);
    expect(config.rpcUrls).toEqual(['https://mainnet.base.org']);
    expect(config.paymentsEnabled).toBe(true);
  });

  it('refuses a treasury equal to the legacy treasury, whatever the letter case', () => {
    const { problems } = readMarketConfig({ treasury: LEGACY.toLowerCase(), legacyTreasury: LEGACY }, { requireTreasury: true });
    expect(problems.join(' ')).toMatch(/equals the banned legacy treasury/);
  });

  it('refuses malformed addresses and a wrong EIP-55 checksum', () => {
    expect(readMarketConfig({ treasury: '0x123' }, { requireTreasury: true }).problems.join(' ')).toMatch(
      /treasury .* not a valid address/,
    );
    const badChecksum = TREASURY.replace('a0Ee', 'A0eE');
    expect(readMarketConfig({ treasury: badChecksum }, { requireTreasury: true }).problems.join(' ')).toMatch(/EIP-55/);
  });

  it('requires a treasury only when asked to', () => {
    expect(readMarketConfig({}, { requireTreasury: true }).problems.join(' ')).toMatch(/treasury \(TREASURY_ADDRESS\) is required/);
    expect(readMarketConfig({}, { requireTreasury: false }).problems).toEqual([]);
  });

  it('names each bad setting', () => {
    const { problems } = readMarketConfig(
      { treasury: TREASURY, rpcUrls: 'ftp://x', minConfirmations: '0', paymentsEnabled: 'maybe', usdc: TREASURY },
      { requireTreasury: true },
    );
    const text = problems.join('\n');
    expect(text).toMatch(/RPC_URLS/);
    expect(text).toMatch(/MIN_CONFIRMATIONS/);
    expect(text).toMatch(/PAYMENTS_ENABLED/);
    expect(text).toMatch(/usdcAddress .* also configured as a treasury/);
  });

  it('links the ledger to Basescan by default, to a named explorer, or nowhere when set empty', () => {
    expect(readMarketConfig({}, { requireTreasury: false }).config.explorerUrl).toBe('https://basescan.org');
    expect(readMarketConfig({ explorerUrl: 'https://base.blockscout.com/' }, { requireTreasury: false }).config.explorerUrl).toBe(
      'https://base.blockscout.com',
    );
    expect(readMarketConfig({ explorerUrl: '' }, { requireTreasury: false }).config.explorerUrl).toBeUndefined();
    const bad = readMarketConfig({ explorerUrl: 'javascript:alert(1)' }, { requireTreasury: false });
    expect(bad.problems.join(' ')).toMatch(/explorerUrl \(EXPLORER_URL\) is not an http\(s\) URL/);
    expect(bad.config.explorerUrl).toBeUndefined();
    // Empty survives the trip to a Lambda's environment: no explorer stays no explorer.
    expect(
      readConfigFromEnv(configToEnv(readMarketConfig({ explorerUrl: '' }, { requireTreasury: false }).config)).config.explorerUrl,
    ).toBeUndefined();
  });

  it('round-trips through the Lambda environment', () => {
    const { config } = readMarketConfig(
      { treasury: TREASURY, legacyTreasury: LEGACY, rpcUrls: 'http://a:1, http://b:2', minConfirmations: '3', paymentsEnabled: 'false' },
      { requireTreasury: true },
    );
    const back = readConfigFromEnv(configToEnv(config));
    expect(back.problems).toEqual([]);
    expect(back.config).toEqual(config);
  });

  it("carries the auth-capture escrow's settings to the Lambdas, not only their defaults (issue 53)", () => {
    const { config, problems } = readMarketConfig(
      {
        treasury: TREASURY,
        authCaptureEscrow: '0xbdea0d1bcc5966192b070fdf62ab4ef5b4420cff',
        escrowCaptureSeconds: '1200',
        escrowRefundDays: '7',
      },
      { requireTreasury: true },
    );
    expect(problems).toEqual([]);
    const env = configToEnv(config);
    expect(env).toMatchObject({
      AUTH_CAPTURE_ESCROW_ADDRESS: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
      ESCROW_CAPTURE_SECONDS: '1200',
      ESCROW_REFUND_DAYS: '7',
    });
    const back = readConfigFromEnv(env);
    expect(back.problems).toEqual([]);
    expect(back.config).toEqual(config);
  });

  it('defaults to Base mainnet in production, with the spec values', () => {
    const { config } = readMarketConfig({}, { requireTreasury: false });
    expect(config.stage).toBe('production');
    expect(config.network).toMatchObject({ name: 'base', chainId: 8453, caip2: 'eip155:8453', label: 'Base', testnet: false });
    expect(config.ethUsdFeed).toBe('0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70');
    expect(config.identityRegistry).toBe('0x8004A169FB4a3325136EB29fA0ceB6D2e539a432');
  });

  it('takes the chain, tokens, feed, explorer and RPC of base-sepolia from the network, USDC only', () => {
    const { config, problems } = readMarketConfig({ network: 'base-sepolia', stage: 'staging' }, { requireTreasury: false });
    expect(problems).toEqual([]);
    expect(config.network).toMatchObject({
      name: 'base-sepolia',
      chainId: 84532,
      caip2: 'eip155:84532',
      label: 'Base Sepolia',
      testnet: true,
    });
    expect(config.assets).toEqual({ USDC: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', USDbC: undefined });
    expect(config.rpcUrls).toEqual(['https://sepolia.base.org']);
    expect(config.explorerUrl).toBe('https://sepolia.basescan.org');
    expect(config.ethUsdFeed).toBe('0x4aDC67696bA383F43DD60A9e78F2C97Fbbfc7cb1');
    expect(config.identityRegistry).toBe('0x8004A818BFB912233c491871b3d84c89A494BD9e');
    // A deployment may still override a default.
    expect(
      readMarketConfig({ network: 'base-sepolia', stage: 'staging', explorerUrl: '' }, { requireTreasury: false }).config.explorerUrl,
    ).toBeUndefined();
    // Both survive the trip to a Lambda's environment.
    const back = readConfigFromEnv(configToEnv({ ...config, treasury: TREASURY }));
    expect(back.problems).toEqual([]);
    expect(back.config.network.name).toBe('base-sepolia');
    expect(back.config.stage).toBe('staging');
  });

  it('refuses a testnet in production and mainnet in staging', () => {
    expect(readMarketConfig({ network: 'base-sepolia' }, { requireTreasury: false }).problems.join(' ')).toMatch(
      /network base-sepolia is a testnet and stage is production/,
    );
    expect(readMarketConfig({ stage: 'staging' }, { requireTreasury: false }).problems.join(' ')).toMatch(
      /network base is mainnet and stage is staging/,
    );
    expect(readMarketConfig({ network: 'base', stage: 'staging' }, { requireTreasury: false }).problems).toHaveLength(1);
  });

  it('refuses an unknown network or stage, and a USDbC on a network without one', () => {
    const text = readMarketConfig({ network: 'ethereum', stage: 'dev' }, { requireTreasury: false }).problems.join('\n');
    expect(text).toMatch(/network \(SETTLEMENT_NETWORK\) must be one of base, base-sepolia, got "ethereum"/);
    expect(text).toMatch(/stage \(DEPLOY_STAGE\) must be one of production, staging, got "dev"/);
    expect(
      readMarketConfig({ network: 'base-sepolia', stage: 'staging', usdbc: TREASURY }, { requireTreasury: false }).problems.join(' '),
    ).toMatch(/Base Sepolia has no USDbC/);
  });
});
