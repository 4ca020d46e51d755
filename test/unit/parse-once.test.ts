/**
 * One decode of a signed payment per request (issue 50): the route that received it decodes it,
 * and the owner check and the settlement read the object it became. Before, an x402 v1 X-PAYMENT
 * was decoded four times (told from the spec's proof, translated and re-encoded to base64, read
 * by the owner check, read by the settlement). Counted at the one decoder of header values.
 */
import { describe, expect, it, vi } from 'vitest';
import { getPay, postPay } from '../../lambdas/access/pay';
import type { AccessPorts } from '../../lambdas/access/ports';
import { parseJsonHeaderValue } from '../../lambdas/platform/json';
import type * as JsonModule from '../../lambdas/platform/json';
import type { ApiRequest } from '../../lambdas/platform/http';
import {
  BASE,
  catalog,
  fakeRelayer,
  fakeSettlements,
  header,
  NOW,
  PRICE,
  portsWith,
  refusal,
  SKILL,
} from '../support/x402-settlement-fakes';

vi.mock('../../lambdas/platform/json', async (importOriginal) => {
  const original = await importOriginal<typeof JsonModule>();
  return { ...original, parseJsonHeaderValue: vi.fn(original.parseJsonHeaderValue) };
});

/** The access ports of a wallet that owns nothing, over the settlement's fakes. */
function accessPorts() {
  const { relayer, sent } = fakeRelayer({ balance: 10n * PRICE, receipt: undefined });
  const payments = portsWith(relayer, fakeSettlements());
  Object.assign(payments, { signatures: { authorizationSigned: async () => true } });
  const ports = {
    payments,
    catalog,
    ledger: { owned: async () => undefined },
    subscriptions: { list: async () => [] },
    meters: { get: async () => undefined },
    now: () => NOW,
  } as unknown as AccessPorts;
  return { ports, sent };
}

const request = (method: 'GET' | 'POST', headers: Record<string, string>): ApiRequest => ({
  method,
  path: '/api/pay',
  routeKey: `${method} /api/pay`,
  query: { skill: SKILL },
  headers,
  pathParameters: {},
  body: undefined,
  requestId: 'r-1',
  baseUrl: BASE,
  sourceIp: '10.0.0.30',
});

describe('a signed payment is decoded once per request', () => {
  const v2 = () => header();
  const v1 = () => {
    const { payload } = JSON.parse(Buffer.from(header(), 'base64').toString()) as { payload: unknown };
    return Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base', payload })).toString('base64');
  };
  const cases: Array<[string, 'GET' | 'POST', string, () => string]> = [
    ['v2 PAYMENT-SIGNATURE on GET', 'GET', 'payment-signature', v2],
    ['v2 PAYMENT-SIGNATURE on POST', 'POST', 'payment-signature', v2],
    ['v1 X-PAYMENT on GET', 'GET', 'x-payment', v1],
    ['v1 X-PAYMENT on POST', 'POST', 'x-payment', v1],
  ];
  for (const [name, method, name_, make] of cases) {
    it(`${name}: through the owner check and the settlement, one decode`, async () => {
      const { ports, sent } = accessPorts();
      const raw = make();
      const decode = vi.mocked(parseJsonHeaderValue);
      decode.mockClear();
      const route = method === 'GET' ? getPay : postPay;
      // Settled by the relayer and not mined within the request: the whole path ran.
      const e = await refusal(route(request(method, { [name_]: raw }), ports));
      expect(e.details).toMatchObject({ reason: 'settlement_pending' });
      expect(sent).toHaveLength(1);
      expect(decode.mock.calls.filter(([value]) => value === raw)).toHaveLength(1);
    });
  }
});
