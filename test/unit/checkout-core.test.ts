/**
 * The checkout domain's rules on fakes of its own ports: what a creation may ask for, and how
 * Stripe's events change a session whatever order they arrive in (at least once, any order).
 */
import { compactVerify, createLocalJWKSet } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readCreate } from '../../lambdas/checkout/core/create-request';
import type {
  CardProcessor,
  CheckoutPorts,
  CheckoutSession,
  CheckoutSessions,
  SessionState,
  StripeCheckoutView,
  StripeEventView,
} from '../../lambdas/checkout/ports';
import { sameCallerSoon } from '../../lambdas/checkout/core/delivery';
import { checkCreator, hashSecret } from '../../lambdas/checkout/core/session-secret';
import { getCheckoutDelivery } from '../../lambdas/checkout/delivery';
import { ACP_FACE, acpView } from '../../lambdas/checkout/core/acp';
import { ucpView } from '../../lambdas/checkout/core/ucp';
import { cancelRoute, createRoute, getRoute } from '../../lambdas/checkout/protocol-routes';
import { cancelSession } from '../../lambdas/checkout/sessions';
import { postStripeWebhook } from '../../lambdas/checkout/webhook';
import { filePackStore } from '../../lambdas/payments/adapters/file-pack-store';
import { jwks, type CardSale, type ChargeFee } from '../../lambdas/ledger';
import { keyFileServiceSigner } from '../../lambdas/ledger/adapters/key-file-service-signer';
import { callerId, type PaymentsPorts } from '../../lambdas/payments';
import { AppError } from '../../lambdas/platform/errors';
import type { ApiRequest } from '../../lambdas/platform/http';

const catalog = loadCatalogFiles();

describe('readCreate', () => {
  it('takes the spec shape and ACP 2026-04-17 (no quantity, currency, capabilities), ignoring unknown fields', () => {
    expect(readCreate('acp', { line_items: [{ id: 'ten-send', quantity: 1 }] }, catalog)).toEqual({
      skill: 'ten-send',
      buyerEmail: undefined,
    });
    expect(
      readCreate('acp', { line_items: [{ id: 'csv-cleaner' }], currency: 'USD', capabilities: { x: 1 }, extra: [1] }, catalog),
    ).toEqual({
      skill: 'csv-cleaner',
      buyerEmail: undefined,
    });
    expect(
      readCreate('ucp', { line_items: [{ item: { id: 'ten-send', title: 'x' }, quantity: 1 }], buyer: { email: ' a@b.co ' } }, catalog),
    ).toEqual({
      skill: 'ten-send',
      buyerEmail: 'a@b.co',
    });
  });

  it.each([
    ['acp', { line_items: [{ id: 'ten-send', quantity: 1.0000001 }] }, 'INVALID_QUANTITY', 'line_items[0].quantity'],
    ['acp', { line_items: [null] }, 'INVALID_LINE_ITEMS', 'line_items[0]'],
    ['acp', { line_items: [{ id: '' }] }, 'ITEM_ID_REQUIRED', 'line_items[0].id'],
    ['ucp', { line_items: [{ item: 'ten-send', quantity: 1 }] }, 'INVALID_LINE_ITEMS', 'line_items[0].item'],
    ['ucp', { line_items: [{ id: 'ten-send', quantity: 1 }] }, 'ITEM_ID_REQUIRED', 'line_items[0].item.id'],
    ['acp', { line_items: [{ id: 'ten-send' }], buyer: 'me' }, 'INVALID_BUYER', 'buyer'],
    ['acp', { line_items: [{ id: 'ten-send' }], buyer: { email: `${'a'.repeat(250)}@b.co` } }, 'INVALID_EMAIL', 'buyer.email'],
  ] as const)('%s %j → %s at %s', (protocol, body, code, param) => {
    try {
      readCreate(protocol, body, catalog);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect(e).toMatchObject({ status: 400, code, param });
    }
  });
});

/** Sessions with the adapter's rule: a transition applies only from the listed states. */
function fakeSessions(): CheckoutSessions & { all: Map<string, CheckoutSession> } {
  const all = new Map<string, CheckoutSession>();
  return {
    all,
    create: async (s) => void all.set(s.id, { ...s }),
    get: async (id) => (all.has(id) ? { ...all.get(id)! } : undefined),
    byStripeId: async (sid) => [...all.values()].find((s) => s.stripeSessionId === sid),
    transition: async (id, from, patch, now) => {
      const s = all.get(id);
      if (!s || !from.includes(s.state)) return { ok: false, current: s ? { ...s } : undefined };
      Object.assign(s, Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), { updatedAt: now.toISOString() });
      return { ok: true, session: { ...s } };
    },
    claimFirstDelivery: async (id, caller, now) => {
      const s = all.get(id);
      if (!s || s.deliveredAt !== undefined) return { first: false, current: s ? { ...s } : undefined };
      Object.assign(s, { deliveredAt: now.toISOString(), deliveredTo: caller });
      return { first: true };
    },
  };
}

/** A client secret of the shape wiring.ts makes, and another. */
const SECRET = `chks_${'A'.repeat(43)}`;
const OTHER_SECRET = `chks_${'B'.repeat(43)}`;
/** The license the fake payments issue, and the claims a license of the world's sale verifies to. */
const SALE_LICENSE_CLAIMS = { network: 'card', txHash: 'chk_1', skill: 'ten-send', payer: 'card', seal: 'x' };

function world(state: SessionState = 'open') {
  const sessions = fakeSessions();
  const sales = new Map<string, CardSale>();
  const handled = new Set<string>();
  const stripeCalls: string[] = [];
  let stripeStatus: 'open' | 'complete' | 'expired' = 'open';
  /** Stripe's balance transaction of the charge: absent until Stripe makes it; `fail` when Stripe cannot be asked. */
  const stripeFee: { fee: ChargeFee | undefined; fail: boolean; reads: number } = { fee: undefined, fail: false, reads: 0 };
  const stripeView = (over: Partial<StripeCheckoutView> = {}): StripeCheckoutView => ({
    id: 'cs_test_1',
    url: 'https://checkout.stripe.test/cs_test_1',
    status: stripeStatus,
    paymentStatus: stripeStatus === 'complete' ? 'paid' : 'unpaid',
    amountTotal: 1900,
    currency: 'usd',
    clientReferenceId: 'chk_1',
    metadata: { market: 'skill-market', session_id: 'chk_1', skill: 'ten-send', protocol: 'acp' },
    paymentIntent: 'pi_1',
    livemode: false,
    expiresAt: undefined,
    country: 'DE',
    ...over,
  });
  const card: CardProcessor = {
    createCheckout: async () => stripeView(),
    retrieveCheckout: async () => stripeView(),
    expireCheckout: async (id) => {
      stripeCalls.push(`expire ${id}`);
      if (stripeStatus !== 'open') return 'not_open';
      stripeStatus = 'expired';
      return 'expired';
    },
    chargeFees: async () => {
      stripeFee.reads++;
      if (stripeFee.fail) throw new Error('Stripe unreachable');
      return { chargeId: 'ch_1', fee: stripeFee.fee };
    },
    // The signature is the adapter's job (tested through the server); here the body is the event.
    verifyEvent: async (raw) => JSON.parse(raw) as StripeEventView,
  };
  let clock = new Date('2026-11-23T12:00:00Z');
  const issued: string[] = [];
  const payments = {
    catalog,
    packs: filePackStore(),
    config: { retryWindowSeconds: 600 },
    serviceSigner: SIGNER,
    licenses: {
      issue: async () => {
        issued.push(`lic-${issued.length + 1}`);
        return issued.at(-1)!;
      },
      verify: async (token: string) =>
        token === 'lic-of-this-sale'
          ? SALE_LICENSE_CLAIMS
          : token === 'lic-of-another-sale'
            ? { ...SALE_LICENSE_CLAIMS, txHash: 'chk_other' }
            : undefined,
    },
    cardSales: {
      record: async (sale: CardSale) => {
        if (sales.has(sale.id)) return { recorded: false, sale: sales.get(sale.id)! };
        sales.set(sale.id, sale);
        return { recorded: true, sale };
      },
      get: async (id: string) => sales.get(id),
      byPaymentIntent: async (pi: string) => [...sales.values()].find((s) => s.paymentIntent === pi),
      recordFee: async (id: string, chargeId: string, fee: ChargeFee) => {
        const sale = sales.get(id);
        if (!sale) return undefined;
        if (sale.feeCents !== undefined) return { applied: false };
        sales.set(id, { ...sale, chargeId, ...fee });
        return { applied: true };
      },
    },
  } as unknown as PaymentsPorts;
  const ports: CheckoutPorts = {
    payments,
    sessions,
    idempotency: undefined as never,
    events: { seen: async (id) => handled.has(id), remember: async (id) => void handled.add(id) },
    card: async () => card,
    now: () => clock,
    newId: () => 'chk_1',
    newSecret: () => SECRET,
  };
  void sessions.create({
    id: 'chk_1',
    protocol: 'acp',
    skill: 'ten-send',
    name: 'Ten Send',
    amountCents: 1900,
    currency: 'usd',
    buyerEmail: undefined,
    state,
    stripeSessionId: 'cs_test_1',
    continueUrl: 'https://checkout.stripe.test/cs_test_1',
    createdAt: '2026-11-23T11:00:00Z',
    updatedAt: '2026-11-23T11:00:00Z',
    expiresAt: '2026-11-24T11:00:00Z',
    secretHash: hashSecret(SECRET),
  });
  const event = (id: string, type: string, over: Partial<StripeCheckoutView> = {}, charge?: unknown): Promise<Record<string, unknown>> => {
    const req = {
      headers: { 'stripe-signature': 't=1,v1=x' },
      body: JSON.stringify(charge ? { id, type, charge } : { id, type, session: stripeView(over) }),
    } as unknown as ApiRequest;
    return postStripeWebhook(req, ports).then((r) => JSON.parse(String(r.body)) as Record<string, unknown>);
  };
  /** A request as the routes see it: from `sourceIp`, with these headers, query and path parameters. */
  const request = (over: Partial<ApiRequest> = {}): ApiRequest =>
    ({
      method: 'GET',
      path: '/',
      routeKey: '',
      query: {},
      headers: {},
      pathParameters: {},
      body: undefined,
      requestId: 'r',
      baseUrl: 'https://shop.example',
      sourceIp: '198.51.100.1',
      ...over,
    }) as ApiRequest;
  return {
    ports,
    sessions,
    sales,
    event,
    stripeCalls,
    issued,
    request,
    stripeFee,
    pay: () => (stripeStatus = 'complete'),
    advance: (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000)),
  };
}

const PAID = { status: 'complete', paymentStatus: 'paid' } as const;
const SIGNER = keyFileServiceSigner(undefined);

describe('Stripe events, in any order and more than once', () => {
  it('completed twice (and under two event ids) records one sale', async () => {
    const w = world();
    expect((await w.event('evt_1', 'checkout.session.completed', PAID))['outcome']).toBe('recorded');
    expect(await w.event('evt_1', 'checkout.session.completed', PAID)).toMatchObject({ duplicate: true });
    expect((await w.event('evt_2', 'checkout.session.completed', PAID))['outcome']).toBe('already_recorded');
    expect(w.sales.size).toBe(1);
    expect(w.sessions.all.get('chk_1')!.state).toBe('completed');
    // The pack as sold, from the server's catalog: what the sale's receipt states.
    expect(w.sales.get('chk_1')!.packSeal).toBe(catalog.packMeta('ten-send')!.seal);
    // The billing country Stripe reported, for tax.
    expect(w.sales.get('chk_1')!.buyerCountry).toBe('DE');
  });

  it('expired after completed changes nothing; completed after expired still records the sale', async () => {
    const a = world();
    await a.event('evt_1', 'checkout.session.completed', PAID);
    expect((await a.event('evt_2', 'checkout.session.expired', { status: 'expired' }))['outcome']).toBe('unchanged');
    expect(a.sessions.all.get('chk_1')!.state).toBe('completed');

    const b = world();
    expect((await b.event('evt_3', 'checkout.session.expired', { status: 'expired' }))['outcome']).toBe('closed');
    expect((await b.event('evt_4', 'checkout.session.completed', PAID))['outcome']).toBe('recorded');
    expect(b.sessions.all.get('chk_1')!.state).toBe('completed');
  });

  it('a delayed method: completed unpaid → processing; then succeeded → sale, or failed → canceled', async () => {
    const ok = world();
    expect((await ok.event('evt_1', 'checkout.session.completed', { status: 'complete', paymentStatus: 'unpaid' }))['outcome']).toBe(
      'processing',
    );
    expect(ok.sales.size).toBe(0);
    expect((await ok.event('evt_2', 'checkout.session.async_payment_succeeded', PAID))['outcome']).toBe('recorded');
    const failed = world();
    await failed.event('evt_1', 'checkout.session.completed', { status: 'complete', paymentStatus: 'unpaid' });
    expect((await failed.event('evt_2', 'checkout.session.async_payment_failed', { status: 'complete' }))['outcome']).toBe('closed');
    expect(failed.sessions.all.get('chk_1')).toMatchObject({ state: 'canceled', closedReason: 'payment_failed' });
  });

  it('never delivers for less than the price, another currency, or a session that is not ours', async () => {
    const w = world();
    expect((await w.event('evt_1', 'checkout.session.completed', { ...PAID, amountTotal: 1899 }))['outcome']).toBe('amount_mismatch');
    expect((await w.event('evt_2', 'checkout.session.completed', { ...PAID, currency: 'eur' }))['outcome']).toBe('amount_mismatch');
    expect((await w.event('evt_3', 'checkout.session.completed', { ...PAID, metadata: {} }))['outcome']).toBe('not_ours');
    expect((await w.event('evt_4', 'checkout.session.completed', { ...PAID, id: 'cs_test_other' }))['outcome']).toBe('not_ours');
    expect(w.sales.size).toBe(0);
    expect((await w.event('evt_5', 'charge.refunded'))['outcome']).toBe('ignored');
  });
});

describe("Stripe's fee on a card sale", () => {
  const FEE: ChargeFee = { balanceTransaction: 'txn_1', feeCents: 85, netCents: 1815, feeCurrency: 'usd' };
  const charge = (balanceTransaction: string | null) => ({
    id: 'ch_1',
    paymentIntent: 'pi_1',
    metadata: { market: 'skill-market', session_id: 'chk_1' },
    amountCents: 1900,
    amountRefundedCents: 0,
    balanceTransaction: balanceTransaction ?? undefined,
  });

  it('is recorded with the sale when the balance transaction exists', async () => {
    const w = world();
    w.stripeFee.fee = FEE;
    expect((await w.event('evt_1', 'checkout.session.completed', PAID))['outcome']).toBe('recorded');
    expect(w.sales.get('chk_1')).toMatchObject({ chargeId: 'ch_1', ...FEE, status: 'paid' });
    // A charge.updated after it costs no call to Stripe and changes nothing.
    const reads = w.stripeFee.reads;
    expect((await w.event('evt_2', 'charge.updated', {}, charge('txn_1')))['outcome']).toBe('unchanged');
    expect(w.stripeFee.reads).toBe(reads);
  });

  it('never holds the sale back: without a balance transaction, or with Stripe unreachable, the sale is recorded; charge.updated fills the fee in once', async () => {
    for (const fail of [false, true]) {
      const w = world();
      w.stripeFee.fail = fail;
      expect((await w.event('evt_1', 'checkout.session.completed', PAID))['outcome']).toBe('recorded');
      expect(w.sales.get('chk_1')!.feeCents).toBeUndefined();
      expect(w.sessions.all.get('chk_1')!.state).toBe('completed');
      // An update that is not the balance transaction (no txn yet) is no fee.
      expect((await w.event('evt_2', 'charge.updated', {}, charge(null)))['outcome']).toBe('ignored');
      w.stripeFee.fail = false;
      w.stripeFee.fee = FEE;
      expect((await w.event('evt_3', 'charge.updated', {}, charge('txn_1')))['outcome']).toBe('fee_recorded');
      expect(w.sales.get('chk_1')).toMatchObject({ chargeId: 'ch_1', ...FEE });
      expect(await w.event('evt_3', 'charge.updated', {}, charge('txn_1'))).toMatchObject({ duplicate: true });
      expect((await w.event('evt_4', 'charge.updated', {}, charge('txn_1')))['outcome']).toBe('unchanged');
    }
  });

  it("another integration's charge is not ours; ours before its sale is recorded is 503 for Stripe to deliver again", async () => {
    const w = world();
    const foreign = { ...charge('txn_9'), metadata: {} };
    expect((await w.event('evt_1', 'charge.updated', {}, foreign))['outcome']).toBe('not_ours');
    await expect(w.event('evt_2', 'charge.updated', {}, charge('txn_1'))).rejects.toMatchObject({ status: 503 });
  });
});

describe('cancel', () => {
  it('expires the hosted page first; if Stripe says it was paid meanwhile, the sale is recorded and cancel is refused', async () => {
    const w = world();
    w.pay();
    await expect(cancelSession((await w.sessions.get('chk_1'))!, w.ports, 405)).rejects.toMatchObject({
      status: 405,
      code: 'CHECKOUT_SESSION_CLOSED',
    });
    expect(w.stripeCalls).toEqual(['expire cs_test_1']);
    expect(w.sales.size).toBe(1);
    expect(w.sessions.all.get('chk_1')!.state).toBe('completed');
  });

  it('an open session is canceled after Stripe expired its page', async () => {
    const w = world();
    expect((await cancelSession((await w.sessions.get('chk_1'))!, w.ports, 405)).state).toBe('canceled');
    expect(w.stripeCalls).toEqual(['expire cs_test_1']);
  });
});

describe('the client secret: what only a session’s creator holds (issue 31, finding 8)', () => {
  it('opens the session whose hash it is, compared as hashes; nothing else does', () => {
    const hash = hashSecret(SECRET);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(SECRET.slice(5, 20));
    expect(checkCreator(hash, `Bearer ${SECRET}`)).toBe('creator');
    expect(checkCreator(hash, `bearer   ${SECRET}`)).toBe('creator');
    expect(checkCreator(hash, undefined)).toBe('missing');
    expect(checkCreator(hash, '  ')).toBe('missing');
    expect(checkCreator(hash, `Bearer ${OTHER_SECRET}`)).toBe('mismatch');
    expect(checkCreator(hash, 'Bearer api_key_123')).toBe('mismatch');
    // The hash itself is not the secret.
    expect(checkCreator(hash, `Bearer ${hash}`)).toBe('mismatch');
    expect(checkCreator(hash, `Basic ${Buffer.from('a:b').toString('base64')}`)).toBe('malformed');
    expect(checkCreator(hash, SECRET)).toBe('malformed');
    expect(checkCreator(hash, `Bearer ${SECRET} extra`)).toBe('malformed');
    // A session made before secrets existed opens for nobody.
    expect(checkCreator(undefined, `Bearer ${SECRET}`)).toBe('mismatch');
  });

  it('is answered once, on creation, and stored only as its hash', async () => {
    const w = world();
    w.sessions.all.clear();
    const res = await createRoute(ACP_FACE)(
      w.request({ method: 'POST', body: JSON.stringify({ line_items: [{ id: 'ten-send', quantity: 1 }] }) }),
      w.ports,
    );
    expect(res.statusCode).toBe(201);
    expect(JSON.parse(String(res.body))).toMatchObject({ id: 'chk_1', client_secret: SECRET });
    const stored = w.sessions.all.get('chk_1')!;
    expect(stored.secretHash).toBe(hashSecret(SECRET));
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    // Reading the session never shows it again.
    const read = await getRoute(ACP_FACE)(
      w.request({ pathParameters: { id: 'chk_1' }, headers: { authorization: `Bearer ${SECRET}` } }),
      w.ports,
    );
    expect(read.statusCode).toBe(200);
    expect(String(read.body)).not.toContain(SECRET);
  });

  it('reading and cancelling need it: 401 without or with another (WWW-Authenticate), 400 for no bearer credential', async () => {
    const w = world();
    const id = { pathParameters: { id: 'chk_1' } };
    for (const [headers, status, challenge] of [
      [{}, 401, 'Bearer realm="checkout-session"'],
      [{ authorization: `Bearer ${OTHER_SECRET}` }, 401, 'Bearer realm="checkout-session", error="invalid_token"'],
      [{ authorization: 'Basic eDp5' }, 400, undefined],
    ] as const) {
      for (const route of [getRoute(ACP_FACE), cancelRoute(ACP_FACE)]) {
        const res = await route(w.request({ ...id, method: 'POST', headers }), w.ports);
        expect(res.statusCode).toBe(status);
        expect(JSON.parse(String(res.body))).toMatchObject({
          ok: false,
          error_code: status === 401 ? 'CHECKOUT_SECRET_REQUIRED' : 'INVALID_REQUEST',
        });
        expect(res.headers['www-authenticate']).toBe(challenge);
      }
    }
    expect(w.stripeCalls).toEqual([]);
    expect(w.sessions.all.get('chk_1')!.state).toBe('open');
    const canceled = await cancelRoute(ACP_FACE)(
      w.request({ ...id, method: 'POST', headers: { authorization: `Bearer ${SECRET}` } }),
      w.ports,
    );
    expect(canceled.statusCode).toBe(200);
    expect(w.sessions.all.get('chk_1')!.state).toBe('canceled');
  });
});

describe('delivery of a paid card pack: the Stripe id alone, once (issue 31, finding 8)', () => {
  const paidWorld = async () => {
    const w = world();
    await w.event('evt_1', 'checkout.session.completed', PAID);
    const delivery = (sourceIp: string, headers: Record<string, string> = {}) =>
      getCheckoutDelivery(w.request({ query: { session_id: 'cs_test_1' }, sourceIp, headers }), w.ports).then(
        (r) => ({ status: r.statusCode, body: JSON.parse(String(r.body)) as Record<string, any> }),
        (e: unknown) => {
          if (!(e instanceof AppError)) throw e;
          return {
            status: e.status,
            body: { error_code: e.code, message: e.message, tip: e.tip, details: e.details } as Record<string, any>,
          };
        },
      );
    return { w, delivery };
  };

  it('the first delivery hands out the pack and a license and records it, with a pseudonym of its caller', async () => {
    const { w, delivery } = await paidWorld();
    const first = await delivery('198.51.100.1');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ skill_id: 'ten-send', license: { token: 'lic-1' } });
    // The sale's receipt, signed with the service key: the card sale as recorded.
    const receipt = (first.body as { receipt: string }).receipt;
    const { payload } = await compactVerify(receipt, createLocalJWKSet(await jwks(SIGNER)));
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({
      iss: 'https://shop.example',
      sub: 'ten-send',
      kind: 'card',
      pack: { seal: catalog.packMeta('ten-send')!.seal },
      card: { amount_cents: 1900, currency: 'usd', session: 'chk_1', processor: 'stripe' },
      time: w.sales.get('chk_1')!.recordedAt,
      ledger: { entry: 'card:chk_1' },
    });
    const session = w.sessions.all.get('chk_1')!;
    expect(session.deliveredAt).toBe('2026-11-23T12:00:00.000Z');
    expect(session.deliveredTo).toBe(callerId('198.51.100.1'));
    expect(JSON.stringify(session)).not.toContain('198.51.100.1');
  });

  it('after it the id alone is 403 LICENSE_REQUIRED for anyone else, and for its caller once the retry window is over', async () => {
    const { w, delivery } = await paidWorld();
    await delivery('198.51.100.1');
    const other = await delivery('203.0.113.9');
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ error_code: 'LICENSE_REQUIRED', details: { present: ['X-LICENSE', 'Authorization'] } });
    expect(other.body['tip']).toMatch(/X-LICENSE/);
    // The lost-response retry: the same caller, inside RETRY_WINDOW_SECONDS.
    w.advance(599);
    expect((await delivery('198.51.100.1')).status).toBe(200);
    w.advance(1);
    expect((await delivery('198.51.100.1')).body['error_code']).toBe('LICENSE_REQUIRED');
    expect(sameCallerSoon(w.sessions.all.get('chk_1')!, callerId('198.51.100.1'), new Date(), 0)).toBe(false);
  });

  it('its license delivers to anyone, with no new license; another sale’s or a made-up one is 403 INVALID_LICENSE', async () => {
    const { w, delivery } = await paidWorld();
    await delivery('198.51.100.1');
    const issued = w.issued.length;
    const back = await delivery('203.0.113.9', { 'x-license': 'lic-of-this-sale' });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ license: { token: 'lic-of-this-sale' }, card_sales: { via: 'license' } });
    expect(w.issued.length).toBe(issued);
    for (const token of ['lic-of-another-sale', 'not-a-license', ''])
      expect((await delivery('203.0.113.9', { 'x-license': token })).body['error_code']).toBe('INVALID_LICENSE');
  });

  it('the session’s client secret delivers to the agent that opened it, from anywhere; another is 401', async () => {
    const { delivery } = await paidWorld();
    await delivery('198.51.100.1');
    expect((await delivery('203.0.113.9', { authorization: `Bearer ${SECRET}` })).status).toBe(200);
    expect((await delivery('203.0.113.9', { authorization: `Bearer ${OTHER_SECRET}` })).body['error_code']).toBe(
      'CHECKOUT_SECRET_REQUIRED',
    );
    expect((await delivery('203.0.113.9', { authorization: 'nonsense' })).body['error_code']).toBe('INVALID_REQUEST');
  });

  it('a delivery by license or secret leaves the first delivery for the id alone to the buyer the success page brings', async () => {
    const { w, delivery } = await paidWorld();
    await delivery('203.0.113.9', { authorization: `Bearer ${SECRET}` });
    expect(w.sessions.all.get('chk_1')!.deliveredAt).toBeUndefined();
    expect((await delivery('198.51.100.1')).status).toBe(200);
  });
});

describe("the session links the seller's pages, in each standard's link types", () => {
  const session: CheckoutSession = {
    id: 'cs_local_1',
    protocol: 'acp',
    skill: 'csv-cleaner',
    name: 'CSV cleaner',
    amountCents: 1000,
    currency: 'usd',
    buyerEmail: undefined,
    state: 'open',
    stripeSessionId: 'cs_test_1',
    continueUrl: 'https://checkout.stripe.com/c/pay/cs_test_1',
    createdAt: '2026-11-26T00:00:00.000Z',
    updatedAt: '2026-11-26T00:00:00.000Z',
    expiresAt: '2026-11-27T00:00:00.000Z',
  };
  const base = 'https://shop.example.com';

  it('ACP: terms_of_use, privacy_policy and the refund policy as seller_shop_policies', () => {
    expect(acpView(session, undefined, base).links).toEqual([
      { type: 'terms_of_use', url: `${base}/terms/` },
      { type: 'privacy_policy', url: `${base}/privacy/` },
      { type: 'seller_shop_policies', url: `${base}/refunds/` },
    ]);
  });

  it('UCP: terms_of_service, privacy_policy, refund_policy', () => {
    expect(ucpView({ ...session, protocol: 'ucp' }, undefined, base).links).toEqual([
      { type: 'terms_of_service', url: `${base}/terms/` },
      { type: 'privacy_policy', url: `${base}/privacy/` },
      { type: 'refund_policy', url: `${base}/refunds/` },
    ]);
  });
});
