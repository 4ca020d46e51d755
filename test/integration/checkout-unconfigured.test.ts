/**
 * `npm start` without Stripe keys, as a fresh clone runs it: every checkout validation is still
 * a 400 (validation comes first), a valid request is 503 CHECKOUT_NOT_CONFIGURED with
 * retry: false, and the banner says card checkout is off.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ACP_INVALID, UCP_INVALID } from '../support/checkout-cases';
import { killStarted, runStart, sharedStackEnv, type StartedProcess } from '../support/spawn-start';

let s: StartedProcess;
beforeAll(async () => {
  s = await runStart(sharedStackEnv(inject));
}, 60_000);
afterAll(async () => {
  await s?.interrupt();
  killStarted();
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('card checkout without Stripe keys', () => {
  it('says so in the banner', () => {
    expect(s.output()).toMatch(/Card checkout\s+off \(set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET/);
  });

  it.each([
    ...ACP_INVALID.map(([name, body, code, param]) => ['/api/acp/checkout_sessions', name, body, code, param] as const),
    ...UCP_INVALID.map(([name, body, code, param]) => ['/api/ucp/checkout-sessions', name, body, code, param] as const),
  ])('%s, %s: 400 %s', async (path, _name, body, code, param) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, error_code: code, param, retry: false });
  });

  it.each([
    ['/api/acp/checkout_sessions', { line_items: [{ id: 'ten-send', quantity: 1 }] }],
    ['/api/ucp/checkout-sessions', { line_items: [{ item: { id: 'csv-cleaner' }, quantity: 1 }] }],
  ])('a valid request to %s is 503 CHECKOUT_NOT_CONFIGURED, retry false', async (path, body) => {
    const res = await post(path, body);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ ok: false, error_code: 'CHECKOUT_NOT_CONFIGURED', error: 'checkout_not_configured', retry: false });
  });

  it('the discovery documents say card checkout is off', async () => {
    expect(await (await fetch(`${s.baseUrl}/.well-known/acp.json`)).json()).toMatchObject({ enabled: false });
  });
});
