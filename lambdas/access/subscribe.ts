/**
 * GET/POST /api/subscribe: recurring plans. A period is bought with a transfer verified and
 * claimed exactly like POST /api/pay (one transfer pays one period, once) and belongs to the
 * wallet that paid; `cancel` is signed by that wallet, refunds nothing and leaves access
 * running to the period's end.
 */
import * as z from 'zod/mini';
import { formatAtomic, TX_HASH } from '../contract/chain';
import type { SubscriptionPlan } from '../contract/catalog-data';
import { links } from '../contract/links';
import { invalidRequest, notFound } from '../platform/errors';
import { ACCESS_ERRORS } from './errors';
import { json, readJsonObject, type ApiRequest, type ApiResponse } from '../platform/http';
import { signReceipt } from '../ledger';
import { claimPayment, productChallenge, productFor, signInWithXOf, takesPayments } from '../payments';
import { walletParam } from './params';
import type { AccessPorts, SubscriptionRecord } from './ports';
import { parseBody, requireWalletAction, SIGNED_FIELDS } from './wallet-action';

const EXAMPLE =
  'POST {"action":"start","plan":"all-access-30d","txHash":"0x…"}, or {"action":"cancel","plan",…signed fields} (docs/ACCESS.md).';

const plan = z.string().check(z.minLength(1), z.maxLength(100));
const txHash = z.string().check(z.regex(TX_HASH, 'must be 0x followed by 64 hex digits'));
/** The body of POST /api/subscribe. */
export const PostSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('start'), plan, txHash }),
  z.strictObject({ action: z.literal('renew'), plan, txHash }),
  z.strictObject({ ...SIGNED_FIELDS, action: z.literal('cancel'), plan }),
]);

/** A plan with the x402 payment options that start it; none while payments are off or unsafe. */
function planView(p: SubscriptionPlan, ports: AccessPorts, baseUrl: string) {
  const config = ports.payments.config;
  return {
    id: p.id,
    name: p.name,
    scope: p.scope,
    amount_atomic: p.amount,
    amount_usdc: formatAtomic(BigInt(p.amount)),
    period_days: p.period_seconds / 86_400,
    challenge: takesPayments(ports.payments)
      ? productChallenge(
          { amount: p.amount, resource: links(baseUrl).subscribe, description: `${p.name}: one period`, extra: { plan: p.id } },
          config,
        )
      : null,
  };
}

/** A subscription as the API shows it, from its stored row. */
export function subscriptionView(s: SubscriptionRecord, now: Date) {
  return {
    plan: s.plan,
    status: s.status,
    active: Date.parse(s.periodEnd) > now.getTime(),
    started_at: s.startedAt,
    period_end: s.periodEnd,
    ...(s.cancelledAt ? { cancelled_at: s.cancelledAt } : {}),
    periods_paid: s.transfers.length,
  };
}

/** GET /api/subscribe: the plans and how to start one; with `wallet=`, that wallet's subscriptions too. */
export async function getSubscribe(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const wallet = req.query['wallet'] !== undefined ? walletParam(req, ['wallet']) : undefined;
  const subscriptions = wallet ? await ports.subscriptions.list(wallet) : undefined;
  const l = links(req.baseUrl);
  return json(200, {
    ok: true,
    plans: ports.catalog.pricing.plans.map((p) => planView(p, ports, req.baseUrl)),
    how_to_start: [
      'Pick a plan; transfer its amount_atomic of USDC (or USDbC) to challenge.accepts[].payTo on chain 8453.',
      `POST ${l.subscribe} {"action":"start","plan":"<id>","txHash":"0x…"}: the period belongs to the wallet that paid.`,
      `Then POST ${l.pay} with SIGN-IN-WITH-X signed by that wallet (no X-PAYMENT) gets any covered pack.`,
    ],
    renewal: 'Renew with another transfer ({"action":"renew"}): the period is extended from the later of now and its current end.',
    cancellation:
      'Cancel ({"action":"cancel"}, signed by the wallet): no refund; access runs to the end of the paid period, and renewals are refused until a new start.',
    ...(wallet ? { wallet, subscriptions: subscriptions!.map((s) => subscriptionView(s, ports.now())) } : {}),
  });
}

/** POST /api/subscribe: start or renew with a verified transfer; cancel signed by the wallet. */
export async function postSubscribe(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const body = parseBody(PostSchema, readJsonObject(req) ?? {}, EXAMPLE);
  const planDef = ports.catalog.pricing.plans.find((p) => p.id === body.plan);
  if (!planDef) throw invalidRequest('plan', `Unknown plan "${body.plan.slice(0, 100)}".`, 'GET /api/subscribe lists the plans.');

  if (body.action === 'cancel') {
    await requireWalletAction('CancelSubscription', body, { plan: body.plan }, ports, req.baseUrl);
    const outcome = await ports.subscriptions.cancel(body.wallet, body.plan, ports.now());
    if (outcome.kind === 'not_found') {
      throw notFound(`${body.wallet} has no ${body.plan} subscription.`, 'GET /api/subscribe?wallet= lists yours.');
    }
    return json(200, {
      ok: true,
      cancelled: outcome.kind === 'cancelled',
      already_cancelled: outcome.kind === 'already_cancelled',
      subscription: subscriptionView(outcome.record, ports.now()),
      refund: 'none: access runs to period_end',
    });
  }

  const product = productFor(ports.catalog, 'subscription', planDef.id)!;
  const { row, replayed } = await claimPayment(
    { txHash: body.txHash.toLowerCase() as `0x${string}`, product, resource: links(req.baseUrl).subscribe },
    ports.payments,
    req.baseUrl,
    { sourceIp: req.sourceIp, signInWithX: signInWithXOf(req) },
  );
  // The period is the payer's, whoever presents the transfer: claiming someone else's payment gains nothing.
  const outcome = await ports.subscriptions.extend(row.payer, planDef.id, row.txHash, planDef.period_seconds, ports.now(), {
    reactivate: body.action === 'start',
  });
  if (outcome.kind === 'cancelled') {
    throw ACCESS_ERRORS.SUBSCRIPTION_CANCELLED({
      message: `The ${planDef.id} subscription of ${row.payer} was cancelled, so it cannot be renewed; the transfer is recorded and will start it again.`,
    });
  }
  return json(200, {
    ok: true,
    applied: outcome.kind === 'extended',
    subscription: subscriptionView(outcome.record, ports.now()),
    payment: { txHash: row.txHash, payer: row.payer, amount: row.amount, kind: 'subscription', replayed },
    receipt: await signReceipt(row, req.baseUrl, ports.payments.serviceSigner, ports.catalog.versions),
  });
}
