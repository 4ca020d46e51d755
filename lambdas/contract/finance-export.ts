/**
 * Finance reads the revenue rollup from DynamoDB exports: a daily `ExportTableToPointInTime`
 * of the ledger and the card sales to S3 (DynamoDB JSON), a Glue table over each, and one SQL
 * text that Athena runs in AWS and DuckDB runs locally on the same files (`npm run revenue`).
 * The CSV it makes has the columns of `GET /api/revenue?format=csv`, and a test holds the two
 * equal. Both engines read struct fields case-insensitively and agree on the SQL below.
 *
 * Data and pure functions only, here because three layers share them: lib/ builds the export
 * schedule and the Glue tables from them (lib may import only the contract), and the CSV writer
 * is the one `GET /api/revenue?format=csv` (insights) and `npm run revenue` (local/, which may
 * import the contract and the platform but not a domain) both use, so the two cannot drift.
 */
import { formatDecimal } from './chain';
import { NETWORKS } from './networks';
import { CARD_SALES_TABLE, LEDGER_TABLE, SETTLEMENTS_TABLE, type TableDefinition } from './tables';

/**
 * An exported attribute the SQL reads: a scalar by its DynamoDB type descriptor, or a map (`M`)
 * of records keyed by an id (a sale's reversals or refunds), each record a map of scalars. The
 * SQL reads each record as a row of its own (`UNNEST(map_values(…))`, in DuckDB and Athena alike).
 */
export type ExportedField = 'S' | 'N' | { records: Readonly<Record<string, 'S' | 'N'>> };

/** The fields of an exported item the rollup reads, each with its DynamoDB type descriptor. */
export interface ExportedTable {
  table: TableDefinition;
  /** S3 prefix of its exports: `<prefix>/<snapshot>/AWSDynamoDB/<export id>/…`. */
  prefix: string;
  /** The name the SQL reads it by: a Glue table in AWS, a DuckDB view locally. */
  view: string;
  fields: Readonly<Record<string, ExportedField>>;
}

/**
 * The operator's calls on an escrowed payment (x402 `auth-capture`, issue 53) after its
 * `authorize`: each is a transaction of its own, whose hash, gas, time and price in US dollars the
 * settlement record keeps under the call's name (facilitator/core/escrow.ts): `captureTx`,
 * `captureGasUsed`, `captureGasCostWei`, `captureFinishedAt`, `captureGasCostUsdMicro`, and the
 * ETH / USD round that priced it (`captureEthUsdRound`, `captureEthUsdAnswer`, `captureEthUsdDecimals`).
 */
export const ESCROW_STEPS = ['capture', 'void', 'refund'] as const;
export type EscrowStep = (typeof ESCROW_STEPS)[number];

const ESCROW_STEP_FIELDS: Readonly<Record<string, ExportedField>> = Object.fromEntries(
  ESCROW_STEPS.flatMap((step) =>
    ['Tx', 'GasUsed', 'GasCostWei', 'FinishedAt', 'EthUsdRound', 'EthUsdAnswer', 'EthUsdDecimals', 'GasCostUsdMicro'].map((field) => [
      `${step}${field}`,
      'S' as const,
    ]),
  ),
);

export const EXPORTED_TABLES: readonly ExportedTable[] = [
  {
    table: LEDGER_TABLE,
    prefix: 'ledger',
    view: 'ledger_export',
    fields: {
      pk: 'S',
      kind: 'S',
      skill: 'S',
      amount: 'S',
      asset: 'S',
      status: 'S',
      recordedAt: 'S',
      txHash: 'S',
      payer: 'S',
      network: 'S',
      refundedAmount: 'S',
      // `auth-capture` for an escrowed sale (its txHash is the escrow's authorize); absent for every other.
      scheme: 'S',
      // Operator refunds of USDC recorded against the sale, keyed by the refund's transaction (ledger/refunds.ts).
      refunds: { records: { amount: 'S', tx: 'S', time: 'S' } },
    },
  },
  {
    table: CARD_SALES_TABLE,
    prefix: 'card-sales',
    view: 'card_sales_export',
    fields: {
      id: 'S',
      skill: 'S',
      amountCents: 'N',
      status: 'S',
      recordedAt: 'S',
      buyerCountry: 'S',
      chargeId: 'S',
      balanceTransaction: 'S',
      feeCents: 'N',
      netCents: 'N',
      feeCurrency: 'S',
      exchangeRate: 'S',
      // What Stripe reported after the sale: each refund, dispute withdrawal and reinstatement, with
      // Stripe's fee on it where it gave one (core/card-standing.ts).
      reversals: { records: { kind: 'S', amountCents: 'N', at: 'S', event: 'S', feeCents: 'N', feeCurrency: 'S' } },
    },
  },
  {
    // The x402 v2 settlements the relayer paid gas for: the cost of that channel.
    table: SETTLEMENTS_TABLE,
    prefix: 'settlements',
    view: 'settlements_export',
    fields: {
      pk: 'S',
      skill: 'S',
      state: 'S',
      txHash: 'S',
      gasUsed: 'S',
      gasCostWei: 'S',
      finishedAt: 'S',
      payer: 'S',
      transferTx: 'S',
      ethUsdFeed: 'S',
      ethUsdRound: 'S',
      ethUsdAnswer: 'S',
      ethUsdDecimals: 'N',
      ethUsdUpdatedAt: 'S',
      gasCostUsdMicro: 'S',
      // An escrowed payment (x402 auth-capture): the transaction above is its authorize; its stage and each later call's gas.
      scheme: 'S',
      escrowStage: 'S',
      ...ESCROW_STEP_FIELDS,
    },
  },
];

const glueStruct = (fields: Readonly<Record<string, ExportedField>>): string =>
  `struct<${Object.entries(fields)
    .map(([name, type]) =>
      typeof type === 'string'
        ? `${name.toLowerCase()}:struct<${type.toLowerCase()}:string>`
        : `${name.toLowerCase()}:struct<m:map<string,struct<m:${glueStruct(type.records)}>>>`,
    )
    .join(',')}>`;

const duckStruct = (fields: Readonly<Record<string, ExportedField>>): string =>
  `STRUCT(${Object.entries(fields)
    .map(([name, type]) =>
      typeof type === 'string'
        ? `"${name}" STRUCT("${type}" VARCHAR)`
        : `"${name}" STRUCT("M" MAP(VARCHAR, STRUCT("M" ${duckStruct(type.records)})))`,
    )
    .join(', ')})`;

/** The Glue (Hive) type of the `item` column: `struct<kind:struct<s:string>,…>` (a map of records: `struct<m:map<string,struct<m:struct<…>>>>`). */
export const glueItemType = (t: ExportedTable): string => glueStruct(t.fields);

/** The DuckDB type of the `Item` column: `STRUCT("kind" STRUCT("S" VARCHAR), …)` (a map of records: `STRUCT("M" MAP(VARCHAR, STRUCT("M" STRUCT(…))))`). */
export const duckItemType = (t: ExportedTable): string => duckStruct(t.fields);

/** When the daily export runs (UTC), as an EventBridge Scheduler cron expression. */
export const EXPORT_SCHEDULE_CRON = 'cron(0 3 * * ? *)';

/**
 * The revenue rollup, confirmed only: ledger rows whose status is `confirmed` (by kind: x402
 * unlocks, subscription periods, meter top-ups) and card sales (in cents, gross: a sale later
 * refunded or disputed is still a sale of its day, as the figures count it), by UTC day,
 * channel, asset and product. Each `?` is the snapshot to read (the same value twice: the
 * ledger's, then the card sales'), which in AWS is the export's scheduled time.
 */
/** A ledger row's channel by its kind (rows written before kinds existed are unlocks). */
const LEDGER_CHANNEL = `CASE coalesce(item.kind.s, 'unlock')
      WHEN 'unlock' THEN 'x402'
      WHEN 'subscription' THEN 'subscriptions'
      WHEN 'meter_top_up' THEN 'meters'
    END`;

export const REVENUE_ROLLUP_SQL = `WITH facts AS (
  SELECT
    substr(item.recordedat.s, 1, 10) AS day,
    ${LEDGER_CHANNEL} AS channel,
    item.asset.s AS asset,
    item.skill.s AS product,
    CAST(item.amount.s AS DECIMAL(38, 0)) AS amount
  FROM ledger_export
  WHERE snapshot = ? AND item.status.s = 'confirmed'
  UNION ALL
  SELECT
    substr(item.recordedat.s, 1, 10) AS day,
    'card' AS channel,
    'USD' AS asset,
    item.skill.s AS product,
    CAST(item.amountcents.n AS DECIMAL(38, 0)) AS amount
  FROM card_sales_export
  WHERE snapshot = ?
)
SELECT
  day,
  channel,
  asset,
  product,
  count(*) AS count,
  CAST(sum(amount) AS VARCHAR) AS amount_atomic,
  CASE asset WHEN 'USD' THEN 2 ELSE 6 END AS decimals
FROM facts
GROUP BY day, channel, asset, product
ORDER BY day, channel, asset, product`;

/** Micro-dollars per cent: card amounts and Stripe's fees are in cents, the books' USD figures in micro-dollars. */
const CENT = 'CAST(10000 AS DECIMAL(38, 0))';
const ZERO = 'CAST(0 AS DECIMAL(38, 0))';
const NUM = (expr: string): string => `CAST(${expr} AS DECIMAL(38, 0))`;

/** The settlements that ended (settled or reverted), the only ones whose relayer paid gas. One `?`: the snapshot. */
const ENDED_SETTLEMENTS = `settlements AS (
  SELECT item FROM settlements_export WHERE snapshot = ? AND item.state.s IN ('settled', 'failed')
)`;

/**
 * The operator's escrow calls of the ended settlements as rows of `columns(step)`, one per mined
 * call (its gas is recorded, reverted or not), from the `settlements` CTE: a call's fields are
 * read by `f(step, field)`, in lower case like every struct field here.
 */
const escrowCalls = (columns: (step: EscrowStep, f: (field: string) => string) => string): string =>
  ESCROW_STEPS.map(
    (step) => `SELECT
    ${columns(step, (field) => `item.${step}${field}.s`)}
  FROM settlements
  WHERE item.state.s = 'settled' AND item.${step}gascostwei.s IS NOT NULL AND item.${step}gascostwei.s <> '0'`,
  ).join('\n  UNION ALL\n  ');

/**
 * What the x402 v2 channel cost: the relayer's gas by UTC day of the receipt, in wei (ETH on Base),
 * for the settlements that moved money (`settlements`: a transfer, or an escrowed payment's
 * authorize), for its transfers that reverted and moved nothing (`reverted`: a payer's funds left
 * first; docs/PAYMENTS.md), and for the operator's later calls on escrowed payments
 * (`escrow_calls`: capture, void, refund, each on the day of its own receipt). All are paid for.
 * Items without gas figures (a settlement that never sent anything) and the payer and hour items
 * beside the settlements (no `state`) are left out. One `?`: the snapshot.
 */
export const RELAYER_COST_SQL = `WITH ${ENDED_SETTLEMENTS},
spent AS (
  SELECT
    substr(item.finishedat.s, 1, 10) AS day, item.state.s AS kind,
    ${NUM('item.gasused.s')} AS gas_used, ${NUM('item.gascostwei.s')} AS gas_cost_wei
  FROM settlements
  WHERE item.gascostwei.s IS NOT NULL
  UNION ALL
  ${escrowCalls(
    (_, f) => `substr(coalesce(${f('finishedat')}, item.finishedat.s), 1, 10), 'escrow', ${NUM(f('gasused'))}, ${NUM(f('gascostwei'))}`,
  )}
)
SELECT
  day,
  count_if(kind = 'settled') AS settlements,
  count_if(kind = 'failed') AS reverted,
  count_if(kind = 'escrow') AS escrow_calls,
  CAST(sum(gas_used) AS VARCHAR) AS gas_used,
  CAST(sum(gas_cost_wei) AS VARCHAR) AS gas_cost_wei
FROM spent
GROUP BY day
ORDER BY day`;

/**
 * The books, one row per money event, as a CTE (`book`) both the transaction report and the net
 * rollup read. Every figure is an integer: `amount` in the row's currency unit (atomic USDC or
 * USDbC, cents, wei), the USD figures in micro-dollars (stablecoins at face value, cents × 10⁴,
 * the relayer's gas at the ETH/USD price recorded at settlement). Types:
 * - `sale`: a confirmed ledger row (x402 unlock, subscription period, meter top-up) or a card
 *   sale, with the processor's fee Stripe's balance transaction gave (null while Stripe has not
 *   given it, or when it is in another currency than USD: the row's net is then null too).
 * - `refund`: a card refund Stripe reported, or an operator's USDC refund recorded against a
 *   ledger row; `dispute_withdrawal` and `dispute_reinstatement`: a chargeback's money leaving and
 *   coming back, with Stripe's dispute fee. Each on the day it happened, so a closed month keeps its rows.
 * - `relayer_gas`: what a relayer transaction cost in ETH (settled or reverted), and in USD when
 *   the price was read (null otherwise). Its `step` says which: `transfer` (an `exact` payment's),
 *   `authorize` (an escrowed payment's, into the escrow), and the operator's later calls on an
 *   escrowed payment, each its own row on the day of its own receipt: `capture`, `void`, `refund`.
 * Every row names its `scheme` (on chain: `auth-capture` for an escrowed sale and its
 * transactions, `exact` otherwise; null for card) and its `sale`: the sale it belongs to by its
 * reference (the transfer or the escrow's authorize; the checkout session), null for a relayer
 * transaction that made no sale (a reverted transfer, a voided escrow payment), so a sale's whole
 * cost is the sum of its rows.
 * Three `?`: the snapshot of the ledger, the card sales and the settlements (the same value).
 */
/** A settlement's network, by the CAIP-2 id its key begins with, named as ledger rows name theirs (every network of the table). */
const SETTLEMENT_NETWORK = `CASE split_part(item.pk.s, '#', 1) ${Object.values(NETWORKS)
  .map((n) => `WHEN '${n.caip2}' THEN '${n.name}'`)
  .join(' ')} ELSE split_part(item.pk.s, '#', 1) END`;

/** An on-chain row's x402 scheme: `auth-capture` (escrowed), else `exact` (a transfer to the treasury). */
const SCHEME = `coalesce(item.scheme.s, 'exact')`;
/** A relayer transaction's sale: the transfer (or authorize) of a settled payment that no void undid. */
const SETTLED_SALE = `CASE WHEN item.state.s = 'settled' AND coalesce(item.escrowstage.s, '') NOT IN ('voiding', 'voided') THEN coalesce(item.transfertx.s, item.txhash.s) END`;

const BOOK_CTE = `ledger AS (
  SELECT item FROM ledger_export WHERE snapshot = ? AND item.status.s = 'confirmed'
),
card AS (
  SELECT item FROM card_sales_export WHERE snapshot = ?
),
${ENDED_SETTLEMENTS},
book AS (
  SELECT
    item.recordedat.s AS time, 'sale' AS type, ${LEDGER_CHANNEL} AS channel, item.asset.s AS currency,
    item.network.s AS chain, item.skill.s AS product, item.txhash.s AS reference, item.payer.s AS payer, CAST(NULL AS VARCHAR) AS country,
    ${NUM('item.amount.s')} AS amount, 6 AS decimals, ${NUM('item.amount.s')} AS gross,
    ${ZERO} AS fee, ${ZERO} AS gas_wei, ${ZERO} AS gas,
    ${SCHEME} AS scheme, CAST(NULL AS VARCHAR) AS step, item.txhash.s AS sale
  FROM ledger
  UNION ALL
  SELECT
    r.m.time.s, 'refund', ${LEDGER_CHANNEL}, item.asset.s,
    item.network.s, item.skill.s, r.m.tx.s, item.payer.s, CAST(NULL AS VARCHAR),
    -${NUM('r.m.amount.s')}, 6, -${NUM('r.m.amount.s')},
    ${ZERO}, ${ZERO}, ${ZERO},
    ${SCHEME}, CAST(NULL AS VARCHAR), item.txhash.s
  FROM ledger CROSS JOIN UNNEST(map_values(item.refunds.m)) AS t (r)
  UNION ALL
  SELECT
    item.recordedat.s, 'sale', 'card', 'USD',
    CAST(NULL AS VARCHAR), item.skill.s, item.id.s, CAST(NULL AS VARCHAR), item.buyercountry.s,
    ${NUM('item.amountcents.n')}, 2, ${NUM('item.amountcents.n')} * ${CENT},
    CASE WHEN lower(coalesce(item.feecurrency.s, 'usd')) = 'usd' THEN ${NUM('item.feecents.n')} * ${CENT} END, ${ZERO}, ${ZERO},
    CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR), item.id.s
  FROM card
  UNION ALL
  SELECT
    r.m.at.s, r.m.kind.s, 'card', 'USD',
    CAST(NULL AS VARCHAR), item.skill.s, item.id.s, CAST(NULL AS VARCHAR), item.buyercountry.s,
    -${NUM('r.m.amountcents.n')}, 2, -${NUM('r.m.amountcents.n')} * ${CENT},
    CASE WHEN lower(coalesce(r.m.feecurrency.s, item.feecurrency.s, 'usd')) = 'usd' THEN coalesce(${NUM('r.m.feecents.n')}, ${ZERO}) * ${CENT} END, ${ZERO}, ${ZERO},
    CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR), item.id.s
  FROM card CROSS JOIN UNNEST(map_values(item.reversals.m)) AS t (r)
  UNION ALL
  SELECT
    item.finishedat.s, 'relayer_gas', 'x402', 'ETH',
    ${SETTLEMENT_NETWORK}, item.skill.s, coalesce(item.transfertx.s, item.txhash.s), item.payer.s, CAST(NULL AS VARCHAR),
    ${NUM('item.gascostwei.s')}, 18, ${ZERO},
    ${ZERO}, ${NUM('item.gascostwei.s')}, ${NUM('item.gascostusdmicro.s')},
    ${SCHEME}, CASE WHEN item.scheme.s = 'auth-capture' THEN 'authorize' ELSE 'transfer' END, ${SETTLED_SALE}
  FROM settlements
  WHERE item.gascostwei.s IS NOT NULL AND item.gascostwei.s <> '0'
  UNION ALL
  ${escrowCalls(
    (step, f) => `coalesce(${f('finishedat')}, item.finishedat.s), 'relayer_gas', 'x402', 'ETH',
    ${SETTLEMENT_NETWORK}, item.skill.s, ${f('tx')}, item.payer.s, CAST(NULL AS VARCHAR),
    ${NUM(f('gascostwei'))}, 18, ${ZERO},
    ${ZERO}, ${NUM(f('gascostwei'))}, ${NUM(f('gascostusdmicro'))},
    'auth-capture', '${step}', ${step === 'void' ? 'CAST(NULL AS VARCHAR)' : 'item.txhash.s'}`,
  )}
)`;

/**
 * Finance's transaction-level report: every row of the books (see BOOK_CTE) with its figures as
 * integer text, in time order. `net_micro_usd` = gross − processor fee − gas, null when a cost is
 * not known in USD. Three `?`: the snapshot, three times.
 */
export const FINANCE_TRANSACTIONS_SQL = `WITH ${BOOK_CTE}
SELECT
  time,
  substr(time, 1, 10) AS day,
  type,
  step,
  channel,
  scheme,
  currency,
  chain,
  product,
  reference,
  sale,
  payer,
  country,
  CAST(amount AS VARCHAR) AS amount_atomic,
  decimals,
  CAST(gross AS VARCHAR) AS gross_micro_usd,
  CAST(fee AS VARCHAR) AS processor_fee_micro_usd,
  CAST(gas_wei AS VARCHAR) AS gas_wei,
  CAST(gas AS VARCHAR) AS gas_micro_usd,
  CAST(gross - fee - gas AS VARCHAR) AS net_micro_usd
FROM book
ORDER BY time, type, reference`;

/**
 * The net rollup: the books by UTC day and channel. `gross` is what sales took in, `refunds` what
 * refunds and disputes gave back (less what won disputes brought back), `fees` Stripe's, `gas` the
 * relayer's in USD, `net` = gross − refunds − fees − gas over the costs known in USD; `unpriced`
 * counts the rows whose fee or gas is not known in USD (not in `net`: see the transaction report).
 * Three `?`: the snapshot, three times.
 */
export const NET_ROLLUP_SQL = `WITH ${BOOK_CTE}
SELECT
  substr(time, 1, 10) AS day,
  channel,
  count_if(type = 'sale') AS sales,
  count_if(type IN ('refund', 'dispute_withdrawal')) AS reversals,
  CAST(sum(CASE WHEN type = 'sale' THEN gross ELSE ${ZERO} END) AS VARCHAR) AS gross_micro_usd,
  CAST(-sum(CASE WHEN type = 'sale' THEN ${ZERO} ELSE gross END) AS VARCHAR) AS refunds_micro_usd,
  CAST(coalesce(sum(fee), ${ZERO}) AS VARCHAR) AS fees_micro_usd,
  CAST(sum(gas_wei) AS VARCHAR) AS gas_wei,
  CAST(coalesce(sum(gas), ${ZERO}) AS VARCHAR) AS gas_micro_usd,
  CAST(sum(gross) - coalesce(sum(fee), ${ZERO}) - coalesce(sum(gas), ${ZERO}) AS VARCHAR) AS net_micro_usd,
  count_if(fee IS NULL OR gas IS NULL) AS unpriced
FROM book
GROUP BY substr(time, 1, 10), channel
ORDER BY day, channel`;

/**
 * The Athena named queries the stack creates in the finance workgroup (lib/constructs/finance-exports.ts),
 * each with its construct id (kept, so a deployed query is updated in place) and how many times
 * the snapshot is passed as an execution parameter.
 */
export const FINANCE_QUERIES = [
  {
    id: 'RevenueRollup',
    name: 'revenue-rollup',
    sql: REVENUE_ROLLUP_SQL,
    snapshotParameters: 2,
    description: 'Confirmed gross revenue by day, channel, asset and product, as GET /api/revenue?format=csv.',
  },
  {
    id: 'RelayerCost',
    name: 'relayer-cost',
    sql: RELAYER_COST_SQL,
    snapshotParameters: 1,
    description: "The x402 relayer's gas for settled and reverted signed authorizations, by day, in wei (ETH on Base).",
  },
  {
    id: 'FinanceTransactions',
    name: 'finance-transactions',
    sql: FINANCE_TRANSACTIONS_SQL,
    snapshotParameters: 3,
    description:
      'The books row by row: every sale, refund, dispute and relayer transaction with gross, processor fee, gas and net (micro-dollars).',
  },
  {
    id: 'NetRollup',
    name: 'net-rollup',
    sql: NET_ROLLUP_SQL,
    snapshotParameters: 3,
    description: 'The books by day and channel: sales, gross, refunds, processor fees, relayer gas and net (micro-dollars).',
  },
] as const;

/**
 * One line of the relayer cost: a day's settled x402 v2 payments (transfers and escrow
 * authorizes), its reverted transfers, the operator's escrow calls (capture, void, refund), and
 * the gas they all cost.
 */
export interface RelayerCostRow {
  day: string;
  settlements: number;
  reverted: number;
  escrow_calls: number;
  gas_used: string;
  gas_cost_wei: string;
  /** Exact decimal string. */
  gas_cost_eth: string;
}

/** One line of the revenue CSV: one day, channel, asset and product. */
export interface RevenueCsvRow {
  day: string;
  channel: string;
  asset: string;
  product: string;
  count: number;
  /** In the asset's unit (atomic USDC, or cents), as an integer string. */
  amount_atomic: string;
  decimals: number;
  /** Exact decimal string. */
  amount_usd: string;
}

/** The CSV's columns, in order: `GET /api/revenue?format=csv` and `npm run revenue` write the same. */
export const REVENUE_CSV_COLUMNS = ['day', 'channel', 'asset', 'product', 'count', 'amount_atomic', 'decimals', 'amount_usd'] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; CRLF line ends; null is an empty field. */
export function csv<C extends string>(columns: readonly C[], rows: readonly Readonly<Record<C, string | number | null>>[]): string {
  const field = (v: string | number | null): string => {
    const s = v === null ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${[columns.join(','), ...rows.map((r) => columns.map((c) => field(r[c])).join(','))].join('\r\n')}\r\n`;
}

export const revenueCsv = (rows: readonly RevenueCsvRow[]): string => csv(REVENUE_CSV_COLUMNS, rows);

/** One row of the books as finance reads it (FINANCE_TRANSACTIONS_SQL, amounts as exact decimal strings). */
export interface FinanceTransactionRow {
  time: string;
  day: string;
  type: 'sale' | 'refund' | 'dispute_withdrawal' | 'dispute_reinstatement' | 'relayer_gas';
  /** A relayer transaction's: `transfer`, `authorize`, `capture`, `void` or `refund`; null for the others. */
  step: 'transfer' | 'authorize' | EscrowStep | null;
  channel: string;
  /** On chain: `auth-capture` (an escrowed sale and its transactions) or `exact`; null for card. */
  scheme: 'exact' | 'auth-capture' | null;
  /** USDC, USDbC, USD (card) or ETH (the relayer's gas). */
  currency: string;
  /** The network an on-chain row's money moved on (`base`); null for card. */
  chain: string | null;
  product: string;
  /** The transaction hash (on chain) or our checkout session id (card). */
  reference: string;
  /** The reference of the sale the row belongs to; null for a relayer transaction that made none (reverted, voided). */
  sale: string | null;
  payer: string | null;
  /** The card's billing country Stripe reported (ISO 3166-1 alpha-2). */
  country: string | null;
  /** In `currency`: negative for money that went back. */
  amount: string;
  gross_usd: string;
  /** Null while Stripe has not given the fee, or when it is not in USD. */
  processor_fee_usd: string | null;
  gas_eth: string;
  /** Null when no ETH/USD price was recorded with the gas. */
  gas_usd: string | null;
  /** gross − processor fee − gas; null when one of them is not known in USD. */
  net_usd: string | null;
}

export const FINANCE_TRANSACTION_COLUMNS = [
  'time',
  'day',
  'type',
  'step',
  'channel',
  'scheme',
  'currency',
  'chain',
  'product',
  'reference',
  'sale',
  'payer',
  'country',
  'amount',
  'gross_usd',
  'processor_fee_usd',
  'gas_eth',
  'gas_usd',
  'net_usd',
] as const satisfies readonly (keyof FinanceTransactionRow)[];

/** One day and channel of the net rollup (NET_ROLLUP_SQL, amounts as exact decimal strings). */
export interface NetRollupRow {
  day: string;
  channel: string;
  sales: number;
  reversals: number;
  gross_usd: string;
  refunds_usd: string;
  fees_usd: string;
  gas_eth: string;
  gas_usd: string;
  net_usd: string;
  /** Rows whose fee or gas is not known in USD, so not in `net_usd`. */
  unpriced: number;
}

export const NET_ROLLUP_COLUMNS = [
  'day',
  'channel',
  'sales',
  'reversals',
  'gross_usd',
  'refunds_usd',
  'fees_usd',
  'gas_eth',
  'gas_usd',
  'net_usd',
  'unpriced',
] as const satisfies readonly (keyof NetRollupRow)[];

/** Every asset is a US dollar: amounts are summed across assets in micro-dollars (6 places). */
export const USD_PLACES = 6;
/** An amount in units of `decimals` places (atomic USDC, cents) in micro-dollars. */
export const toMicroUsd = (amount: bigint, decimals: number): bigint => amount * 10n ** BigInt(USD_PLACES - decimals);
/** Micro-dollars as the CSV's and the API's exact `amount_usd` string. */
export const usdString = (micro: bigint): string => formatDecimal(micro, USD_PLACES);
