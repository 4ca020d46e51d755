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
});
