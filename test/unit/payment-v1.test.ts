import { describe, expect, it } from 'vitest';
import { PaymentPayloadV1Schema } from '@x402/core/schemas';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { buildPaymentRequired } from '../../lambdas/payments/core/challenge';
import { signedPaymentFromV1 } from '../../lambdas/payments/payment-v1';
import { decodePaymentHeader, v1PaymentOf } from '../../lambdas/payments/payment-header';

/** Whether X-PAYMENT is read as x402 v1's payment rather than the spec's proof. */
const isV1Payment = (xPayment: string): boolean => v1PaymentOf(xPayment) !== undefined;
import { AppError } from '../../lambdas/platform/errors';

const authorization = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  value: '99000',
  validAfter: '0',
  validBefore: '1900000000',
  nonce: `0x${'ab'.repeat(32)}`,
};
const v1 = { x402Version: 1, scheme: 'exact', network: 'base', payload: { signature: `0x${'11'.repeat(65)}`, authorization } };
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');

describe("X-PAYMENT's two forms", () => {
  it("tells the spec's JSON proof from x402 v1's base64 by the first character", () => {
    expect(isV1Payment('{"txHash":"0xab","skill":"x"}')).toBe(false);
    expect(isV1Payment('  {"txHash":"0xab"}')).toBe(false);
    expect(isV1Payment(b64(v1))).toBe(true);
    expect(isV1Payment(b64({ x402Version: 1 }))).toBe(true);
    // base64 of a JSON object starts with "ey", never "{".
    expect(b64(v1).startsWith('ey')).toBe(true);
    // The spec's proof sent base64 stays the spec's, as does what is neither (judged there, 400).
    expect(isV1Payment(b64({ txHash: `0x${'ab'.repeat(32)}`, skill: 'x' }))).toBe(false);
    expect(isV1Payment('bm90IGpzb24=')).toBe(false);
    expect(isV1Payment(b64([1, 2]))).toBe(false);
  });
});

describe('signedPaymentFromV1', () => {
  const catalog = loadCatalogFiles();
  const { config } = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });
  const requirement = buildPaymentRequired(catalog.entries[0]!, config, 'https://m.example').accepts[0]!;
  const refusal = (raw: string) => {
    try {
      signedPaymentFromV1(decodePaymentHeader(raw), requirement, 'https://m.example/api/pay?skill=x', {});
    } catch (e) {
      return e instanceof AppError ? { status: e.status, reason: (e.details as { reason?: string } | undefined)?.reason } : e;
    }
    return undefined;
  };

  it("is the v2 payment of the same authorization, with the server's own requirement as accepted", () => {
    expect(PaymentPayloadV1Schema.safeParse(v1).success).toBe(true);
    expect(signedPaymentFromV1(v1, requirement, 'https://m.example/api/pay?skill=x', {})).toEqual({
      x402Version: 2,
      resource: { url: 'https://m.example/api/pay?skill=x' },
      accepted: requirement,
      payload: v1.payload,
    });
  });

  it('refuses with the spec failure (402) and x402 reason anything else', () => {
    expect(refusal('not base64 at all %%')).toEqual({ status: 402, reason: 'invalid_payload' });
    expect(refusal(b64({ ...v1, x402Version: 2 }))).toEqual({ status: 402, reason: 'invalid_payload' });
    expect(refusal(b64({ ...v1, payload: { signature: '0x11' } }))).toEqual({ status: 402, reason: 'invalid_payload' });
    expect(refusal(b64({ ...v1, network: 'base-sepolia' }))).toEqual({ status: 402, reason: 'unsupported_scheme' });
    expect(refusal(b64({ ...v1, scheme: 'upto' }))).toEqual({ status: 402, reason: 'unsupported_scheme' });
  });
});
