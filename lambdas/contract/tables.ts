/**
 * DynamoDB table definitions: the one place that says which tables exist, their keys,
 * indexes and TTL attribute. CDK creates them from this, the local runtime creates the
 * same tables in DynamoDB Local, and Lambdas learn each physical name from the env var named here.
 *
 * Every state change is a single-item conditional write (no TransactWriteItems), which
 * DynamoDB Local, the local database when this was designed, supported, and which is also the cheaper design on DynamoDB.
 */

export interface KeyAttribute {
  name: string;
  type: 'S' | 'N';
}

export interface IndexDefinition {
  name: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
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
  description: string;
}

/**
 * The unlock ledger. One item per claimed transfer, keyed `pk = <network>#<lower-case tx hash>`:
 * the conditional PutItem on that key is what makes one transfer unlock one skill once.
 * `gsi1` (constant partition `UNLOCK`, sort `<iso time>#<tx>`) lists the newest unlocks;
 * `gsi2` (partition = skill id) filters the ledger by skill; `gsi3` (partition = `payer`, the
 * EIP-55 address every row already carries, sort = `recordedAt`) is a wallet's history, reorged
 * claims included, for access decisions. Keyed on attributes every row has, so DynamoDB
 * backfills it over rows written before it existed: no migration. `gsi4` (partition = payer,
 * only while confirmed) answers a wallet's first and latest payment with one read each.
 * Each row also carries its journal marks (`jseq`, `jpending`, `jv`; see TALLIES_TABLE).
 * `kind` says what a row paid for: a skill unlock (absent on rows older than kinds), a
 * subscription period, or a meter top-up; `skill` then holds the plan id or `meter`.
 */
export const LEDGER_TABLE = {
  logicalName: 'Ledger',
  env: 'LEDGER_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [
    { name: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' } },
    { name: 'gsi2', partitionKey: { name: 'gsi2pk', type: 'S' }, sortKey: { name: 'gsi2sk', type: 'S' } },
    { name: 'gsi3', partitionKey: { name: 'payer', type: 'S' }, sortKey: { name: 'recordedAt', type: 'S' } },
    { name: 'gsi4', partitionKey: { name: 'gsi4pk', type: 'S' }, sortKey: { name: 'gsi4sk', type: 'S' } },
  ],
  retain: true,
  description: 'Confirmed unlocks: the public proof ledger and the source of every revenue figure.',
} as const satisfies TableDefinition;

/**
 * The aggregate model (lambdas/payments/tally-journal.ts): every figure is read from here, in
 * a few items, however long the ledger grows. Keyed `pk` + `sk`:
 * - `SEQ`/`-`: the journal's sequence; `J`/`<12-digit seq>`: one entry per change of a ledger
 *   row or card sale (reserved, published with the record's new state, or void);
 *   `CURSOR`/`-`: the next entry to fold.
 * - `TOTAL`/`-`, `DAY`/`<yyyy-mm-dd>`, `WALLET`/`<address>`: tally items, flat counters
 *   (`n|<channel>|<asset>|<product>` …) and `appliedSeq`, the last entry each has folded.
 * Derived data: the reconcile job recomputes every tally from the ledger and the card sales.
 */
export const TALLIES_TABLE = {
  logicalName: 'Tallies',
  env: 'TALLIES_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  indexes: [],
  retain: true,
  description: 'The figures: a journal of ledger and card-sale changes, folded in order into a few tally items.',
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
  indexes: [{ name: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' } }],
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
  indexes: [{ name: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' } }],
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
  indexes: [{ name: 'gsi1', partitionKey: { name: 'stripeSessionId', type: 'S' } }],
  ttlAttribute: 'expiresAt',
  retain: true,
  description: 'Card checkout sessions (ACP, UCP), the answers saved for Idempotency-Keys and the Stripe events handled.',
} as const satisfies TableDefinition;

/**
 * Card sales: one item per paid checkout session (`id` = our session id), written once by a
 * conditional PutItem whichever of Stripe's deliveries arrives first. Apart from the proof
 * ledger, which holds on-chain unlocks only; a card license is checked against its sale here.
 * `gsi1` (constant partition `SALE`, sort `<iso time>#<id>`) lists sales by time for finance.
 */
export const CARD_SALES_TABLE = {
  logicalName: 'CardSales',
  env: 'CARD_SALES_TABLE',
  partitionKey: { name: 'id', type: 'S' },
  indexes: [{ name: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' } }],
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
  indexes: [],
  ttlAttribute: 'expiresAt',
  retain: true,
  description: 'x402 authorizations the service settled: the claim before broadcast, the transaction, the gas it cost.',
} as const satisfies TableDefinition;

/** All tables, in creation order. */
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
];
