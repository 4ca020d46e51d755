/**
 * A sale's receipt (lambdas/contract/receipt.ts): its claims from the stored sale (a ledger row or
 * a card sale) and the base URL, nothing else, and the compact JWS the service key signs over them.
 * The claims are a function of the books, so a receipt signed again later (the purchases page)
 * states the same sale; only `iat` says when it was signed.
 */
import { caip2Of } from '../contract/networks';
import { links } from '../contract/links';
import { RECEIPT_TYPE, type ReceiptClaims } from '../contract/receipt';
import { versionOfDigest, type VersionsOf } from '../contract/pack-versions';
import type { CardSale, LedgerRow, ServiceSigner } from './ports';
import { serviceJws } from './service-key';
import { refundedInFull } from './core/usdc-refunds';

const isCardSale = (source: LedgerRow | CardSale): source is CardSale => 'amountCents' in source;

/** Why a source has no receipt, or undefined when it has one: only a standing sale is stated. */
export function noReceipt(source: LedgerRow | CardSale): string | undefined {
  if (source.status === 'reorged') return 'a reorganisation dropped its transfer: it is no sale';
  // As a card sale refunded in full has none: the money went back (npm run refund).
  if (source.status === 'confirmed' && refundedInFull(source)) return 'it was refunded in full';
  return source.status === 'confirmed' || source.status === 'paid' ? undefined : `its status is ${String(source.status)}`;
}

/**
 * The receipt's claims for a sale, signed at `now`; `versions` are the skill's published versions,
 * which name the number of the version whose digest the sale recorded. Throws for a source with
 * no receipt (`noReceipt`).
 */
export function receiptClaims(source: LedgerRow | CardSale, baseUrl: string, now: Date, versions: VersionsOf): ReceiptClaims {
  const why = noReceipt(source);
  if (why) throw new Error(`No receipt for this sale: ${why}.`);
  const common = { iss: baseUrl, sub: source.skill };
  const iat = Math.floor(now.getTime() / 1000);
  // The seal as recorded with the sale, and the version it is the digest of; a sale recorded
  // before seals were says nothing of its pack, one before versions were names no version.
  const version = source.packSeal ? versionOfDigest(versions(source.skill), source.packSeal)?.version : undefined;
  const pack = source.packSeal ? { pack: { seal: source.packSeal, ...(version !== undefined ? { version } : {}) } } : {};
  if (isCardSale(source)) {
    return {
      ...common,
      kind: 'card',
      ...pack,
      card: { amount_cents: source.amountCents, currency: source.currency, session: source.id, processor: 'stripe' },
      time: source.recordedAt,
      ledger: { entry: `card:${source.id}` },
      iat,
    };
  }
  const kind = source.kind ?? 'unlock';
  return {
    ...common,
    kind,
    ...(kind === 'unlock' ? pack : {}),
    amount: source.amount,
    asset: { symbol: source.asset, contract: source.assetContract, network: caip2Of(source.network) },
    payer: source.payer,
    tx: source.txHash,
    ...escrowClaim(source),
    time: source.recordedAt,
    ledger: {
      entry: `${source.network}:${source.txHash}`,
      block_number: source.blockNumber,
      block_hash: source.blockHash,
      log_index: source.logIndex,
    },
    iat,
  };
}

/**
 * An escrowed sale's `escrow` claim, from its row alone: the escrow it was authorized in, the
 * payment's hash, the authorize (the row's transaction) and the capture once one was sent.
 * Nothing for any other row, so their receipts are as they were.
 */
function escrowClaim(row: LedgerRow): Pick<ReceiptClaims, 'escrow'> {
  if (row.scheme !== 'auth-capture' || row.paymentHash === undefined) return {};
  return {
    escrow: {
      scheme: row.scheme,
      ...(row.escrow ? { contract: row.escrow } : {}),
      payment_hash: row.paymentHash,
      authorize_tx: row.txHash,
      ...(row.captureTx ? { capture_tx: row.captureTx } : {}),
    },
  };
}

/**
 * The sale's receipt: a compact JWS (ES256) over its claims, signed with the service key, with
 * `kid` (the key's RFC 7638 thumbprint, as in /.well-known/jwks.json) and `jku` (that JWKS's URL).
 * One signature by the key (a KMS Sign in AWS). Throws for a source with no receipt (`noReceipt`).
 */
export async function signReceipt(
  source: LedgerRow | CardSale,
  baseUrl: string,
  signer: ServiceSigner,
  versions: VersionsOf,
  now = new Date(),
): Promise<string> {
  const claims = receiptClaims(source, baseUrl, now, versions);
  const jws = await serviceJws(signer, { typ: RECEIPT_TYPE, jku: links(baseUrl).jwks }, JSON.stringify(claims));
  return `${jws.protected}.${jws.payload}.${jws.signature}`;
}
