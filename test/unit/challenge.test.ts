import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { PaymentRequiredV1Schema } from '@x402/core/schemas';
import { ChallengeSchema } from '../../lambdas/contract/challenge-schema';
import type { CatalogEntry } from '../../lambdas/contract/catalog-data';
import { buildChallenge, buildPaymentRequired, productChallenge, signInExtension } from '../../lambdas/payments/core/challenge';
import { x402PaymentRequiredHeader } from '../../lambdas/payments/adapters/x402-payment-required';
import { x402BazaarExtension } from '../../lambdas/payments/adapters/x402-bazaar';
import {
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { challengeAnswer } from '../../lambdas/payments/challenge-answer';
import { checkSignedPayment, SIGNED_PAYMENT_LIMITS } from '../../lambdas/payments/payment-signature';
import { decodePaymentHeader } from '../../lambdas/payments/payment-header';
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

describe('productChallenge (subscription plans, meter top-ups)', () => {
  const { config } = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });

  it("is x402 v1 PaymentRequired, as a skill's challenge is: each entry's asset the token contract, its symbol in symbol", () => {
    const c = productChallenge(
      { amount: '4990000', resource: 'https://m.example/api/subscribe', description: 'All access: one period', extra: { plan: 'all' } },
      config,
    );
    expect(PaymentRequiredV1Schema.safeParse(c).success).toBe(true);
    expect(c.accepts.map((a) => [a.symbol, a.asset, a.assetContract, a.maxAmountRequired])).toEqual([
      ['USDC', config.assets.USDC, config.assets.USDC, '4990000'],
      ['USDbC', config.assets.USDbC, config.assets.USDbC, '4990000'],
    ]);
    for (const a of c.accepts) expect(a.asset).toMatch(/^0x[0-9a-fA-F]{40}$/);
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
    discoveryExtension: x402BazaarExtension,
    now: () => at,
  } as unknown as PaymentsPorts;
  const pay = (skill: string, baseUrl: string) => challengeAnswer({ query: { skill }, baseUrl } as unknown as ApiRequest, ports);

  it('carries in PAYMENT-REQUIRED the challenge as x402 v2 with a sign-in fresh per answer, for every skill (non-ASCII descriptions included)', () => {
    for (const entry of catalog.entries) {
      for (const base of ['https://m.example', 'http://127.0.0.1:8787']) {
        const decoded = decodePaymentRequiredHeader(pay(entry.id, base).headers!['payment-required'] as string);
        const { nonce } = (decoded.extensions!['sign-in-with-x'] as { info: { nonce: string } }).info;
        expect(nonce).toMatch(/^[0-9a-f]{32}$/);
        const resource = `${base}/api/pay?skill=${entry.id}`;
        expect(decoded).toEqual({
          ...buildPaymentRequired(entry, reading.config, base),
          extensions: {
            ...x402BazaarExtension(entry, catalog.packMeta(entry.id), resource),
            ...signInExtension(reading.config.network, resource, base, nonce, at),
          },
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

  it("declares x402's Bazaar discovery extension that x402's own validators accept: GET with ?skill=, and an example of the unlock answer", () => {
    const base = 'https://m.example';
    for (const [i, entry] of catalog.entries.entries()) {
      const decoded = decodePaymentRequiredHeader(pay(entry.id, base).headers!['payment-required'] as string);
      const bazaar = decoded.extensions!['bazaar'] as DiscoveryExtension;
      // The info matches its own schema (ajv, as a facilitator checks before cataloguing; a compile each, so one skill in ten) and the Bazaar spec's rules.
      if (i % 10 === 0) expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
      expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({ valid: true });
      expect(bazaar.info.input).toEqual({ type: 'http', method: 'GET', queryParams: { skill: entry.id } });
      expect(bazaar.info.output).toMatchObject({ type: 'json', example: { ok: true, skill_id: entry.id, name: entry.name } });
      const meta = catalog.packMeta(entry.id)!;
      const example = (bazaar.info.output as { example: { sealed_pack: { file_count: number; seal: string } } }).example;
      expect([example.sealed_pack.file_count, example.sealed_pack.seal]).toEqual([meta.file_count, meta.seal]);
    }
    // What a facilitator extracts when a client echoes the extension with its payment, as x402's clients do.
    const entry = catalog.get('csv-cleaner')!;
    const decoded = decodePaymentRequiredHeader(pay(entry.id, base).headers!['payment-required'] as string);
    const payload = {
      x402Version: 2,
      resource: decoded.resource,
      accepted: decoded.accepts[0],
      payload: {},
      extensions: decoded.extensions,
    };
    const found = extractDiscoveryInfo(payload as unknown as PaymentPayload, decoded.accepts[0] as PaymentRequirements);
    // A facilitator catalogues the path without its query: one resource, the skill its query parameter.
    expect(found).toMatchObject({
      resourceUrl: `${base}/api/pay`,
      method: 'GET',
      x402Version: 2,
      discoveryInfo: { input: { type: 'http', method: 'GET', queryParams: { skill: 'csv-cleaner' } } },
    });
    // The pinned fields are untouched: the spec's body and the v2 payment terms are what they were.
    expect(decoded.accepts).toEqual(buildPaymentRequired(entry, reading.config, base).accepts);
    expect(JSON.parse(pay(entry.id, base).body as string)).toEqual(JSON.parse(JSON.stringify(buildChallenge(entry, reading.config, base))));
  });

  /** The PAYMENT-SIGNATURE a stock client sends for `entry`: the 402's terms and extensions echoed, a signature of `signatureBytes`. */
  const echoedPayment = (entry: CatalogEntry, signatureBytes: number): string => {
    const decoded = decodePaymentRequiredHeader(pay(entry.id, 'https://market.example.com').headers!['payment-required'] as string);
    const echoed = {
      x402Version: 2,
      resource: decoded.resource,
      accepted: decoded.accepts[0],
      payload: {
        signature: `0x${'ab'.repeat(signatureBytes)}`,
        authorization: {
          from: '0x1111111111111111111111111111111111111111',
          to: reading.config.treasury,
          value: entry.x402.amount,
          validAfter: '0',
          validBefore: '9999999999',
          nonce: `0x${'00'.repeat(32)}`,
        },
      },
      extensions: decoded.extensions,
    };
    return Buffer.from(JSON.stringify(echoed)).toString('base64');
  };

  it("a payment that echoes the 402's extensions, as x402 clients do, is still read as a payment, for every skill", () => {
    const sizes = catalog.entries.map((entry) => {
      // An EIP-6492 signature of a wallet not deployed yet: the largest a payment carries (about 1 KB).
      const header = echoedPayment(entry, 1000);
      expect(checkSignedPayment(decodePaymentHeader(header), 'PAYMENT-SIGNATURE', {}).accepted.amount).toBe(entry.x402.amount);
      return header.length;
    });
    expect(Math.max(...sizes)).toBeLessThan(SIGNED_PAYMENT_LIMITS.maxBytes);
  });

  it("a stock client's PAYMENT-SIGNATURE, extensions echoed, fits API Gateway's 10,240 bytes of request line and headers with room for the rest", () => {
    // HTTP API's quota (not raisable): request line + every header value, CloudFront's included. The
    // payment must leave room for SIGN-IN-WITH-X (about 1.3 KB), an AP2 mandate, the origin secret,
    // CloudFront's own headers and a client's usual ones: at most 4 KB for an EOA's 65-byte signature.
    const sizes = catalog.entries.map((entry) => echoedPayment(entry, 65).length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4_096);
  });

  it("keeps every skill's PAYMENT-REQUIRED under 8 KB with the Bazaar extension (about 5.4 KB at most now)", () => {
    const sizes = catalog.entries.map((e) => (pay(e.id, 'https://market.example.com').headers!['payment-required'] as string).length);
    expect(Math.max(...sizes)).toBeLessThan(8_000);
  });
});
