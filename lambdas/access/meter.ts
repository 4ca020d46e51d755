/**
 * GET/POST /api/meter: a prepaid balance per wallet, for agents that buy many small things
 * without a transfer each. A top-up is a transfer verified and claimed like POST /api/pay and
 * credited to the wallet that paid; a cap and each draw are signed by the wallet; a draw is
 * decided by `decideAccess` and charged with one conditional update that can never take the
 * balance below zero or the month's spend past the cap.
 */
import * as z from 'zod/mini';
import { formatAtomic, TX_HASH } from '../contract/chain';
import { links } from '../contract/links';
import { invalidRequest, notFound, type AppError } from '../platform/errors';
import { ACCESS_ERRORS } from './errors';
import { json, readJsonObject, type ApiRequest, type ApiResponse } from '../platform/http';
import { signReceipt } from '../ledger';
import {
  claimPayment,
  deliverPack,
  METER_PRODUCT,
  productChallenge,
  productFor,
  readVersionParam,
  signInWithXOf,
  takesPayments,
} from '../payments';
import { accessCoverage } from './versions';
import { decisionView } from './access-route';
import { decide, decideAccess, meterHeadroom, meterPeriod, type AccessDecision } from './core/decide-access';
import { skillById, walletParam } from './params';
import type { AccessPorts, MeterRecord } from './ports';
import { parseBody, requireWalletAction, SIGNED_FIELDS } from './wallet-action';

const EXAMPLE =
  'POST {"action":"top_up","txHash":"0x…"}, {"action":"set_cap","cap":"5000000"|null,…signed}, or {"action":"draw","skill","max_price",…signed} (docs/ACCESS.md).';

const atomic = z.pipe(
  z.union([z.int().check(z.nonnegative(), z.maximum(Number.MAX_SAFE_INTEGER)), z.string().check(z.regex(/^(0|[1-9][0-9]{0,17})$/))]),
  z.transform((v) => BigInt(v)),
);
/** The body of POST /api/meter. */
export const PostSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('top_up'), txHash: z.string().check(z.regex(TX_HASH, 'must be 0x followed by 64 hex digits')) }),
  z.strictObject({ ...SIGNED_FIELDS, action: z.literal('set_cap'), cap: z.nullable(atomic) }),
  z.strictObject({
    ...SIGNED_FIELDS,
    action: z.literal('draw'),
    skill: z.string().check(z.minLength(1), z.maxLength(100)),
    max_price: atomic,
  }),
]);

/** How to fund a meter: the x402 options for the minimum top-up (any larger amount is credited whole). */
function topUpChallenge(ports: AccessPorts, baseUrl: string) {
  const config = ports.payments.config;
  const minimum = ports.catalog.pricing.meterMinTopUp;
  return {
    minimum_atomic: minimum,
    minimum_usdc: formatAtomic(BigInt(minimum)),
    challenge: takesPayments(ports.payments)
      ? productChallenge(
          {
            amount: minimum,
            resource: links(baseUrl).meter,
            description: 'Prepaid meter top-up: the whole transfer is credited',
            extra: { product: METER_PRODUCT },
          },
          config,
        )
      : null,
    then: `POST ${links(baseUrl).meter} {"action":"top_up","txHash":"0x…"}: the balance belongs to the wallet that paid.`,
  };
}

/** A meter as the API shows it, from its stored row. */
export function meterView(m: MeterRecord, now: Date) {
  const current = m.period === meterPeriod(now);
  const headroom = meterHeadroom(m, now);
  return {
    wallet: m.wallet,
    balance_atomic: m.balance.toString(),
    balance_usdc: formatAtomic(m.balance),
    cap_atomic: m.cap?.toString() ?? null,
    period: meterPeriod(now),
    spent_in_period_atomic: (current ? m.spentInPeriod : 0n).toString(),
    cap_left_atomic: headroom?.toString() ?? null,
    topped_up_atomic: m.toppedUp.toString(),
    skills_drawn: m.drawn,
  };
}

/** GET /api/meter: with `wallet=`, its meter; without a meter (or a wallet), the per-call challenge to top one up. */
export async function getMeter(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const wallet = req.query['wallet'] !== undefined || req.query['address'] !== undefined ? walletParam(req) : undefined;
  const meter = wallet ? await ports.meters.get(wallet) : undefined;
  return json(200, {
    ok: true,
    meter: meter ? meterView(meter, ports.now()) : null,
    top_up: topUpChallenge(ports, req.baseUrl),
    draw: 'POST /api/meter {"action":"draw","skill","max_price",wallet,nonce,deadline,signature}: EIP-712 DrawMeter signed by the wallet.',
    ...(wallet && !meter ? { message: `${wallet} has no meter yet: top one up.` } : {}),
  });
}

const refusal = (
  reason: 'no_meter' | 'balance' | 'cap' | 'no_access' | 'meter_balance' | 'meter_cap',
  wallet: string,
  price: bigint,
): AppError =>
  reason === 'cap' || reason === 'meter_cap'
    ? ACCESS_ERRORS.METER_CAP_REACHED({
        message: `This draw of ${formatAtomic(price)} USDC would pass the monthly cap ${wallet} set; nothing was charged.`,
      })
    : ACCESS_ERRORS.METER_BALANCE_LOW({ message: `The meter of ${wallet} cannot pay ${formatAtomic(price)} USDC; nothing was charged.` });

/** POST /api/meter: `top_up`, `set_cap` or `draw`. */
export async function postMeter(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const body = parseBody(PostSchema, readJsonObject(req) ?? {}, EXAMPLE);
  const now = ports.now();
  const version = readVersionParam(req.query['version']);

  if (body.action === 'top_up') {
    const { row, replayed } = await claimPayment(
      {
        txHash: body.txHash.toLowerCase() as `0x${string}`,
        product: productFor(ports.catalog, 'meter_top_up', METER_PRODUCT)!,
        resource: links(req.baseUrl).meter,
      },
      ports.payments,
      req.baseUrl,
      { sourceIp: req.sourceIp, signInWithX: signInWithXOf(req) },
    );
    // Credited to the payer, whoever presents the transfer; once per transfer, whatever is retried.
    const credit = await ports.meters.credit(row.payer, row.txHash, BigInt(row.amount), now);
    return json(200, {
      ok: true,
      credited: credit.kind === 'credited',
      meter: meterView(credit.record, now),
      payment: { txHash: row.txHash, payer: row.payer, amount: row.amount, kind: 'meter_top_up', replayed },
      receipt: await signReceipt(row, req.baseUrl, ports.payments.serviceSigner, ports.catalog.versions),
    });
  }

  if (body.action === 'set_cap') {
    await requireWalletAction('SetMeterCap', body, { cap: body.cap ?? 0n, capped: body.cap !== null }, ports, req.baseUrl);
    const meter = await ports.meters.setCap(body.wallet, body.cap ?? undefined, now);
    if (!meter) throw notFound(`${body.wallet} has no meter: top one up first.`, 'GET /api/meter for the top-up challenge.');
    return json(200, { ok: true, meter: meterView(meter, now) });
  }

  const entry = skillById(body.skill, ports);
  await requireWalletAction('DrawMeter', body, { skill: entry.id, maxPrice: body.max_price }, ports, req.baseUrl);
  const price = BigInt(entry.x402.amount);
  if (price > body.max_price) {
    throw invalidRequest(
      'max_price',
      `${entry.id} costs ${price} atomic USDC, more than max_price ${body.max_price}; nothing was charged.`,
      'Sign again with a max_price of at least the price.',
    );
  }
  const decision = await decideAccess(body.wallet, entry, now, ports);
  if (!decision.granted) throw refusal(decision.reason, body.wallet, price);
  let charged = 0n;
  let after: AccessDecision = decision;
  if (decision.via === 'meter') {
    const draw = await ports.meters.draw(body.wallet, entry.id, price, now);
    if (draw.kind === 'refused') throw refusal(draw.reason, body.wallet, price);
    if (draw.kind === 'drawn') charged = price;
    // The same rule on the meter row the draw just wrote; no purchase or plan covered the skill, or
    // the decision would not have been the meter's, so those facts are empty without a re-read.
    after = decide({ purchase: undefined, subscriptions: [], meter: draw.record }, entry, ports.catalog.pricing.plans, now);
  }
  // Otherwise already the wallet's (a purchase, a subscription, an earlier draw): delivered without a charge.
  const { ok: _ok, ...access } = decisionView(after, entry, body.wallet, ports, req.baseUrl);
  // A draw just charged is a purchase: the current version. Otherwise a re-download, of the version asked for if the access covers it.
  const { coveredFrom } = charged > 0n ? { coveredFrom: 1 } : await accessCoverage(after, entry.id, ports, req.baseUrl);
  const pack = await deliverPack(
    ports.payments,
    entry.id,
    { ...access, charged_atomic: charged.toString() },
    { asked: charged > 0n ? undefined : version, coveredFrom },
  );
  return json(200, pack);
}
