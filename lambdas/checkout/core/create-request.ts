/**
 * What a checkout creation (or update) may ask for, checked before anything else, so a bad
 * request gets its 400 even when card checkout is not configured. Every refusal names the
 * offending field in `param` (the ACP/UCP path form, e.g. `line_items[0].quantity`) and has its
 * own error code. Unknown fields are ignored: the standards' schemas and examples disagree.
 */
import type { Catalog } from '../../catalog';
import { isEmail, MAX_EMAIL } from '../../contract/email';
import type { AppError } from '../../platform/errors';
import { CHECKOUT_ERRORS, type CheckoutErrorCode } from '../errors';
import type { Protocol } from '../ports';

export interface CheckoutRequest {
  skill: string;
  buyerEmail: string | undefined;
}

/** A 400 with the spec's failure body, the field in `param`. */
export const checkoutInvalid = (code: CheckoutErrorCode, param: string, message: string, tip: string): AppError =>
  CHECKOUT_ERRORS[code]({ message, tip, param });

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where each protocol puts the item id in a line item. */
const ID_PATH: Record<Protocol, string> = { acp: 'line_items[0].id', ucp: 'line_items[0].item.id' };

/** The card packs, for tips: `ten-send`, … (from the one price source). */
const cardIds = (catalog: Catalog): string => Object.keys(catalog.pricing.cardCents).join(', ');

/** `buyer` (optional) with an optional `email`; the email is returned lower-case as entered otherwise. */
export function readBuyer(body: Record<string, unknown>): string | undefined {
  const buyer = body['buyer'];
  if (buyer === undefined || buyer === null) return undefined;
  if (!isObject(buyer))
    throw checkoutInvalid(
      'INVALID_BUYER',
      'buyer',
      '`buyer` must be an object.',
      'Send {"buyer": {"email": "you@example.com"}} or leave buyer out.',
    );
  const email = buyer['email'];
  if (email === undefined || email === null) return undefined;
  if (typeof email !== 'string' || email.length > MAX_EMAIL || !isEmail(email.trim())) {
    throw checkoutInvalid(
      'INVALID_EMAIL',
      'buyer.email',
      '`buyer.email` is not an email address.',
      'Send an address such as buyer@example.com, or leave it out.',
    );
  }
  return email.trim();
}

/**
 * The one line item: exactly one element, quantity 1 (absent means 1 in ACP 2026-04-17, whose
 * line items carry no quantity), and the id of a pack sold by card.
 */
export function readCreate(protocol: Protocol, body: Record<string, unknown>, catalog: Catalog): CheckoutRequest {
  const items = body['line_items'];
  const tip = `Send exactly one line item for one of the card packs (${cardIds(catalog)}), quantity 1.`;
  if (items === undefined || items === null) throw checkoutInvalid('LINE_ITEMS_REQUIRED', 'line_items', '`line_items` is required.', tip);
  if (!Array.isArray(items)) throw checkoutInvalid('INVALID_LINE_ITEMS', 'line_items', '`line_items` must be an array.', tip);
  if (items.length === 0) throw checkoutInvalid('INVALID_LINE_ITEMS', 'line_items', '`line_items` is empty: one item is required.', tip);
  if (items.length > 1) {
    throw checkoutInvalid(
      'INVALID_LINE_ITEMS',
      'line_items',
      `\`line_items\` has ${items.length} elements: a session sells exactly one item.`,
      tip,
    );
  }
  const item: unknown = items[0];
  if (!isObject(item)) throw checkoutInvalid('INVALID_LINE_ITEMS', 'line_items[0]', '`line_items[0]` must be an object.', tip);

  const quantity = item['quantity'];
  const quantityOptional = protocol === 'acp';
  if (quantity === undefined ? !quantityOptional : quantity !== 1) {
    throw checkoutInvalid(
      'INVALID_QUANTITY',
      'line_items[0].quantity',
      quantity === undefined
        ? '`line_items[0].quantity` is required and must be 1.'
        : `\`line_items[0].quantity\` must be 1, got ${JSON.stringify(quantity)}.`,
      'Each pack is sold once per session: quantity 1.',
    );
  }

  const nested = item['item'];
  const id = protocol === 'ucp' ? (isObject(nested) ? nested['id'] : undefined) : item['id'];
  if (protocol === 'ucp' && nested !== undefined && !isObject(nested)) {
    throw checkoutInvalid('INVALID_LINE_ITEMS', 'line_items[0].item', '`line_items[0].item` must be an object with an `id`.', tip);
  }
  if (typeof id !== 'string' || id.trim() === '') {
    throw checkoutInvalid('ITEM_ID_REQUIRED', ID_PATH[protocol], `\`${ID_PATH[protocol]}\` is required: the pack's id.`, tip);
  }
  if (!catalog.get(id)) throw checkoutInvalid('UNKNOWN_ITEM', ID_PATH[protocol], `No pack has the id "${id}".`, tip);
  if (catalog.pricing.cardCents[id] === undefined) {
    throw checkoutInvalid(
      'ITEM_NOT_SOLD_BY_CARD',
      ID_PATH[protocol],
      `"${id}" is not sold by card: pay it in USDC over x402 (GET /api/pay?skill=${id}).`,
      tip,
    );
  }

  const currency = body['currency'];
  if (currency !== undefined && currency !== null && (typeof currency !== 'string' || currency.toLowerCase() !== 'usd')) {
    throw checkoutInvalid(
      'INVALID_CURRENCY',
      'currency',
      `Card checkout is priced in usd, not ${JSON.stringify(currency)}.`,
      'Send "currency": "usd" or leave it out.',
    );
  }
  return { skill: id, buyerEmail: readBuyer(body) };
}
