import { formatAtomic } from '../contract/chain';
import { caip2Of } from '../contract/networks';
import type { CatalogEntry } from '../contract/catalog-data';
import { links } from '../contract/links';
import { SEAL_VERIFY_COMMAND } from '../contract/pack-seal';
import { notFound } from '../platform/errors';
import { versionedPack, versionView, type VersionedPack } from './pack-version';
import type { CardSale, LedgerRow, PaymentsPorts } from './ports';

export interface UnlockBodyInput {
  entry: CatalogEntry;
  /** The bytes delivered: the current version, or the one a re-download asked for. */
  delivered: VersionedPack;
  license: string;
  /** The sale's signed receipt (the ledger's `signReceipt`): a compact JWS. */
  receipt: string;
  /** `network`: the ledger row's (the x402 v1 network name, `base` or `base-sepolia`). */
  payment: { txHash: string; payer: string; network: string; row: LedgerRow | undefined };
  ledger: { recorded: boolean; replayed: boolean; via: 'verification' | 'replay' | 'license' };
  baseUrl: string;
}

/** The pack itself and how to use it: the part every delivery shares. */
function packParts(entry: CatalogEntry, { pack, meta, version }: VersionedPack, keep: string) {
  return {
    ok: true as const,
    skill_id: entry.id,
    name: entry.name,
    sealed_pack: { files: pack, file_count: meta.file_count, seal: meta.seal },
    seal: meta.seal,
    /** Which version these bytes are (issue 52): its digest is the seal; `?version=<n>` on a re-download asks for another. */
    version: versionView(version),
    how_to_use: {
      save_to: `./packs/${entry.id}/`,
      entrypoint: 'SKILL.md',
      steps: [
        `Write every entry of sealed_pack.files under ./packs/${entry.id}/ (keys are relative paths).`,
        'Check the seal: it must equal `seal` here, `version.digest`, and that version on /api/packs.',
        'Give SKILL.md to the agent that will do the job; supporting files are referenced from it.',
        keep,
      ],
      verify_seal: SEAL_VERIFY_COMMAND.replace('DIR', `./packs/${entry.id}`),
    },
  };
}

/** The spec's unlock response (POST /api/pay 200). */
export function unlockBody(i: UnlockBodyInput) {
  const row = i.payment.row;
  return {
    ...packParts(i.entry, i.delivered, 'Keep payment.txHash and license.token: either one gets this pack again.'),
    license: {
      token: i.license,
      header: 'X-LICENSE',
      redeem: 'POST /api/pay (or /api/recover) with header X-LICENSE: <token> returns this pack again without a chain lookup.',
    },
    payment: {
      txHash: i.payment.txHash,
      network: i.payment.network,
      network_caip2: caip2Of(i.payment.network),
      payer: i.payment.payer,
      ...(row
        ? {
            amount: row.amount,
            amount_usd: Number(formatAtomic(BigInt(row.amount))),
            price: row.price,
            asset: row.asset,
            asset_contract: row.assetContract,
            block: Number(row.blockNumber),
            confirmations: row.confirmations,
          }
        : {}),
    },
    revenue_ledger: {
      recorded: i.ledger.recorded,
      replayed: i.ledger.replayed,
      via: i.ledger.via,
      store: 'dynamodb:Ledger',
      ...(row ? { recorded_at: row.recordedAt } : {}),
      proof: links(i.baseUrl).skill(i.entry.id).proof,
    },
    receipt: i.receipt,
  };
}

/**
 * A card sale's delivery: the pack and a license, as an unlock delivers them, with the card
 * payment in place of the transfer. Recorded in the card sales, never in the proof ledger.
 */
export function cardSaleBody(i: {
  entry: CatalogEntry;
  delivered: VersionedPack;
  license: string;
  /** The sale's signed receipt (the ledger's `signReceipt`): a compact JWS. */
  receipt: string;
  sale: CardSale;
  via: 'card_sale' | 'license';
  baseUrl: string;
}) {
  return {
    ...packParts(i.entry, i.delivered, 'Keep license.token: it gets this pack again.'),
    license: {
      token: i.license,
      header: 'X-LICENSE',
      redeem: 'POST /api/pay (or /api/recover) with header X-LICENSE: <token> returns this pack again.',
    },
    payment: {
      method: 'card',
      processor: 'stripe',
      sale_id: i.sale.id,
      protocol: i.sale.protocol,
      amount_cents: i.sale.amountCents,
      currency: i.sale.currency,
      recorded_at: i.sale.recordedAt,
    },
    card_sales: {
      recorded: true,
      via: i.via,
      store: 'dynamodb:CardSales',
      proof_ledger: 'not recorded: the proof ledger holds on-chain unlocks only',
    },
    receipt: i.receipt,
  };
}

/**
 * x402's settlement response, base64 of {success, transaction, network, payer, errorReason?}: the
 * spec's `X-PAYMENT-RESPONSE` names the network `base`, x402 v2's `PAYMENT-RESPONSE` by CAIP-2.
 */
export function settlementHeader(
  s: { success: boolean; transaction: string; payer: string; errorReason?: string },
  network: string,
): string {
  const { success, transaction, payer, errorReason } = s;
  return Buffer.from(JSON.stringify({ success, transaction, network, payer, ...(errorReason ? { errorReason } : {}) })).toString('base64');
}

/**
 * The payment an unlock delivered for, as data: what every surface reads (A2A's receipts), and
 * what the route function writes as x402's headers (`settlementHeaders`), in one place.
 */
export interface Settlement {
  /** The transfer's hash. */
  transaction: string;
  payer: string;
  /** The network it is on, as the ledger names it (`base`, `base-sepolia`). */
  network: string;
  /**
   * `authorization`: settled by this service, in this request, from x402 v2's PAYMENT-SIGNATURE
   * (answered with x402 v2's PAYMENT-RESPONSE too); `proof`: a transfer the buyer proved (a txHash,
   * a license, a wallet's signature); `owned`: nothing was settled, as the signed payment came from
   * a wallet that already has access, and `transaction` is the earlier payment that bought that
   * access (the sale, or a transfer that paid its subscription or meter), answered under both
   * header names as an authorization is, so a stock client that reads its settlement finds one
   * (docs/PAYMENTS.md, "An owner who pays again").
   */
  from: 'authorization' | 'proof' | 'owned';
}

/** An unlock's answer: the body, and the payment it delivered for (none for a card sale or a wallet's access). */
export interface Unlocked<Body> {
  body: Body;
  settlement?: Settlement | undefined;
}

/** x402's settlement response of a successful settlement (x402 v2's `SettleResponse`), the network by CAIP-2 unless named. */
export const settleResponse = (s: Settlement) => ({
  success: true as const,
  transaction: s.transaction,
  network: caip2Of(s.network),
  payer: s.payer,
});

/**
 * The headers of an unlock's answer: the spec's `X-PAYMENT-RESPONSE` for every payment, and
 * x402 v2's `PAYMENT-RESPONSE` for one settled from a signed payment, or that a signed payment
 * found already made (an owner's).
 */
export function settlementHeaders(s: Settlement | undefined): Record<string, string> {
  if (!s) return {};
  const ok = { success: true, transaction: s.transaction, payer: s.payer };
  return {
    'x-payment-response': settlementHeader(ok, s.network),
    ...(s.from !== 'proof' ? { 'payment-response': settlementHeader(ok, caip2Of(s.network)) } : {}),
  };
}

/**
 * A pack delivered because the wallet already has access (a subscription, a meter draw, an
 * earlier purchase), not for a transfer in this request: no license or payment, and `access`
 * says why. `version` is what a re-download asked for (the current version when undefined), and
 * `coveredFrom` the first version the access covers (docs/ACCESS.md, "Versions").
 */
export async function deliverPack(
  ports: Pick<PaymentsPorts, 'catalog' | 'packs' | 'versions'>,
  skill: string,
  access: Record<string, unknown>,
  version: { asked: number | undefined; coveredFrom: number } = { asked: undefined, coveredFrom: 1 },
) {
  const entry = ports.catalog.get(skill);
  if (!entry) throw notFound(`The pack of ${skill} is missing from this deployment.`);
  const delivered = await versionedPack(ports, skill, version.asked, version.coveredFrom);
  return {
    ...packParts(entry, delivered, 'Your wallet gets this pack again while it has access: sign again (GET /api/access says how).'),
    access,
  };
}
