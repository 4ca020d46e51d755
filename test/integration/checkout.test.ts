/**
 * Card checkout through the local server, with the real `stripe` SDK talking to the Stripe
 * stand-in (test/support/stripe-stand-in.ts): validation, creation, the lifecycle of both
 * protocols, Idempotency-Keys, the signed webhook, the success page's delivery and the card
 * license redeemed through POST /api/pay.
 */
import { compactVerify, createLocalJWKSet } from 'jose';
import Stripe from 'stripe';
import { describe, expect, inject, it } from 'vitest';
import { ACP_INVALID, UCP_INVALID } from '../support/checkout-cases';
import { requestFrom } from '../support/source-address';
import type { RecordedRequest } from '../support/stripe-stand-in';

const base = inject('baseUrl');
const stripeBase = inject('stripeBase');
const webhookSecret = inject('stripeWebhookSecret');
const signer = new Stripe('sk_test_signer_only');

type Json = Record<string, unknown>;
const send = async (method: 'POST' | 'PUT', path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
};
const post = (path: string, body: unknown, headers?: Record<string, string>) => send('POST', path, body, headers);
const put = (path: string, body: unknown, headers?: Record<string, string>) => send('PUT', path, body, headers);
const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
};
/** What only a session's creator holds: the client_secret its creation answered, as every later call presents it. */
const creator = (created: Json): Record<string, string> => ({ authorization: `Bearer ${String(created['client_secret'])}` });
const acp = (body: unknown, headers?: Record<string, string>) => post('/api/acp/checkout_sessions', body, headers);
const ucp = (body: unknown, headers?: Record<string, string>) => post('/api/ucp/checkout-sessions', body, headers);
const stripeRequests = async (): Promise<RecordedRequest[]> =>
  (await (await fetch(`${stripeBase}/_test/requests`)).json()) as RecordedRequest[];
const stripeSessionOf = (continueUrl: string): string => continueUrl.split('/').at(-1)!;

/** Pays the session at the stand-in and answers Stripe's event, not delivered: the test delivers it. */
async function payAtStripe(stripeSessionId: string): Promise<Json> {
  const res = await fetch(`${stripeBase}/_test/sessions/${stripeSessionId}/pay`, { method: 'POST' });
  return (await res.json()) as Json;
}

async function deliver(event: unknown, opts: { tamper?: boolean; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const signature = signer.webhooks.generateTestHeaderString({
    payload,
    secret: webhookSecret,
    ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
  });
  const res = await fetch(`${base}/api/checkout/stripe-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: opts.tamper ? payload.replace('"paid"', '"unpaid"') : payload,
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('checkout validation (both protocols, before anything else)', () => {
  it.each(ACP_INVALID)('ACP: %s', async (_name, body, code, param) => {
    const res = await acp(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      ok: false,
      error_code: code,
      error: code.toLowerCase(),
      param,
      retry: false,
      type: 'invalid_request',
    });
    expect(typeof res.body['code']).toBe('string');
    expect(typeof res.body['message']).toBe('string');
    expect(typeof res.body['tip']).toBe('string');
  });

  it.each(UCP_INVALID)('UCP: %s', async (_name, body, code, param) => {
    const res = await ucp(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, error_code: code, param, code: code.toLowerCase() });
    expect(res.body['content']).toBe(res.body['message']);
  });

  it('malformed JSON is 400 INVALID_JSON, and no Stripe request is made for any refusal', async () => {
    const before = (await stripeRequests()).length;
    expect((await acp('{"line_items": [')).body['error_code']).toBe('INVALID_JSON');
    expect((await ucp({ line_items: [] })).status).toBe(400);
    expect((await stripeRequests()).length).toBe(before);
  });
});

describe('ACP checkout', () => {
  it('creates a Stripe Checkout Session from the price source and answers 201 ready_for_payment', async () => {
    const res = await acp({
      line_items: [{ id: 'ten-send', quantity: 1 }],
      buyer: { email: 'buyer@example.com' },
      unknown_field: { x: 1 },
    });
    expect(res.status).toBe(201);
    const s = res.body;
    expect(s).toMatchObject({
      status: 'ready_for_payment',
      currency: 'usd',
      amount: 1900,
      intent: 'charge',
      method: 'card',
      buyer: { email: 'buyer@example.com' },
    });
    expect(String(s['continue_url'])).toMatch(new RegExp(`^${stripeBase}/c/pay/cs_test_`));
    expect(s['line_items']).toEqual([
      expect.objectContaining({ item: expect.objectContaining({ id: 'ten-send', unit_amount: 1900 }), quantity: 1 }),
    ]);
    expect(s['protocol']).toEqual({ version: '2026-04-17' });
    expect((s['totals'] as Json[]).find((t) => t['type'] === 'total')).toMatchObject({ amount: 1900 });
    expect(res.headers.get('location')).toBe(`${base}/api/acp/checkout_sessions/${String(s['id'])}`);

    const sent = (await stripeRequests()).find(
      (r) => r.path === '/v1/checkout/sessions' && (r.params['client_reference_id'] as string) === s['id'],
    );
    expect(sent).toBeDefined();
    expect(sent!.idempotencyKey).toBe(`checkout-session-${String(s['id'])}`);
    expect(sent!.params).toMatchObject({
      mode: 'payment',
      line_items: { 0: { quantity: '1', price_data: { currency: 'usd', unit_amount: '1900' } } },
      metadata: { market: 'skill-market', skill: 'ten-send', protocol: 'acp', session_id: s['id'] },
      customer_email: 'buyer@example.com',
      success_url: `${base}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
    });

    expect(String(s['client_secret'])).toMatch(/^chks_[A-Za-z0-9_-]{43}$/);
    const again = await get(`/api/acp/checkout_sessions/${String(s['id'])}`, creator(s));
    expect(again.status).toBe(200);
    expect(again.body['status']).toBe('ready_for_payment');
    expect(again.body['client_secret']).toBeUndefined();
    expect((await get(`/api/ucp/checkout-sessions/${String(s['id'])}`, creator(s))).status).toBe(404);
  });

  it('accepts ACP 2026-04-17 line items without quantity', async () => {
    const res = await acp({ line_items: [{ id: 'market-x402-merchant-os' }], currency: 'usd', capabilities: {} });
    expect(res.status).toBe(201);
    expect(res.body['amount']).toBe(99);
  });

  it('webhook: 20 parallel deliveries of one paid event, and 5 more under other event ids, record one sale', async () => {
    const created = (await acp({ line_items: [{ id: 'csv-cleaner', quantity: 1 }] })).body;
    const event = await payAtStripe(stripeSessionOf(String(created['continue_url'])));
    const again = Array.from({ length: 5 }, (_, i) => ({ ...event, id: `evt_again_${i}_${String(created['id'])}` }));
    const answers = await Promise.all([...Array.from({ length: 20 }, () => deliver(event)), ...again.map((e) => deliver(e))]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body['outcome'] === 'recorded')).toHaveLength(1);
  });

  it('webhook: a paid session records one sale; the success page delivers the pack and a license that redeems', async () => {
    const created = (await acp({ line_items: [{ id: 'csv-cleaner', quantity: 1 }] })).body;
    const stripeId = stripeSessionOf(String(created['continue_url']));

    const waiting = await get(`/api/checkout/delivery?session_id=${stripeId}`);
    expect(waiting.status).toBe(202);
    expect(waiting.headers.get('retry-after')).toBe('2');

    const event = await payAtStripe(stripeId);
    expect((await deliver(event, { tamper: true })).body['error_code']).toBe('INVALID_WEBHOOK_SIGNATURE');
    expect((await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 })).status).toBe(400);
    expect((await get(`/api/checkout/delivery?session_id=${stripeId}`)).status).toBe(202);

    const first = await deliver(event);
    expect(first).toMatchObject({ status: 200, body: { received: true, outcome: 'recorded' } });
    expect((await deliver(event)).body).toMatchObject({ received: true, duplicate: true });

    const delivered = await get(`/api/checkout/delivery?session_id=${stripeId}`);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({
      ok: true,
      skill_id: 'csv-cleaner',
      payment: { method: 'card', amount_cents: 1000, currency: 'usd' },
    });
    const token = (delivered.body['license'] as Json)['token'] as string;
    expect(Object.keys((delivered.body['sealed_pack'] as Json)['files'] as Json)).toContain('SKILL.md');
    // The sale's receipt, signed with the published service key: the card sale as recorded, with the pack's seal.
    const keys = createLocalJWKSet((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: Json[] } as never);
    const receiptClaims = async (receipt: unknown) =>
      JSON.parse(new TextDecoder().decode((await compactVerify(String(receipt), keys, { algorithms: ['ES256'] })).payload)) as Json;
    const packSeal = ((await get('/api/packs?skill=csv-cleaner')).body['seal'] as Json)['value'];
    const claims = await receiptClaims(delivered.body['receipt']);
    expect(claims).toMatchObject({
      iss: base,
      sub: 'csv-cleaner',
      kind: 'card',
      pack: { seal: packSeal },
      card: { amount_cents: 1000, currency: 'usd', session: created['id'], processor: 'stripe' },
      time: (delivered.body['payment'] as Json)['recorded_at'],
      ledger: { entry: `card:${String(created['id'])}` },
    });

    const session = await get(`/api/acp/checkout_sessions/${String(created['id'])}`, creator(created));
    expect(session.body).toMatchObject({ status: 'completed', order: { checkout_session_id: created['id'] } });
    expect(String((session.body['order'] as Json)['permalink_url'])).toBe(`${base}/checkout/success?session_id=${stripeId}`);

    const redeemed = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': token } });
    expect(redeemed.status).toBe(200);
    const redeemedBody = (await redeemed.json()) as Json;
    expect(redeemedBody).toMatchObject({ skill_id: 'csv-cleaner', card_sales: { via: 'license' } });
    // A license re-download answers the same sale's receipt, signed again.
    expect({ ...(await receiptClaims(redeemedBody['receipt'])), iat: 0 }).toEqual({ ...claims, iat: 0 });
    // The card buyer's way back to the purchase (the purchases page): the license opens it.
    const purchases = await get('/api/purchases', { 'x-license': token });
    expect(purchases.status).toBe(200);
    expect(purchases.body['purchases']).toEqual([
      expect.objectContaining({
        how: 'card',
        skill: 'csv-cleaner',
        amount_cents: 1000,
        checkout_session: created['id'],
        license: { token, header: 'X-LICENSE' },
      }),
    ]);
    const listed = (purchases.body['purchases'] as Json[])[0]!;
    expect({ ...(await receiptClaims(listed['receipt'])), iat: 0 }).toEqual({ ...claims, iat: 0 });
    const wrongSkill = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-license': token, 'x-payment': JSON.stringify({ skill: 'ten-send' }) },
    });
    expect(wrongSkill.status).toBe(403);

    // Stripe sends `expired` late, after `completed`: nothing changes.
    const late = await deliver({
      ...event,
      id: `evt_late_${String(created['id'])}`,
      type: 'checkout.session.expired',
      data: { object: { ...(event['data'] as { object: Json }).object, status: 'expired' } },
    });
    expect(late.body['outcome']).toBe('unchanged');
    expect((await get(`/api/acp/checkout_sessions/${String(created['id'])}`, creator(created))).body['status']).toBe('completed');
    // The proof ledger holds on-chain unlocks only.
    const proof = (await (await fetch(`${base}/api/proof?skill=csv-cleaner`)).json()) as { recent_unlocks: { txHash: string }[] };
    expect(proof.recent_unlocks.some((r) => r.txHash === created['id'])).toBe(false);
  });

  it('complete before payment says so; after payment at Stripe (no webhook yet) it completes with the order', async () => {
    const created = (await acp({ line_items: [{ id: 'ten-send', quantity: 1 }] })).body;
    const id = String(created['id']);
    const early = await post(`/api/acp/checkout_sessions/${id}/complete`, {}, creator(created));
    expect(early.status).toBe(200);
    expect(early.body['status']).toBe('ready_for_payment');
    await payAtStripe(stripeSessionOf(String(created['continue_url'])));
    const done = await post(
      `/api/acp/checkout_sessions/${id}/complete`,
      { payment_data: { token: 'ignored', provider: 'stripe' } },
      creator(created),
    );
    expect(done.body).toMatchObject({ status: 'completed', order: { checkout_session_id: id } });
    expect((await post(`/api/acp/checkout_sessions/${id}/cancel`, {}, creator(created))).status).toBe(405);
  });

  it('cancel expires the hosted page first, then 405 once canceled; update after cancel is 405', async () => {
    const created = (await acp({ line_items: [{ id: 'ten-send', quantity: 1 }] })).body;
    const id = String(created['id']);
    const updated = await post(`/api/acp/checkout_sessions/${id}`, { buyer: { email: 'new@example.com' } }, creator(created));
    expect(updated.body['buyer']).toEqual({ email: 'new@example.com' });
    const canceled = await post(`/api/acp/checkout_sessions/${id}/cancel`, {}, creator(created));
    expect(canceled.status).toBe(200);
    expect(canceled.body['status']).toBe('canceled');
    const expired = (await stripeRequests()).find(
      (r) => r.path === `/v1/checkout/sessions/${stripeSessionOf(String(created['continue_url']))}/expire`,
    );
    expect(expired).toBeDefined();
    const again = await post(`/api/acp/checkout_sessions/${id}/cancel`, {}, creator(created));
    expect(again.status).toBe(405);
    expect(again.body['error_code']).toBe('CHECKOUT_SESSION_CLOSED');
    expect((await post(`/api/acp/checkout_sessions/${id}`, { buyer: { email: 'x@example.com' } }, creator(created))).status).toBe(405);
    expect((await get(`/api/checkout/delivery?session_id=${stripeSessionOf(String(created['continue_url']))}`)).status).toBe(409);
  });

  it('Idempotency-Key: a replay returns the saved answer; another body with the same key is 422', async () => {
    const key = `idem-${Date.now()}-${Math.random()}`;
    const body = { line_items: [{ id: 'ten-send', quantity: 1 }] };
    const first = await acp(body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const second = await acp({ ...body }, { 'idempotency-key': key });
    expect(second.status).toBe(201);
    expect(second.body['id']).toBe(first.body['id']);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    // The replay of a lost creation answer still carries the secret: the creator can go on.
    expect(second.body['client_secret']).toBe(first.body['client_secret']);
    const other = await acp({ line_items: [{ id: 'csv-cleaner', quantity: 1 }] }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error_code: 'IDEMPOTENCY_KEY_REUSED', type: 'invalid_request', code: 'idempotency_conflict' });
  });
});

describe('UCP checkout', () => {
  it('creates 201 requires_escalation with continue_url and a requires_buyer_input message', async () => {
    const res = await ucp({ line_items: [{ item: { id: 'market-cold-start-catalog-bootstrapper' }, quantity: 1 }] });
    expect(res.status).toBe(201);
    const s = res.body;
    expect(s).toMatchObject({ status: 'requires_escalation', amount: 99, intent: 'charge', method: 'card' });
    expect(String(s['continue_url'])).toContain('/c/pay/cs_test_');
    expect((s['messages'] as Json[]).some((m) => m['severity'] === 'requires_buyer_input')).toBe(true);
    expect((s['ucp'] as Json)['version']).toBe('2026-08-25');
    expect((s['line_items'] as Json[])[0]).toMatchObject({ item: { id: 'market-cold-start-catalog-bootstrapper' }, quantity: 1 });
    const totals = s['totals'] as Json[];
    expect(totals.filter((t) => t['type'] === 'subtotal')).toHaveLength(1);
    expect(totals.filter((t) => t['type'] === 'total')).toEqual([expect.objectContaining({ amount: 99 })]);
  });

  it('PUT changes the buyer; cancel twice is 409; a reused key with another body is 409', async () => {
    const key = `ucp-${Date.now()}`;
    const created = (await ucp({ line_items: [{ item: { id: 'ten-send' }, quantity: 1 }] }, { 'idempotency-key': key })).body;
    const id = String(created['id']);
    const replaced = await put(
      `/api/ucp/checkout-sessions/${id}`,
      { line_items: [{ item: { id: 'ten-send' }, quantity: 1 }], buyer: { email: 'u@example.com' } },
      creator(created),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body['buyer']).toEqual({ email: 'u@example.com' });
    expect((await post(`/api/ucp/checkout-sessions/${id}/cancel`, {}, creator(created))).body['status']).toBe('canceled');
    expect((await post(`/api/ucp/checkout-sessions/${id}/cancel`, {}, creator(created))).status).toBe(409);
    expect((await ucp({ line_items: [{ item: { id: 'csv-cleaner' }, quantity: 1 }] }, { 'idempotency-key': key })).status).toBe(409);
  });
});

/** A second caller: another loopback address (docs/SECURITY.md, "The same caller, soon"). */
const OTHER = '127.0.0.2';
const fromOther = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
  requestFrom(OTHER, `${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

describe('checkout ids are not bearer tokens (issue 31, finding 8)', () => {
  it('an Idempotency-Key is its caller’s: the same key and body from another address is that caller’s own request', async () => {
    const key = `shared-${Date.now()}-${Math.random()}`;
    const body = { line_items: [{ id: 'ten-send', quantity: 1 }] };
    const mine = await acp(body, { 'idempotency-key': key });
    expect(mine.status).toBe(201);
    const theirs = await fromOther('/api/acp/checkout_sessions', { method: 'POST', headers: { 'idempotency-key': key }, body });
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body['id']).not.toBe(mine.body['id']);
    expect(theirs.body['client_secret']).not.toBe(mine.body['client_secret']);
    // Each caller's key still replays its own answer, and still refuses another body.
    const again = await fromOther('/api/acp/checkout_sessions', { method: 'POST', headers: { 'idempotency-key': key }, body });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body['id']).toBe(theirs.body['id']);
    expect((await acp(body, { 'idempotency-key': key })).body['id']).toBe(mine.body['id']);
    const other = await fromOther('/api/acp/checkout_sessions', {
      method: 'POST',
      headers: { 'idempotency-key': key },
      body: { line_items: [{ id: 'csv-cleaner', quantity: 1 }] },
    });
    expect(other.status).toBe(422);
  });

  it('reading, changing, completing and cancelling a session need its client secret; its id alone gets 401', async () => {
    const created = (await acp({ line_items: [{ id: 'ten-send', quantity: 1 }] })).body;
    const id = String(created['id']);
    const path = `/api/acp/checkout_sessions/${id}`;
    const before = (await stripeRequests()).length;
    const calls = [
      { method: 'GET', path },
      { method: 'POST', path, body: { buyer: { email: 'thief@example.com' } } },
      { method: 'POST', path: `${path}/complete`, body: {} },
      { method: 'POST', path: `${path}/cancel`, body: {} },
    ];
    const wrong = `Bearer chks_${'x'.repeat(43)}`;
    for (const call of calls) {
      for (const headers of [{}, { authorization: wrong }, { authorization: `Bearer ${id}` }]) {
        const res = await fromOther(call.path, { ...call, headers });
        expect(res.status, `${call.method} ${call.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body).toMatchObject({ ok: false, error_code: 'CHECKOUT_SECRET_REQUIRED', type: 'invalid_request' });
        expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer realm="checkout-session"/);
      }
      // An Authorization header that is no bearer credential is bad input: 400, never a 5xx.
      const malformed = await fromOther(call.path, { ...call, headers: { authorization: 'Basic eDp5' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST' });
    }
    // Nothing changed, and Stripe's page was not expired.
    expect((await stripeRequests()).length).toBe(before);
    const read = await get(path, creator(created));
    expect(read.body).toMatchObject({ status: 'ready_for_payment' });
    expect(read.body['buyer']).toBeUndefined();
    // Its creator cancels it, from any address.
    const canceled = await fromOther(`${path}/cancel`, { method: 'POST', headers: creator(created), body: {} });
    expect(canceled.status).toBe(200);
    expect(canceled.body['status']).toBe('canceled');
  });

  it('a delivered card pack goes again with its license, not with the Stripe session id alone (but to its first caller, soon)', async () => {
    const created = (await acp({ line_items: [{ id: 'csv-cleaner', quantity: 1 }] })).body;
    const stripeId = stripeSessionOf(String(created['continue_url']));
    expect((await deliver(await payAtStripe(stripeId))).body['outcome']).toBe('recorded');
    const url = `/api/checkout/delivery?session_id=${stripeId}`;

    // The first delivery (the buyer Stripe redirected): the pack and a license.
    const first = await get(url);
    expect(first.status).toBe(200);
    const token = (first.body['license'] as Json)['token'] as string;
    // Anyone else with the id alone: 403, naming what to present.
    const stranger = await fromOther(url);
    expect(stranger.status).toBe(403);
    expect(stranger.body).toMatchObject({ ok: false, error_code: 'LICENSE_REQUIRED', error: 'license_required', retry: false });
    expect(stranger.body['message']).toMatch(/license/);
    expect(stranger.body['tip']).toMatch(/X-LICENSE/);
    expect(stranger.body['sealed_pack']).toBeUndefined();
    // The first caller's lost-response retry, within RETRY_WINDOW_SECONDS.
    expect((await get(url)).status).toBe(200);
    // With the license, from anywhere: the pack, with that license.
    const back = await fromOther(url, { headers: { 'x-license': token } });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ skill_id: 'csv-cleaner', license: { token }, card_sales: { via: 'license' } });
    // A license of another sale, or none at all, is refused as JSON.
    for (const bad of ['eyJhbGciOiJIUzI1NiJ9.e30.x', 'x'.repeat(4000)]) {
      const refused = await fromOther(url, { headers: { 'x-license': bad } });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ ok: false, error_code: 'INVALID_LICENSE' });
    }
    // The agent that opened the session: its client secret.
    expect((await fromOther(url, { headers: creator(created) })).status).toBe(200);
  });
});

describe('discovery', () => {
  it('/.well-known/acp.json and /.well-known/ucp name the endpoints and the card packs', async () => {
    const acpDoc = await get('/.well-known/acp.json');
    expect(acpDoc.body).toMatchObject({
      protocol: { name: 'acp', version: '2026-04-17' },
      api_base_url: `${base}/api/acp`,
      capabilities: { services: ['checkout'] },
      checkout_sessions: `${base}/api/acp/checkout_sessions`,
      enabled: true,
    });
    expect(acpDoc.body['items']).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'ten-send', amount: 1900 })]));
    const ucpDoc = await get('/.well-known/ucp');
    expect(ucpDoc.body['ucp']).toMatchObject({
      version: '2026-08-25',
      services: { 'dev.ucp.shopping': [{ transport: 'rest', endpoint: `${base}/api/ucp` }] },
      capabilities: { 'dev.ucp.shopping.checkout': [{ version: '2026-08-25' }] },
    });
  });
});
