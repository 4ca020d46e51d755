/**
 * The checkout domain's rules on fakes of its own ports: what a creation may ask for, and how
 * Stripe's events change a session whatever order they arrive in (at least once, any order).
 */
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
import { cancelSession } from '../../lambdas/checkout/sessions';
import { postStripeWebhook } from '../../lambdas/checkout/webhook';
import type { CardSale, PaymentsPorts } from '../../lambdas/payments';
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
  };
}

function world(state: SessionState = 'open') {
  const sessions = fakeSessions();
  const sales = new Map<string, CardSale>();
  const handled = new Set<string>();
  const stripeCalls: string[] = [];
  let stripeStatus: 'open' | 'complete' | 'expired' = 'open';
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
    // The signature is the adapter's job (tested through the server); here the body is the event.
    verifyEvent: async (raw) => JSON.parse(raw) as StripeEventView,
  };
  const payments = {
    catalog,
    cardSales: {
      record: async (sale: CardSale) => {
        if (sales.has(sale.id)) return { recorded: false, sale: sales.get(sale.id)! };
        sales.set(sale.id, sale);
        return { recorded: true, sale };
      },
      get: async (id: string) => sales.get(id),
    },
  } as unknown as PaymentsPorts;
  const ports: CheckoutPorts = {
    payments,
    sessions,
    idempotency: undefined as never,
    events: { seen: async (id) => handled.has(id), remember: async (id) => void handled.add(id) },
    card: async () => card,
    now: () => new Date('2026-11-23T12:00:00Z'),
    newId: () => 'chk_1',
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
  });
  const event = (id: string, type: string, over: Partial<StripeCheckoutView> = {}): Promise<Record<string, unknown>> => {
    const req = {
      headers: { 'stripe-signature': 't=1,v1=x' },
      body: JSON.stringify({ id, type, session: stripeView(over) }),
    } as unknown as ApiRequest;
    return postStripeWebhook(req, ports).then((r) => JSON.parse(String(r.body)) as Record<string, unknown>);
  };
  return { ports, sessions, sales, event, stripeCalls, pay: () => (stripeStatus = 'complete') };
}

const PAID = { status: 'complete', paymentStatus: 'paid' } as const;

describe('Stripe events, in any order and more than once', () => {
  it('completed twice (and under two event ids) records one sale', async () => {
    const w = world();
    expect((await w.event('evt_1', 'checkout.session.completed', PAID))['outcome']).toBe('recorded');
    expect(await w.event('evt_1', 'checkout.session.completed', PAID)).toMatchObject({ duplicate: true });
    expect((await w.event('evt_2', 'checkout.session.completed', PAID))['outcome']).toBe('already_recorded');
    expect(w.sales.size).toBe(1);
    expect(w.sessions.all.get('chk_1')!.state).toBe('completed');
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
