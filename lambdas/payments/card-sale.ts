/**
 * Card sales' packs: a sale is recorded once per paid checkout session in the ledger's card sales
 * (the checkout domain decides when Stripe has confirmed a payment, and records it there); its
 * pack goes with a license that redeems through POST /api/pay like an x402 license and is checked
 * against its sale on every use.
 */
import { signReceipt } from '../ledger';
import { notFound, type AppError } from '../platform/errors';
import { PAYMENT_ERRORS } from './errors';
import { boughtVersion, versionedPack } from './pack-version';
import type { CardSale, PaymentsPorts } from './ports';
import { cardSaleBody } from './unlock-response';

/** The `network` claim of a card sale's licenses; `txHash` then holds the sale's id. */
export const CARD_NETWORK = 'card';
/** The `payer` claim of a card sale's licenses: no address, and never the buyer's email (a token is readable). */
const CARD_PAYER = 'card';

/**
 * The pack of a recorded sale with a fresh license for it; `license` re-delivers with the token the
 * buyer presented. Every way to a card pack comes here, so a sale that no longer stands (refunded
 * in full, or disputed and not won: the sale's `status`) delivers nothing, whoever asks.
 */
export async function deliverCardSale(
  sale: CardSale,
  ports: PaymentsPorts,
  baseUrl: string,
  license?: string,
  version?: number | undefined,
): Promise<ReturnType<typeof cardSaleBody>> {
  if (sale.status !== 'paid') {
    throw PAYMENT_ERRORS.CARD_SALE_REVERSED({
      message: `This card sale was ${sale.status === 'refunded' ? 'refunded' : 'disputed by the card holder'}, so its pack is no longer delivered.`,
    });
  }
  const entry = ports.catalog.get(sale.skill);
  if (!entry) throw notFound(`The pack of ${sale.skill} is missing from this deployment.`);
  // The version asked for (the current one by default), if the sale covers it: the version it bought and every later one.
  const delivered = await versionedPack(ports, sale.skill, version, boughtVersion(ports.catalog.versions(sale.skill), sale.packSeal));
  const [token, receipt] = await Promise.all([
    license ??
      ports.licenses.issue({
        network: CARD_NETWORK,
        txHash: sale.id,
        skill: sale.skill,
        payer: CARD_PAYER,
        seal: sale.packSeal ?? delivered.meta.seal,
      }),
    signReceipt(sale, baseUrl, ports.serviceSigner, ports.catalog.versions),
  ]);
  return cardSaleBody({ entry, delivered, license: token, receipt, sale, via: license ? 'license' : 'card_sale', baseUrl });
}

const invalidCardLicense = (): AppError =>
  PAYMENT_ERRORS.INVALID_LICENSE({
    message: 'The license token is not valid for this service or this skill: no card sale backs it.',
    tip: 'Open the checkout success page again (it shows the license), or buy the pack.',
  });

/** A card license re-redeems while its sale stands: one read of the sale, as an x402 license reads its ledger row. */
export async function redeemCardLicense(
  claims: { txHash: string; skill: string },
  license: string,
  ports: PaymentsPorts,
  baseUrl: string,
  version?: number | undefined,
): Promise<ReturnType<typeof cardSaleBody>> {
  const sale = await ports.cardSales.get(claims.txHash);
  if (!sale || sale.skill !== claims.skill) throw invalidCardLicense();
  return deliverCardSale(sale, ports, baseUrl, license, version);
}
