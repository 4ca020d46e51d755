/**
 * GET /api/purchases: what a wallet bought, shown only to the wallet. The proof ledger is public,
 * so a list of a wallet's payments is nothing secret; what this route adds is each purchase's
 * license (the buyer's key to download the pack again), and that goes only to whoever proves the
 * wallet: a SIGN-IN-WITH-X signature made for this URL (x402's sign-in-with-x, EIP-4361), after
 * which a short session token saves the person signing again for each page and download. A card
 * buyer has no wallet: their license opens their purchase (X-LICENSE). docs/ACCESS.md.
 */
import { explorerTx, formatAtomic } from '../contract/chain';
import { caip2Of } from '../contract/networks';
import { links } from '../contract/links';
import { invalidRequest } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { noReceipt, refundedInFull, signReceipt, type CardSale, type LedgerRow } from '../ledger';
import { boughtVersion, CARD_NETWORK, checkedSignIn, PAYMENT_ERRORS, signInWithXOf, versionView } from '../payments';
import { coveredVersions } from '../contract/pack-versions';
import { ACCESS_ERRORS } from './errors';
import type { AccessPorts } from './ports';

/** How long a sign-in lasts: long enough to look through and download, short enough that a token left in a tab soon stops working. */
export const PURCHASES_SESSION_SECONDS = 15 * 60;
/** A page of purchases; `limit` may ask for fewer or more, up to the ledger's batch read. */
const PAGE = 25;
const MAX_PAGE = 100;
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

/** How a purchase was paid, in the words the page shows. */
const HOW = { unlock: 'one_time', subscription: 'subscription', meter_top_up: 'meter_top_up' } as const;

/** The proven wallet; a fresh signature also has `signIn`, which spends its nonce and opens a session. */
type Who = { wallet: string; signIn?: () => Promise<{ token: string; expiresAt: Date }> };

/** The wallet the request proves: a session token, or a SIGN-IN-WITH-X signature for this URL; 401 otherwise. */
async function signedInWallet(req: ApiRequest, ports: AccessPorts): Promise<Who> {
  const authorization = req.headers['authorization'];
  if (authorization !== undefined) {
    const token = BEARER.exec(authorization.trim())?.[1];
    const session = token ? await ports.payments.licenses.verifySession(token) : undefined;
    if (!session) throw ACCESS_ERRORS.SESSION_EXPIRED();
    return { wallet: session.address };
  }
  const signature = signInWithXOf(req);
  if (!signature) throw ACCESS_ERRORS.SIGN_IN_REQUIRED();
  const signedIn = await checkedSignIn(signature, ports.payments, req.baseUrl, undefined, links(req.baseUrl).purchases);
  return {
    wallet: signedIn.address,
    // Called only when the answer gives something (a license): a sign-in that finds nothing leaves no row (issue 31).
    signIn: async () => {
      await signedIn.spendNonce();
      const expiresAt = new Date(ports.now().getTime() + PURCHASES_SESSION_SECONDS * 1000);
      return { token: await ports.payments.licenses.issueSession(signedIn.address, expiresAt), expiresAt };
    },
  };
}

function limitOf(req: ApiRequest): number {
  const raw = req.query['limit'];
  if (raw === undefined) return PAGE;
  const n = Number(raw);
  if (!/^\d{1,3}$/.test(raw) || n < 1 || n > MAX_PAGE)
    throw invalidRequest('limit', `\`limit\` must be a whole number from 1 to ${MAX_PAGE}.`, `Leave it out for ${PAGE} a page.`);
  return n;
}

/** The sale's receipt (docs/PAYMENTS.md, "Receipts"), signed again from the stored row: the same claims the unlock answered. */
const receiptOf = async (source: LedgerRow | CardSale, ports: AccessPorts, baseUrl: string): Promise<string | null> =>
  noReceipt(source) === undefined ? signReceipt(source, baseUrl, ports.payments.serviceSigner, ports.catalog.versions, ports.now()) : null;

/**
 * Every version of a pack the purchase covers (the version its sale bought and every later one,
 * docs/ACCESS.md, "Versions"), newest first, each downloadable by its number with the purchase's
 * license: POST /api/pay?version=<n> with X-LICENSE. `bought` marks the version the sale recorded.
 */
function coveredVersionsOf(skill: string, seal: string | undefined, ports: AccessPorts, baseUrl: string) {
  const versions = ports.catalog.versions(skill) ?? [];
  const from = boughtVersion(versions, seal);
  const current = versions.at(-1)?.version;
  return coveredVersions(versions, from)
    .map((v) => ({
      ...versionView(v),
      ...(v.version === current ? { current: true } : {}),
      ...(v.digest === seal ? { bought: true } : {}),
      download: { method: 'POST', url: `${links(baseUrl).pay}?version=${v.version}`, header: 'X-LICENSE' },
    }))
    .reverse();
}

/** One ledger row as its buyer sees it: what, how, how much, where to check it, its receipt, and (for a pack) its license. */
async function rowPurchase(row: LedgerRow, ports: AccessPorts, baseUrl: string, withLicense: boolean) {
  const kind = row.kind ?? 'unlock';
  const entry = kind === 'unlock' ? ports.catalog.get(row.skill) : undefined;
  const meta = entry ? ports.catalog.packMeta(entry.id) : undefined;
  const explorer = ports.payments.config.explorerUrl;
  // A sale an operator refunded in full (npm run refund) says so, as a refunded card sale does, and gives no license.
  const refunded = refundedInFull(row);
  const [license, receipt] = await Promise.all([
    withLicense && entry && meta && !refunded
      ? ports.payments.licenses.issue({ network: row.network, txHash: row.txHash, skill: entry.id, payer: row.payer, seal: meta.seal })
      : undefined,
    receiptOf(row, ports, baseUrl),
  ]);
  return {
    how: HOW[kind],
    status: refunded ? ('refunded' as const) : ('paid' as const),
    refunded_atomic: row.refundedAmount ?? '0',
    ...(kind === 'unlock' ? { skill: row.skill, name: entry?.name ?? null } : kind === 'subscription' ? { plan: row.skill } : {}),
    amount: formatAtomic(BigInt(row.amount)),
    amount_atomic: row.amount,
    asset: row.asset,
    asset_contract: row.assetContract,
    network: caip2Of(row.network),
    payer: row.payer,
    tx_hash: row.txHash,
    recorded_at: row.recordedAt,
    explorer_tx: explorerTx(explorer, row.txHash),
    receipt,
    ...(license ? { license: { token: license, header: 'X-LICENSE' }, download: { method: 'POST', url: links(baseUrl).pay } } : {}),
    ...(entry && !refunded ? { versions: coveredVersionsOf(entry.id, row.packSeal, ports, baseUrl) } : {}),
  };
}

/**
 * A card sale as its buyer sees it, with the license they presented and the sale's receipt; a sale
 * refunded in full or disputed says so (`status`, `refunded_cents`) and offers no download.
 */
async function cardPurchase(sale: CardSale, license: string, ports: AccessPorts, baseUrl: string) {
  const standing = sale.status === 'paid';
  return {
    how: 'card' as const,
    status: sale.status,
    refunded_cents: sale.refundedCents ?? 0,
    skill: sale.skill,
    name: ports.catalog.get(sale.skill)?.name ?? null,
    amount: (sale.amountCents / 100).toFixed(2),
    amount_cents: sale.amountCents,
    currency: sale.currency,
    checkout_session: sale.id,
    recorded_at: sale.recordedAt,
    receipt: await receiptOf(sale, ports, baseUrl),
    license: { token: license, header: 'X-LICENSE' },
    download: standing ? { method: 'POST', url: links(baseUrl).pay } : null,
    ...(standing ? { versions: coveredVersionsOf(sale.skill, sale.packSeal, ports, baseUrl) } : {}),
  };
}

/** X-LICENSE: the one purchase a license belongs to (a card buyer's way back, or a wallet's without signing). */
async function byLicense(license: string, ports: AccessPorts, baseUrl: string): Promise<ApiResponse> {
  const claims = await ports.payments.licenses.verify(license.trim());
  if (!claims) throw PAYMENT_ERRORS.INVALID_LICENSE();
  if (claims.network === CARD_NETWORK) {
    const sale = await ports.payments.cardSales.get(claims.txHash);
    if (!sale || sale.skill !== claims.skill) throw PAYMENT_ERRORS.INVALID_LICENSE();
    return json(200, {
      ok: true,
      wallet: null,
      purchases: [await cardPurchase(sale, license.trim(), ports, baseUrl)],
      subscriptions: [],
      next: null,
    });
  }
  const row = await ports.ledger.get(claims.network, claims.txHash);
  if (!row || row.status !== 'confirmed' || row.skill !== claims.skill) throw PAYMENT_ERRORS.INVALID_LICENSE();
  // A refunded sale is shown as refunded, with the license presented but no download (as a card sale's).
  const item = {
    ...(await rowPurchase(row, ports, baseUrl, false)),
    license: { token: license.trim(), header: 'X-LICENSE' },
    ...(refundedInFull(row) ? { download: null } : {}),
    ...(refundedInFull(row) || !ports.catalog.get(row.skill)
      ? {}
      : { versions: coveredVersionsOf(row.skill, row.packSeal, ports, baseUrl) }),
  };
  return json(200, { ok: true, wallet: row.payer, purchases: [item], subscriptions: [], next: null });
}

export async function getPurchases(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const license = req.headers['x-license'];
  if (license !== undefined && req.headers['authorization'] === undefined && req.headers['sign-in-with-x'] === undefined)
    return byLicense(license, ports, req.baseUrl);
  const limit = limitOf(req);
  const who = await signedInWallet(req, ports);
  const [page, subscriptions] = await Promise.all([
    ports.ledger.ofPayer(who.wallet, limit, req.query['cursor']),
    ports.subscriptions.list(who.wallet),
  ]);
  if (!page) throw invalidRequest('cursor', '`cursor` is not one this list gave.', 'Use the `next` of the previous page, unchanged.');
  const gives = page.rows.length > 0 || subscriptions.length > 0;
  // A signature is single-use: spent before anything it proves is given, so a replay gets nothing.
  const session = who.signIn && gives ? await who.signIn() : undefined;
  const purchases = await Promise.all(page.rows.map((row) => rowPurchase(row, ports, req.baseUrl, true)));
  const next = page.next ?? null;
  return json(200, {
    ok: true,
    wallet: who.wallet,
    ...(session
      ? { session: { token: session.token, header: 'Authorization', scheme: 'Bearer', expires_at: session.expiresAt.toISOString() } }
      : {}),
    purchases,
    subscriptions: subscriptions.map((s) => ({
      plan: s.plan,
      status: s.status,
      started_at: s.startedAt,
      active_until: s.periodEnd,
      ...(s.cancelledAt ? { cancelled_at: s.cancelledAt } : {}),
    })),
    next,
    ...(next ? { next_url: `${links(req.baseUrl).purchases}?cursor=${next}${req.query['limit'] ? `&limit=${limit}` : ''}` } : {}),
  });
}
