/**
 * A loopback stand-in for the few Stripe endpoints card checkout uses, for tests only (it lives
 * under test/ and nowhere else). The real `stripe` SDK talks to it through STRIPE_API_BASE, so
 * every request the service makes is the SDK's own: form-encoded, with its Idempotency-Key and
 * Authorization headers, which the stand-in records for tests to assert.
 *
 * Like Stripe it answers Checkout Session objects (create, retrieve, expire), replays the same
 * answer for a repeated Idempotency-Key, serves a hosted payment page at the session's `url`, and
 * on payment delivers `checkout.session.completed` to the webhook endpoint, signed with the
 * endpoint's secret, before redirecting the browser to `success_url`.
 *
 * Test endpoints: GET /_test/requests (what the SDK sent), POST /_test/sessions/<id>/pay (pays a
 * session and answers the event without delivering it, so a test can deliver it, or not, itself).
 * After payment, as an operator or a bank would, each answering Stripe's event undelivered too:
 * POST /_test/sessions/<id>/refund `{"amount"?: cents}` (`charge.refunded`, the charge's refunded
 * total grown by `amount`, the rest by default), POST /_test/sessions/<id>/dispute `{"status"?}`
 * (`charge.dispute.created`; `warning_needs_response` for an inquiry) and POST
 * /_test/disputes/<id>/close `{"status"}` (`charge.dispute.closed`: `won`, `lost`, `warning_closed`).
 * Charges carry the PaymentIntent's metadata, as Stripe copies it when the PaymentIntent is confirmed.
 *
 * Money reaches the balance as Stripe's balance transactions (txn_…) with a fee and a net, by the
 * stand-in's own fee rule (below): a charge's when it is paid, a dispute's withdrawal (with the
 * dispute fee) when a chargeback opens, and its reinstatement when it is won. GET
 * /v1/payment_intents/<id> answers the PaymentIntent, its `latest_charge` and that charge's
 * `balance_transaction` expanded when asked (`expand[]=latest_charge.balance_transaction`); dispute
 * objects list theirs in `balance_transactions`, as Stripe includes them. `/_test/sessions/<id>/pay`
 * with `{"balance_transaction":"later"}` completes the session before the charge's balance
 * transaction exists (Stripe's asynchronous capture); POST /_test/sessions/<id>/balance then makes
 * it and answers the `charge.updated` Stripe sends for it, undelivered. GET
 * /_test/balance_transactions/<id> shows one, as a test compares the books with it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  stripeVersion: string | undefined;
  params: Record<string, unknown>;
}

export interface StripeStandIn {
  /** `http://127.0.0.1:<port>`, for STRIPE_API_BASE. */
  base: string;
  secretKey: string;
  webhookSecret: string;
  /** Where the hosted page delivers its events (set once the service listens). */
  setWebhookUrl(url: string): void;
  close(): Promise<void>;
}

type Session = Record<string, unknown> & { id: string; status: string; payment_status: string; success_url: string };

/** Parses Stripe's form encoding (`a[b][0][c]=v`) into nested objects; arrays stay objects keyed by index. */
export function parseStripeForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

/**
 * The stand-in's fee rule, not Stripe's pricing for any account: Stripe's US list price for a
 * domestic card, 2.9% + 30¢, the percentage rounded half up to the cent as Stripe rounds fees; and
 * Stripe's US dispute fee, 15.00, which the stand-in gives back when a dispute is won (Stripe does
 * so in some countries; in others it keeps it).
 */
export const standInFeeCents = (amountCents: number): number => Math.floor((amountCents * 29 + 500) / 1000) + 30;
export const STAND_IN_DISPUTE_FEE_CENTS = 1500;

/** Stripe's ids are a prefix, an underscore and letters and digits. */
const id = (prefix: string): string => `${prefix}_${randomBytes(16).toString('hex')}`;

/** A Stripe event of `type` about `object`, in the shape Stripe delivers (the webhook signs and parses it as Stripe's own). */
export const stripeEvent = (type: string, object: Record<string, unknown>, eventId = id('evt')) => ({
  id: eventId,
  object: 'event',
  api_version: Stripe.API_VERSION,
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
  data: { object },
});

export async function startStripeStandIn(opts: { port?: number } = {}): Promise<StripeStandIn> {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
  const stripe = new Stripe(secretKey);
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, Session>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let webhookUrl: string | undefined;
  let base = '';

  /** Each paid session's charge, and the disputes opened on them. */
  const charges = new Map<string, Record<string, unknown> & { id: string; amount: number; amount_refunded: number }>();
  const disputes = new Map<
    string,
    Record<string, unknown> & { id: string; status: string; amount: number; balance_transactions: Record<string, unknown>[] }
  >();
  const balanceTransactions = new Map<string, Record<string, unknown>>();
  const now = () => Math.floor(Date.now() / 1000);

  /** Money into (positive) or out of (negative) the balance, less Stripe's fee, as Stripe's balance transaction states it. */
  const balanceTransaction = (amount: number, fee: number, source: string, type: string, category: string, description: string) => {
    const txn = {
      id: id('txn'),
      object: 'balance_transaction',
      amount,
      available_on: now() + 2 * 86400,
      created: now(),
      currency: 'usd',
      description,
      exchange_rate: null,
      fee,
      fee_details: fee === 0 ? [] : [{ amount: fee, application: null, currency: 'usd', description, type: 'stripe_fee' }],
      net: amount - fee,
      reporting_category: category,
      source,
      status: 'pending',
      type,
    };
    balanceTransactions.set(txn.id, txn);
    return txn;
  };
  /** The charge's balance transaction, made once. */
  const settle = (charge: { id: string; amount: number } & Record<string, unknown>): void => {
    if (charge['balance_transaction']) return;
    charge['balance_transaction'] = balanceTransaction(
      charge.amount,
      standInFeeCents(charge.amount),
      charge.id,
      'charge',
      'charge',
      'Stripe processing fees',
    ).id;
  };

  const chargeOf = (session: Session) => {
    let charge = charges.get(session.id);
    if (!charge) {
      const amount = Number(session['amount_total']);
      charge = {
        id: id('ch'),
        object: 'charge',
        amount,
        amount_captured: amount,
        amount_refunded: 0,
        refunded: false,
        currency: session['currency'],
        created: now(),
        livemode: false,
        paid: true,
        status: 'succeeded',
        payment_intent: session['payment_intent'],
        metadata: (session['payment_intent_data'] as { metadata?: unknown } | undefined)?.metadata ?? {},
        balance_transaction: null,
      };
      charges.set(session.id, charge);
    }
    return charge;
  };

  const event = stripeEvent;

  /** Pays the session; its charge's balance transaction exists at once, or (`later`) only once /balance is asked. */
  const pay = (session: Session, balance: 'now' | 'later' = 'now'): Session => {
    if (session.status === 'open') {
      // Stripe's page collects the card's billing country; the stand-in's buyer pays from the US.
      Object.assign(session, {
        status: 'complete',
        payment_status: 'paid',
        payment_intent: id('pi'),
        customer_details: { email: session['customer_email'] ?? null, address: { country: 'US' } },
      });
      const charge = chargeOf(session);
      if (balance === 'now') settle(charge);
    }
    return session;
  };

  /** The PaymentIntent of a paid session, with `latest_charge` and its balance transaction expanded as asked. */
  const paymentIntent = (piId: string, expand: string[]): Record<string, unknown> | undefined => {
    const session = [...sessions.values()].find((s) => s['payment_intent'] === piId);
    if (!session) return undefined;
    const charge = chargeOf(session);
    const txn = charge['balance_transaction'] as string | null;
    const expandedCharge = {
      ...charge,
      ...(expand.includes('latest_charge.balance_transaction') && txn ? { balance_transaction: balanceTransactions.get(txn) } : {}),
    };
    return {
      id: piId,
      object: 'payment_intent',
      amount: charge.amount,
      amount_received: charge.amount,
      currency: charge['currency'],
      capture_method: 'automatic_async',
      created: charge['created'],
      livemode: false,
      metadata: charge['metadata'],
      status: 'succeeded',
      latest_charge: expand.includes('latest_charge') || expand.includes('latest_charge.balance_transaction') ? expandedCharge : charge.id,
    };
  };

  /** Delivers an event as Stripe does: the exact body, signed with the endpoint's secret. */
  const deliver = async (evt: unknown): Promise<number> => {
    if (!webhookUrl) return 0;
    const payload = JSON.stringify(evt, null, 2);
    const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const res = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
    await res.arrayBuffer();
    return res.status;
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
    res.end(JSON.stringify(body));
  };
  const stripeError = (res: ServerResponse, status: number, message: string, param?: string): void =>
    send(res, status, { error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } });

  const createSession = (p: Record<string, unknown>): Session => {
    const items = (p['line_items'] ?? {}) as Record<string, { price_data?: Record<string, unknown>; quantity?: string }>;
    const total = Object.values(items).reduce(
      (sum, li) => sum + Number((li.price_data?.['unit_amount'] as string | undefined) ?? 0) * Number(li.quantity ?? 1),
      0,
    );
    const first = Object.values(items)[0]?.price_data ?? {};
    const sessionId = id('cs_test');
    const created = Math.floor(Date.now() / 1000);
    return {
      id: sessionId,
      object: 'checkout.session',
      amount_subtotal: total,
      amount_total: total,
      cancel_url: p['cancel_url'] ?? null,
      client_reference_id: p['client_reference_id'] ?? null,
      created,
      currency: first['currency'] ?? null,
      customer_email: p['customer_email'] ?? null,
      expires_at: p['expires_at'] ? Number(p['expires_at']) : created + 86400,
      livemode: false,
      metadata: p['metadata'] ?? {},
      mode: p['mode'] ?? 'payment',
      payment_intent: null,
      // Not a field of Stripe's Checkout Session: kept so the charge can carry it, as Stripe does.
      payment_intent_data: p['payment_intent_data'] ?? {},
      allowed_payment_method_types: Object.values((p['allowed_payment_method_types'] ?? {}) as Record<string, string>),
      payment_status: 'unpaid',
      status: 'open',
      success_url: String(p['success_url'] ?? ''),
      url: `${base}/c/pay/${sessionId}`,
    };
  };

  const api = (req: IncomingMessage, res: ServerResponse, path: string, params: Record<string, unknown>): void => {
    if (!/^Bearer sk_test_/.test(req.headers.authorization ?? '')) return stripeError(res, 401, 'Invalid API Key provided');
    if (req.headers.authorization !== `Bearer ${secretKey}`) return stripeError(res, 401, 'Invalid API Key provided');
    const key = req.headers['idempotency-key'] as string | undefined;
    if (req.method === 'POST' && key && idempotent.has(`${path} ${key}`)) {
      const saved = idempotent.get(`${path} ${key}`)!;
      return send(res, saved.status, saved.body, { 'idempotent-replayed': 'true' });
    }
    const answer = (status: number, body: unknown): void => {
      if (req.method === 'POST' && key) idempotent.set(`${path} ${key}`, { status, body });
      send(res, status, body);
    };
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      if (params['mode'] !== 'payment') return stripeError(res, 400, 'mode is required', 'mode');
      if (!params['success_url']) return stripeError(res, 400, 'success_url is required', 'success_url');
      const session = createSession(params);
      sessions.set(session.id, session);
      return answer(200, session);
    }
    const one = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(path);
    const session = one ? sessions.get(one[1]!) : undefined;
    if (one && !session) return stripeError(res, 404, `No such checkout.session: '${one[1]}'`, 'session');
    if (session && req.method === 'GET' && !one![2]) return send(res, 200, session);
    const pi = /^\/v1\/payment_intents\/([^/]+)$/.exec(path);
    if (pi && req.method === 'GET') {
      // The SDK sends `expand` as `expand[0]=…` in the query.
      const expand = Object.entries(params)
        .filter(([k]) => k === 'expand' || k.startsWith('expand['))
        .map(([, v]) => String(v));
      const found = paymentIntent(pi[1]!, expand);
      return found ? send(res, 200, found) : stripeError(res, 404, `No such payment_intent: '${pi[1]}'`, 'intent');
    }
    if (session && req.method === 'POST' && one![2]) {
      if (session.status !== 'open') return stripeError(res, 400, `Only Checkout Sessions with a status of \`open\` can be expired.`);
      session.status = 'expired';
      void deliver(event('checkout.session.expired', session));
      return answer(200, session);
    }
    return stripeError(res, 404, `Unrecognized request URL (${req.method}: ${path})`);
  };

  const hostedPage = (session: Session): string =>
    `<!doctype html><html><head><meta charset="utf-8"><title>Stand-in checkout</title></head><body>` +
    `<h1>Pay ${(Number(session['amount_total']) / 100).toFixed(2)} ${String(session['currency']).toUpperCase()}</h1>` +
    `<p id="state">${session.status}</p>` +
    (session.status === 'open' ? `<form method="post"><button id="pay" type="submit">Pay</button></form>` : '') +
    `</body></html>`;

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', base);
        const path = url.pathname;
        try {
          if (path === '/_test/requests') return send(res, 200, requests);
          const txn = /^\/_test\/balance_transactions\/([^/]+)$/.exec(path);
          if (txn)
            return balanceTransactions.has(txn[1]!)
              ? send(res, 200, balanceTransactions.get(txn[1]!))
              : stripeError(res, 404, 'no such txn');
          const testPay = /^\/_test\/sessions\/([^/]+)\/pay$/.exec(path);
          if (testPay && req.method === 'POST') {
            const session = sessions.get(testPay[1]!);
            if (!session) return stripeError(res, 404, 'no such session');
            const asked = (body ? JSON.parse(body) : {}) as { balance_transaction?: 'now' | 'later' };
            return send(res, 200, event('checkout.session.completed', pay(session, asked.balance_transaction ?? 'now')));
          }
          const afterPay = /^\/_test\/sessions\/([^/]+)\/(refund|dispute|balance)$/.exec(path);
          if (afterPay && req.method === 'POST') {
            const session = sessions.get(afterPay[1]!);
            if (!session || session.payment_status !== 'paid') return stripeError(res, 400, 'the session is not paid');
            const charge = chargeOf(session);
            const asked = (body ? JSON.parse(body) : {}) as { amount?: number; status?: string };
            if (afterPay[2] === 'balance') {
              // Stripe sends charge.updated when the charge's balance_transaction is set (asynchronous capture).
              const before = charge['balance_transaction'];
              settle(charge);
              return send(res, 200, {
                ...event('charge.updated', { ...charge }),
                data: { object: { ...charge }, previous_attributes: { balance_transaction: before ?? null } },
              });
            }
            if (afterPay[2] === 'refund') {
              charge.amount_refunded = Math.min(
                charge.amount,
                charge.amount_refunded + (asked.amount ?? charge.amount - charge.amount_refunded),
              );
              charge.refunded = charge.amount_refunded === charge.amount;
              return send(res, 200, event('charge.refunded', { ...charge }));
            }
            const status = asked.status ?? 'needs_response';
            const disputeId = id('dp');
            const dispute = {
              id: disputeId,
              object: 'dispute',
              amount: charge.amount,
              // A chargeback withdraws the amount and Stripe's dispute fee at once; an inquiry (`warning_*`) moves nothing.
              balance_transactions: status.startsWith('warning_')
                ? []
                : [
                    balanceTransaction(
                      -charge.amount,
                      STAND_IN_DISPUTE_FEE_CENTS,
                      disputeId,
                      'adjustment',
                      'dispute',
                      `Chargeback withdrawal for ${charge.id}`,
                    ),
                  ],
              charge: charge.id,
              currency: charge['currency'],
              created: now(),
              livemode: false,
              payment_intent: charge['payment_intent'],
              reason: 'fraudulent',
              status,
              metadata: {},
            };
            disputes.set(dispute.id, dispute);
            return send(res, 200, event('charge.dispute.created', { ...dispute }));
          }
          const close = /^\/_test\/disputes\/([^/]+)\/close$/.exec(path);
          if (close && req.method === 'POST') {
            const dispute = disputes.get(close[1]!);
            if (!dispute) return stripeError(res, 404, 'no such dispute');
            const wasOpen = !['won', 'lost', 'warning_closed'].includes(dispute.status);
            dispute.status = ((body ? JSON.parse(body) : {}) as { status?: string }).status ?? 'won';
            // Won: the amount comes back, and the stand-in gives its dispute fee back with it (a negative fee).
            if (wasOpen && dispute.status === 'won' && dispute.balance_transactions.length > 0)
              dispute.balance_transactions.push(
                balanceTransaction(
                  dispute.amount,
                  -STAND_IN_DISPUTE_FEE_CENTS,
                  dispute.id,
                  'adjustment',
                  'dispute_reversal',
                  `Chargeback reversal for ${String(dispute['charge'])}`,
                ),
              );
            return send(res, 200, event('charge.dispute.closed', { ...dispute }));
          }
          const page = /^\/c\/pay\/([^/]+)$/.exec(path);
          if (page) {
            const session = sessions.get(page[1]!);
            if (!session) return stripeError(res, 404, 'no such session');
            if (req.method === 'POST' && session.status === 'open') {
              const status = await deliver(event('checkout.session.completed', pay(session)));
              if (status !== 200) return send(res, 502, { error: `webhook answered ${status}` });
              res.writeHead(303, { location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) });
              return res.end();
            }
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
            return res.end(hostedPage(session));
          }
          if (path.startsWith('/v1/')) {
            const params = req.method === 'GET' ? Object.fromEntries(url.searchParams) : parseStripeForm(body);
            requests.push({
              method: req.method ?? 'GET',
              path,
              idempotencyKey: req.headers['idempotency-key'] as string | undefined,
              authorization: req.headers.authorization,
              stripeVersion: req.headers['stripe-version'] as string | undefined,
              params,
            });
            return api(req, res, path, params);
          }
          return stripeError(res, 404, 'not found');
        } catch (err) {
          send(res, 500, { error: { type: 'api_error', message: String(err) } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    secretKey,
    webhookSecret,
    setWebhookUrl: (url) => (webhookUrl = url),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
