/**
 * DynamoDB table definitions: the one place that says which tables exist, their keys,
 * indexes and TTL attribute. CDK creates them from this, the local runtime creates the
 * same tables in DynamoDB Local, and Lambdas learn each physical name from the env var named here.
 *
 * A purchase writes what is the buyer's own only: one conditional PutItem claims a transfer. Shared
 * figures are folded from the ledger's and card sales' streams (`stream`), off the purchase path.
 * Indexes project only what their queries read, and no index key of the ledger is one constant value.
 */

export interface KeyAttribute {
  name: string;
  type: 'S' | 'N';
}

/** What an index copies from the table: each copy is written (and paid for) with every change of an item it holds. */
export type IndexProjection = { type: 'KEYS_ONLY' } | { type: 'INCLUDE'; attributes: readonly string[] } | { type: 'ALL' };

export interface IndexDefinition {
  name: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  projection: IndexProjection;
}

export interface TableDefinition {
  /** Logical id in CDK and the table name in DynamoDB Local. */
  logicalName: string;
  /** Environment variable that carries the physical table name to a Lambda. */
  env: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  indexes: IndexDefinition[];
  ttlAttribute?: string;
  /** Kept when the stack is deleted: the ledger is the proof of every sale. */
  retain: boolean;
  /**
   * The table's changes feed the figures' fold (DynamoDB Streams, new and old images): in AWS an
   * event source mapping of the fold function, locally a poller of DynamoDB Local's stream.
   */
  stream?: true;
  description: string;
}

/** How many partitions the public list of unlocks is spread over (`listKey = UNLOCK#<n>`), so no index key is hot. */
export const LEDGER_LIST_SHARDS = 4;

/**
 * The row fields the public lists show (/api/proof, the ESP cycle's prove step): what `bySkill`
 * copies beside its keys, and `recent` with the skill too. (An index always holds the table's key
 * and its own, and DynamoDB refuses a key attribute among the ones it copies.)
 */
export const LEDGER_LIST_ATTRIBUTES = [
  'txHash',
  'network',
  'kind',
  'status',
  'amount',
  'asset',
  'assetContract',
  'payer',
  'blockNumber',
  'confirmations',
] as const;

/**
 * The unlock ledger. One item per claimed transfer, keyed `pk = <network>#<lower-case tx hash>`:
 * the conditional PutItem on that key is what makes one transfer unlock one thing once, and it
 * is the only write of a purchase. Indexes, each copying only what its reads use:
 * - `recent`: confirmed unlocks, newest first (`listSort = <recordedAt>#<tx>`, unique, so pages
 *   neither skip nor repeat a row), spread over `LEDGER_LIST_SHARDS` partitions (`listKey =
 *   UNLOCK#<n>`, n from the tx hash; a reorg removes it); a page reads every shard.
 * - `bySkill`: every row of a skill (`skill`, by `listSort`), reorged ones filtered on read (rare).
 * - `byPayer`: a wallet's rows (`payer`, EIP-55, by `recordedAt`) with their status: its first
 *   and last payment.
 * - `owned`: what a wallet owns, `owner = <lower-case payer>#<kind>#<product>` on confirmed rows
 *   only (a reorg removes it), by `recordedAt`: whether a wallet owns a skill is one Query of one
 *   small partition, whatever its history.
 * `kind` says what a row paid for: a skill unlock (absent on rows older than kinds), a
 * subscription period, or a meter top-up; `skill` then holds the plan id or `meter`.
 * Its stream feeds the figures (lambdas/ledger/fold.ts).
 */
export const LEDGER_TABLE = {
  logicalName: 'Ledger',
  env: 'LEDGER_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [
    {
      name: 'recent',
      partitionKey: { name: 'listKey', type: 'S' },
      sortKey: { name: 'listSort', type: 'S' },
      projection: { type: 'INCLUDE', attributes: [...LEDGER_LIST_ATTRIBUTES, 'skill'] },
    },
    {
      name: 'bySkill',
      partitionKey: { name: 'skill', type: 'S' },
      sortKey: { name: 'listSort', type: 'S' },
      projection: { type: 'INCLUDE', attributes: LEDGER_LIST_ATTRIBUTES },
    },
    {
      name: 'byPayer',
      partitionKey: { name: 'payer', type: 'S' },
      sortKey: { name: 'recordedAt', type: 'S' },
      projection: { type: 'INCLUDE', attributes: ['status'] },
    },
    {
      name: 'owned',
      partitionKey: { name: 'owner', type: 'S' },
      sortKey: { name: 'recordedAt', type: 'S' },
      projection: { type: 'KEYS_ONLY' },
    },
  ],
  retain: true,
  stream: true,
  description: 'Confirmed unlocks: the public proof ledger and the source of every revenue figure.',
} as const satisfies TableDefinition;

/**
 * The figures (lambdas/ledger/fold.ts), folded from the ledger's and card sales' streams: small
 * counter items (`n` confirmed count, `a` confirmed amount in the asset's unit, `r` claims a
 * reorg dropped), keyed `pk` + `sk`:
 * - `TOTAL` / `<product>|<channel>|<asset>`: all time, one item per product, channel and asset;
 * - `DAY#<yyyy-mm>` / `<dd>|<product>|<channel>|<asset>`: one UTC day's confirmed revenue;
 * - `WALLET#<lower-case address>` / `<product>|<channel>|<asset>`: one payer's record.
 * Each item also keeps, per stream shard that folded into it, the last stream record it applied
 * (`w<hash>`), so a batch delivered again adds nothing twice. Derived data: `npm run reconcile`
 * recounts every figure from the ledger and the card sales and compares.
 */
export const TALLIES_TABLE = {
  logicalName: 'Tallies',
  env: 'TALLIES_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  indexes: [],
  retain: true,
  description: "The figures: small counters per product, day and wallet, folded from the ledger's and card sales' streams.",
} as const satisfies TableDefinition;

/**
 * Intent bounties (POST /api/intent). Keyed by a server-made id; `gsi1` (constant partition
 * `INTENT`, sort `<iso time>#<id>`) lists them newest first with a cursor. Anyone may post one,
 * so each expires (TTL `expiresAt`, 30 days) and reads ignore an expired one (the local run deletes none by
 * TTL, DynamoDB deletes late; bounties from before the TTL expire on read by their `created_at`). Also one counter per
 * caller and UTC day (`id = quota#<day>#<caller pseudonym>`, no index keys, TTL), so a caller's
 * bounties per day are capped across every function instance.
 */
export const INTENTS_TABLE = {
  logicalName: 'Intents',
  env: 'INTENTS_TABLE',
  partitionKey: { name: 'id', type: 'S' },
  indexes: [
    { name: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' }, projection: { type: 'ALL' } },
  ],
  ttlAttribute: 'expiresAt',
  retain: true,
  description: 'Intent bounties: what agents asked for, with success criteria.',
} as const satisfies TableDefinition;

/** A2A tasks (tasks/get, tasks/cancel): one item per task, expired by TTL after 30 days. */
export const A2A_TASKS_TABLE = {
  logicalName: 'A2ATasks',
  env: 'A2A_TASKS_TABLE',
  partitionKey: { name: 'id', type: 'S' },
  indexes: [],
  ttlAttribute: 'expiresAt',
  retain: false,
  description: 'A2A tasks created by message/send.',
} as const satisfies TableDefinition;

/**
 * Nonces of wallet signatures (SIGN-IN-WITH-X), each usable once: a conditional PutItem on
 * `pk = <address>#<nonce>` records it; TTL removes it once the signature has expired anyway.
 */
export const NONCES_TABLE = {
  logicalName: 'Nonces',
  env: 'NONCES_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [],
  ttlAttribute: 'expiresAt',
  retain: false,
  description: 'Used nonces of wallet signatures, so a signature cannot be replayed.',
} as const satisfies TableDefinition;

/**
 * What belongs to a wallet, one item each: AP2 mandates (`pk = MANDATE#<id>`, with their spend
 * and the transfers counted against them), subscriptions (`SUB#<wallet>#<plan>`) and prepaid
 * meters (`METER#<wallet>`, with the skills drawn and the top-ups credited). Every change is
 * one conditional UpdateItem on one of them. `gsi1` (partition `WALLET#<wallet>`) lists a
 * wallet's items.
 */
export const ACCESS_TABLE = {
  logicalName: 'Access',
  env: 'ACCESS_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [
    { name: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' }, projection: { type: 'ALL' } },
  ],
  retain: true,
  description: "Wallets' AP2 mandates, subscriptions and prepaid meters, with what each has spent.",
} as const satisfies TableDefinition;

/**
 * Card checkout (ACP and UCP sessions paid on Stripe's hosted page), one item each:
 * - `SESSION#<id>`: a session with its protocol, skill, price, status and Stripe session id;
 *   every status change is one conditional UpdateItem on it (the webhook and a cancel may race).
 *   `gsi1` (partition `stripeSessionId`, only sessions carry it) finds it from Stripe's id, which
 *   is all the success page has.
 * - `IDEM#<protocol>#<key>`: an `Idempotency-Key` and the answer saved for it (TTL).
 * - `EVENT#<stripe event id>`: a webhook event already handled (TTL), so a redelivery is a no-op.
 */
export const CHECKOUT_TABLE = {
  logicalName: 'Checkout',
  env: 'CHECKOUT_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [{ name: 'gsi1', partitionKey: { name: 'stripeSessionId', type: 'S' }, projection: { type: 'ALL' } }],
  ttlAttribute: 'expiresAt',
  retain: true,
  description: 'Card checkout sessions (ACP, UCP), the answers saved for Idempotency-Keys and the Stripe events handled.',
} as const satisfies TableDefinition;

/**
 * Card sales: one item per paid checkout session (`id` = our session id), written once by a
 * conditional PutItem whichever of Stripe's deliveries arrives first. Apart from the proof
 * ledger, which holds on-chain unlocks only; a card license is checked against its sale here.
 * No index: finance reads sales from the table's exports. Its stream feeds the card channel's figures.
 */
export const CARD_SALES_TABLE = {
  logicalName: 'CardSales',
  env: 'CARD_SALES_TABLE',
  partitionKey: { name: 'id', type: 'S' },
  // Stripe's refund and dispute events name the PaymentIntent, not our session: keys only, the sale is read after.
  indexes: [{ name: 'byPaymentIntent', partitionKey: { name: 'paymentIntent', type: 'S' }, projection: { type: 'KEYS_ONLY' } }],
  stream: true,
  retain: true,
  description: 'Card sales (Stripe): one per paid checkout session, the card channel of revenue.',
} as const satisfies TableDefinition;

/**
 * x402 v2 settlements: the signed EIP-3009 authorizations the service submits itself, one item
 * each, keyed `pk = <caip2>#<token>#<from>#<nonce>` (lower case; the token's authorization nonce
 * is unique per authorizer). The conditional PutItem that creates it is the claim made before
 * anything is broadcast, so a retried or parallel request never submits twice; the signed
 * transaction is stored before it is sent, and the gas it cost after its receipt. Kept: finance
 * reads the cost of the channel from it.
 * Beside them: `PAYER#<address>`, what the relayer has in flight for a payer and its cool-down
 * after a revert, and `REVERTS#<yyyy-mm-ddThh>`, an hour's reverted gas (docs/PAYMENTS.md); both
 * expire by TTL (`expiresAt`) a week after their last write. Settlements carry no TTL attribute.
 */
export const SETTLEMENTS_TABLE = {
  logicalName: 'Settlements',
  env: 'SETTLEMENTS_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [
    // The settlements in flight (claimed or signed, not finished): sparse, an item is in it from its
    // claim until its outcome is written, when `inFlightShard` is removed. Sharded by the last hex
    // digit of the authorization's random nonce (16 partitions), so no index partition takes every
    // purchase's write; the payments watch reads the 16 to find settlements stuck in flight.
    {
      name: 'inFlight',
      partitionKey: { name: 'inFlightShard', type: 'S' },
      sortKey: { name: 'claimedAt', type: 'S' },
      projection: { type: 'KEYS_ONLY' },
    },
  ],
  ttlAttribute: 'expiresAt',
  retain: true,
  description: 'x402 authorizations the service settled: the claim before broadcast, the transaction, the gas it cost.',
} as const satisfies TableDefinition;

/**
 * Operator refunds of USDC against proof-ledger sales (`npm run refund`, lambdas/ledger/refunds.ts):
 * one item per refund transaction, `pk = <network>#<lower-case refund tx hash>`, naming the sale
 * (`saleTx`) it was recorded against. The conditional put on that key, in the same transaction
 * as the update of the sale's row (its `refunds` map and `refundedAmount`), is what records one
 * refund transfer against one sale, once. A table of its own rather than a key prefix in the
 * ledger: every reader of the ledger (the fold of its stream, the recount's scan, the export and
 * its SQL, the indexes) takes each item for a claimed transfer. No index, no stream: nothing
 * counts refunds by reading this table; finance reads them from the sale rows.
 */
export const REFUNDS_TABLE = {
  logicalName: 'Refunds',
  env: 'REFUNDS_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [],
  retain: true,
  description: 'Operator refunds of USDC, one per refund transaction, each recorded against one proof-ledger sale.',
} as const satisfies TableDefinition;

/** All tables, in creation order. */
/**
 * The leases of the relayer key pool, one item per key (`pk` = the key's lower-case address):
 * who holds it (`holder`, one function instance) and until when (`expiresAt`, ms). A conditional
 * write takes a free or expired lease, or renews one's own, so one key signs for one holder at a
 * time and its nonce is counted by that holder alone. A handful of items, rewritten about once
 * per half lease per busy key; nothing to keep when the stack goes.
 */
export const RELAYER_LEASES_TABLE = {
  logicalName: 'RelayerLeases',
  env: 'RELAYER_LEASES_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [],
  retain: false,
  description: "Leases of the x402 relayer's pool keys: which function instance signs with each key, until when.",
} as const satisfies TableDefinition;

/**
 * The signed provenance of pack versions (issue 52, GET /api/packs/provenance): one item per
 * version and statement, `pk = <version digest>#<predicate type>`, holding its Sigstore bundle.
 * ECDSA signatures are random, so each statement is signed once, on its first request, and kept
 * with a conditional PutItem: the first signer wins and every later reader gets its bundle. Only
 * the provenance route writes it, never a purchase. Not retained: a lost item is signed again,
 * and a bundle signed before stays valid (the statement is the same, so is the key).
 */
export const PROVENANCE_TABLE = {
  logicalName: 'Provenance',
  env: 'PROVENANCE_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [],
  retain: false,
  description: "Pack versions' signed provenance: each statement's Sigstore bundle, signed once and kept.",
} as const satisfies TableDefinition;

export const TABLES: readonly TableDefinition[] = [
  LEDGER_TABLE,
  INTENTS_TABLE,
  A2A_TASKS_TABLE,
  NONCES_TABLE,
  ACCESS_TABLE,
  CHECKOUT_TABLE,
  CARD_SALES_TABLE,
  TALLIES_TABLE,
  SETTLEMENTS_TABLE,
  REFUNDS_TABLE,
  RELAYER_LEASES_TABLE,
  PROVENANCE_TABLE,
];
