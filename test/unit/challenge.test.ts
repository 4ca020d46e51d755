import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { buildChallenge } from '../../lambdas/payments/core/challenge';

describe('buildChallenge', () => {
  const catalog = loadCatalogFiles();
  const { config } = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });

  it('takes amount from the price source and payTo and assets from configuration, at top level and in accepts', () => {
    const c = buildChallenge(catalog.get('agent-x402-first-buy')!, config, 'https://m.example');
    expect([c.maxAmountRequired, c.amount, c.payTo, c.asset, c.assetContract]).toEqual([
      '5000',
      '5000',
      config.treasury,
      'USDC',
      config.assets.USDC,
    ]);
    expect(c.accepts.map((a) => [a.asset, a.assetContract, a.maxAmountRequired])).toEqual([
      ['USDC', config.assets.USDC, '5000'],
      ['USDbC', config.assets.USDbC, '5000'],
    ]);
    expect(c.resource).toBe('https://m.example/api/pay?skill=agent-x402-first-buy');
    expect([c.network, c.network_caip2, c.chainId]).toEqual(['base', 'eip155:8453', 8453]);
  });
});
