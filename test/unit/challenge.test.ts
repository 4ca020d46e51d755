import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { buildChallenge, buildPaymentRequired, isoFormatter, signInEncoder, signInExtension } from '../../lambdas/payments/core/challenge';
import { freshNonce } from '../../lambdas/payments/pay';

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

describe('signInEncoder', () => {
  const catalog = loadCatalogFiles();
  const { config } = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });

  it('encodes exactly the challenge with a fresh sign-in, for every skill (non-ASCII descriptions included)', () => {
    const at = new Date('2026-11-25T10:00:00.000Z');
    for (const entry of catalog.entries) {
      for (const base of ['https://m.example', 'http://127.0.0.1:8787']) {
        const v2 = buildPaymentRequired(entry, config, base);
        const encoded = signInEncoder(v2, base)('0123456789abcdef0123456789abcdef', at);
        const decoded = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
        expect(decoded).toEqual({ ...v2, extensions: signInExtension(v2.resource.url, base, '0123456789abcdef0123456789abcdef', at) });
      }
    }
    // Fresh per call: another nonce and time give another header.
    const v2 = buildPaymentRequired(catalog.get('agent-x402-first-buy')!, config, 'https://m.example');
    const encode = signInEncoder(v2, 'https://m.example');
    expect(encode('aaaaaaaaaaaaaaaa', at)).not.toBe(encode('bbbbbbbbbbbbbbbb', at));
  });
});

describe('the fresh parts of a sign-in challenge', () => {
  it('formats times exactly as toISOString, within a second, across seconds and before 1970', () => {
    const format = isoFormatter();
    const times = [0, 1, 9, 10, 99, 100, 999, 1000, -1, -999, -1000, 1_764_000_000_000, 1_764_000_000_005, 1_764_000_000_050];
    let t = 1_764_000_000_000;
    for (let i = 0; i < 2000; i++) times.push((t += Math.floor(Math.random() * 1500)));
    for (const ms of times) expect(format(ms), String(ms)).toBe(new Date(ms).toISOString());
    expect(() => format(Number.NaN)).toThrow(RangeError);
  });

  it('draws a new 128-bit nonce each time, also across a refill of its pool', () => {
    const nonces = Array.from({ length: 600 }, () => freshNonce());
    for (const n of nonces) expect(n).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(nonces).size).toBe(nonces.length);
  });
});
