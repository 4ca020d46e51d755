/**
 * Every checkout request that must be refused with 400 before anything else: name, body,
 * error_code, param. The same list runs with card checkout on and off.
 */

/** ACP creations that are 400. */
export const ACP_INVALID: [string, unknown, string, string][] = [
  ['no line_items', {}, 'LINE_ITEMS_REQUIRED', 'line_items'],
  ['line_items not an array', { line_items: { id: 'ten-send' } }, 'INVALID_LINE_ITEMS', 'line_items'],
  ['empty line_items', { line_items: [] }, 'INVALID_LINE_ITEMS', 'line_items'],
  [
    'two items',
    {
      line_items: [
        { id: 'ten-send', quantity: 1 },
        { id: 'csv-cleaner', quantity: 1 },
      ],
    },
    'INVALID_LINE_ITEMS',
    'line_items',
  ],
  ['quantity 0', { line_items: [{ id: 'ten-send', quantity: 0 }] }, 'INVALID_QUANTITY', 'line_items[0].quantity'],
  ['quantity 2', { line_items: [{ id: 'ten-send', quantity: 2 }] }, 'INVALID_QUANTITY', 'line_items[0].quantity'],
  ['quantity "1"', { line_items: [{ id: 'ten-send', quantity: '1' }] }, 'INVALID_QUANTITY', 'line_items[0].quantity'],
  ['unknown id', { line_items: [{ id: 'no-such-pack', quantity: 1 }] }, 'UNKNOWN_ITEM', 'line_items[0].id'],
  ['not sold by card', { line_items: [{ id: 'agent-x402-first-buy', quantity: 1 }] }, 'ITEM_NOT_SOLD_BY_CARD', 'line_items[0].id'],
  ['malformed email', { line_items: [{ id: 'ten-send', quantity: 1 }], buyer: { email: 'not-an-email' } }, 'INVALID_EMAIL', 'buyer.email'],
  ['currency eur', { line_items: [{ id: 'ten-send' }], currency: 'eur' }, 'INVALID_CURRENCY', 'currency'],
];

/** UCP creations that are 400. */
export const UCP_INVALID: [string, unknown, string, string][] = [
  ['no line_items', { buyer: {} }, 'LINE_ITEMS_REQUIRED', 'line_items'],
  [
    'two items',
    {
      line_items: [
        { item: { id: 'ten-send' }, quantity: 1 },
        { item: { id: 'ten-send' }, quantity: 1 },
      ],
    },
    'INVALID_LINE_ITEMS',
    'line_items',
  ],
  ['quantity missing', { line_items: [{ item: { id: 'ten-send' } }] }, 'INVALID_QUANTITY', 'line_items[0].quantity'],
  ['quantity 2', { line_items: [{ item: { id: 'ten-send' }, quantity: 2 }] }, 'INVALID_QUANTITY', 'line_items[0].quantity'],
  ['item id missing', { line_items: [{ item: {}, quantity: 1 }] }, 'ITEM_ID_REQUIRED', 'line_items[0].item.id'],
  ['unknown id', { line_items: [{ item: { id: 'nope' }, quantity: 1 }] }, 'UNKNOWN_ITEM', 'line_items[0].item.id'],
  [
    'not sold by card',
    { line_items: [{ item: { id: 'agent-x402-first-buy' }, quantity: 1 }] },
    'ITEM_NOT_SOLD_BY_CARD',
    'line_items[0].item.id',
  ],
  [
    'malformed email',
    { line_items: [{ item: { id: 'csv-cleaner' }, quantity: 1 }], buyer: { email: 'a@b' } },
    'INVALID_EMAIL',
    'buyer.email',
  ],
];
