import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { PaymentRequiredV1Schema } from '@x402/core/schemas';
import { ChallengeSchema } from '../../lambdas/contract/challenge-schema';
import { buildChallenge, buildPaymentRequired, signInExtension } from '../../lambdas/payments/core/challenge';
import { x402PaymentRequiredHeader } from '../../lambdas/payments/adapters/x402-payment-required';
import { challengeAnswer } from '../../lambdas/payments/challenge-answer';
import type { PaymentsPorts } from '../../lambdas/payments/ports';
import type { ApiRequest } from '../../lambdas/platform/http';

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
    expect(c.accepts.map((a) => [a.symbol, a.asset, a.assetContract, a.maxAmountRequired])).toEqual([
      ['USDC', config.assets.USDC, config.assets.USDC, '5000'],
      ['USDbC', config.assets.USDbC, config.assets.USDbC, '5000'],
    ]);
    expect(c.resource).toBe('https://m.example/api/pay?skill=agent-x402-first-buy');
    expect([c.network, c.network_caip2, c.chainId]).toEqual(['base', 'eip155:8453', 8453]);
  });
});

describe('the body is x402 v1 PaymentRequired with the spec fields at top level', () => {
  const catalog = loadCatalogFiles();
  const { config } = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });

  it('parses as x402 v1 PaymentRequired (x402 own schema), each entry naming the token contract as asset', () => {
    for (const entry of catalog.entries) {
      const c = buildChallenge(entry, config, 'https://m.example');
      const parsed = PaymentRequiredV1Schema.safeParse(c);
      expect(parsed.success, entry.id).toBe(true);
      for (const a of c.accepts) {
        expect(a).toMatchObject({ scheme: 'exact', network: 'base', maxTimeoutSeconds: 60, resource: c.resource });
        expect(a.asset).toMatch(/^0x[0-9a-fA-F]{40}$/);
        expect(typeof a.extra.name === 'string' && typeof a.extra.version === 'string').toBe(true);
      }
      // The spec's challenge stays whole at top level and satisfies the published schema.
      expect([c.asset, c.assetContract]).toEqual(['USDC', config.assets.USDC]);
      expect(ChallengeSchema.safeParse(c).success, entry.id).toBe(true);
    }
  });
});

describe('the 402 of GET /api/pay', () => {
  const catalog = loadCatalogFiles();
  const reading = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });
  const at = new Date('2026-11-25T10:00:00.000Z');
  const ports = {
    catalog,
    config: reading.config,
    configReading: reading,
    paymentRequiredHeader: x402PaymentRequiredHeader,
    now: () => at,
  } as unknown as PaymentsPorts;
  const pay = (skill: string, baseUrl: string) => challengeAnswer({ query: { skill }, baseUrl } as unknown as ApiRequest, ports);

  it('carries in PAYMENT-REQUIRED the challenge as x402 v2 with a sign-in fresh per answer, for every skill (non-ASCII descriptions included)', () => {
    for (const entry of catalog.entries) {
      for (const base of ['https://m.example', 'http://127.0.0.1:8787']) {
        const decoded = decodePaymentRequiredHeader(pay(entry.id, base).headers!['payment-required'] as string);
        const { nonce } = (decoded.extensions!['sign-in-with-x'] as { info: { nonce: string } }).info;
        expect(nonce).toMatch(/^[0-9a-f]{32}$/);
        expect(decoded).toEqual({
          ...buildPaymentRequired(entry, reading.config, base),
          extensions: signInExtension(`${base}/api/pay?skill=${entry.id}`, base, nonce, at),
        });
      }
    }
  });

  it('draws a new 128-bit nonce for every answer, issued now and good for five minutes', () => {
    const infos = Array.from({ length: 200 }, () => {
      const decoded = decodePaymentRequiredHeader(pay('agent-x402-first-buy', 'https://m.example').headers!['payment-required'] as string);
      return (decoded.extensions!['sign-in-with-x'] as { info: { nonce: string; issuedAt: string; expirationTime: string } }).info;
    });
    expect(new Set(infos.map((i) => i.nonce)).size).toBe(infos.length);
    expect(infos[0]).toMatchObject({ issuedAt: '2026-11-25T10:00:00.000Z', expirationTime: '2026-11-25T10:05:00.000Z' });
  });
});
