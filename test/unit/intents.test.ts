/**
 * POST /api/intent's bounds (issue 31, finding 5) with fakes of the catalog ports: a caller's
 * daily allowance, the text cap of one bounty, and the expiry every bounty carries. The store's
 * conditional count itself is tested against DynamoDB Local (test/integration/anonymous-writes.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { postIntent } from '../../lambdas/catalog/intents';
import type { CatalogPorts, IntentRecord } from '../../lambdas/catalog/ports';
import { INTENT_MAX_TEXT_BYTES, INTENTS_PER_CALLER_PER_DAY } from '../../lambdas/contract/intent-schema';
import { AppError } from '../../lambdas/platform/errors';
import type { ApiRequest } from '../../lambdas/platform/http';
import { callerKey } from '../../lambdas/platform/caller-key';

const NOW = new Date('2026-11-20T23:59:30.000Z');

function fakes(allowance = INTENTS_PER_CALLER_PER_DAY) {
  const counted = new Map<string, number>();
  const stored: IntentRecord[] = [];
  const ports = {
    catalog: { get: () => undefined, search: () => [] },
    intents: {
      async admit(caller: string, at: Date, perDay: number) {
        const key = `${at.toISOString().slice(0, 10)}#${caller}`;
        const n = counted.get(key) ?? 0;
        if (n >= Math.min(perDay, allowance)) return false;
        counted.set(key, n + 1);
        return true;
      },
      async put(intent: IntentRecord) {
        stored.push(intent);
      },
      get: async () => undefined,
      list: async () => ({ items: [] }),
    },
    now: () => NOW,
    newIntentId: () => `int_${String(stored.length).padStart(20, '0')}`,
  } as unknown as CatalogPorts;
  return { ports, counted, stored };
}

const request = (body: unknown, sourceIp = '198.51.100.7'): ApiRequest => ({
  method: 'POST',
  path: '/api/intent',
  routeKey: 'POST /api/intent',
  query: {},
  headers: { 'content-type': 'application/json' },
  pathParameters: {},
  body: JSON.stringify(body),
  requestId: 'r',
  baseUrl: 'https://m.example',
  sourceIp,
});
const BOUNTY = { title: 'Clean a CSV', success_criteria: ['every row has 12 columns'] };

const refusal = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('POST /api/intent', () => {
  it('stores a bounty that expires 30 days after it was posted', async () => {
    const { ports, stored } = fakes();
    const res = await postIntent(request(BOUNTY), ports);
    expect(res.statusCode).toBe(200);
    expect(stored[0]).toMatchObject({ created_at: NOW.toISOString(), expires_at: '2026-12-20T23:59:30.000Z', status: 'open' });
    expect(JSON.parse(res.body as string).intent.expires_at).toBe('2026-12-20T23:59:30.000Z');
  });

  it(`refuses a caller's bounty past ${INTENTS_PER_CALLER_PER_DAY} in a UTC day with 429 RATE_LIMITED and Retry-After until the next day; others are served`, async () => {
    const { ports, stored } = fakes();
    for (let i = 0; i < INTENTS_PER_CALLER_PER_DAY; i++) expect((await postIntent(request(BOUNTY), ports)).statusCode).toBe(200);
    const e = await refusal(postIntent(request(BOUNTY), ports));
    expect(e).toMatchObject({ status: 429, code: 'RATE_LIMITED', retry: true, headers: { 'retry-after': '30' } });
    expect(e.details).toMatchObject({ retry_after_seconds: 30, limit: INTENTS_PER_CALLER_PER_DAY, scope: 'intent-daily' });
    expect(stored).toHaveLength(INTENTS_PER_CALLER_PER_DAY);
    expect((await postIntent(request(BOUNTY, '203.0.113.9'), ports)).statusCode).toBe(200);
  });

  it('counts one IPv6 /64 as one caller', async () => {
    const { ports } = fakes(2);
    expect((await postIntent(request(BOUNTY, '2001:db8:1:2::a'), ports)).statusCode).toBe(200);
    expect((await postIntent(request(BOUNTY, '2001:db8:1:2:ffff::b'), ports)).statusCode).toBe(200);
    expect((await refusal(postIntent(request(BOUNTY, '2001:db8:1:2:1:2:3:4'), ports))).status).toBe(429);
    expect((await postIntent(request(BOUNTY, '2001:db8:1:3::a'), ports)).statusCode).toBe(200);
  });

  it("spends none of the day's allowance on a refused body", async () => {
    const { ports, counted } = fakes();
    expect((await refusal(postIntent(request({ title: 'Clean a CSV' }), ports))).status).toBe(400);
    expect(counted.size).toBe(0);
  });

  it(`refuses more than ${INTENT_MAX_TEXT_BYTES} bytes of text in one bounty, whatever each field holds, naming the body`, async () => {
    const { ports, stored } = fakes();
    // Every field within its character cap, but three bytes per character.
    const wide = { title: 'é'.repeat(120), description: '漢'.repeat(2000), success_criteria: ['漢'.repeat(300)] };
    const e = await refusal(postIntent(request(wide), ports));
    expect(e).toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: { parameter: 'body' } });
    expect(e.message).toMatch(/at most 6144 bytes/);
    expect(stored).toHaveLength(0);
    // The same fields in ASCII at every character cap fit.
    const ascii = { title: 'x'.repeat(120), description: 'y'.repeat(2000), success_criteria: Array(10).fill('z'.repeat(300)) };
    expect((await postIntent(request(ascii), ports)).statusCode).toBe(200);
  });
});

describe('callerKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s → %s', (ip, key) => expect(callerKey(ip)).toBe(key));
});
