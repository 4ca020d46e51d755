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
import { CARD_SALES_TABLE, LEDGER_TABLE, SETTLEMENTS_TABLE, type TableDefinition } from './tables';

/** The fields of an exported item the rollup reads, each with its DynamoDB type descriptor. */
export interface ExportedTable {
  table: TableDefinition;
  /** S3 prefix of its exports: `<prefix>/<snapshot>/AWSDynamoDB/<export id>/…`. */
  prefix: string;
  /** The name the SQL reads it by: a Glue table in AWS, a DuckDB view locally. */
  view: string;
  fields: Readonly<Record<string, 'S' | 'N'>>;
}

export const EXPORTED_TABLES: readonly ExportedTable[] = [
  {
    table: LEDGER_TABLE,
    prefix: 'ledger',
    view: 'ledger_export',
    fields: { pk: 'S', kind: 'S', skill: 'S', amount: 'S', asset: 'S', status: 'S', recordedAt: 'S' },
  },
  {
    table: CARD_SALES_TABLE,
    prefix: 'card-sales',
    view: 'card_sales_export',
    fields: { id: 'S', skill: 'S', amountCents: 'N', status: 'S', recordedAt: 'S', buyerCountry: 'S' },
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
      ethUsdFeed: 'S',
      ethUsdRound: 'S',
      ethUsdAnswer: 'S',
      ethUsdDecimals: 'N',
      ethUsdUpdatedAt: 'S',
      gasCostUsdMicro: 'S',
    },
  },
];

/** The Glue (Hive) type of the `item` column: `struct<kind:struct<s:string>,…>`. */
export const glueItemType = (t: ExportedTable): string =>
  `struct<${Object.entries(t.fields)
    .map(([name, type]) => `${name.toLowerCase()}:struct<${type.toLowerCase()}:string>`)
    .join(',')}>`;

/** The DuckDB type of the `Item` column: `STRUCT("kind" STRUCT("S" VARCHAR), …)`. */
export const duckItemType = (t: ExportedTable): string =>
  `STRUCT(${Object.entries(t.fields)
    .map(([name, type]) => `"${name}" STRUCT("${type}" VARCHAR)`)
    .join(', ')})`;

/** When the daily export runs (UTC), as an EventBridge Scheduler cron expression. */
export const EXPORT_SCHEDULE_CRON = 'cron(0 3 * * ? *)';

/**
 * The revenue rollup, confirmed only: ledger rows whose status is `confirmed` (by kind: x402
 * unlocks, subscription periods, meter top-ups) and card sales (in cents, gross: a sale later
 * refunded or disputed is still a sale of its day, as the figures count it), by UTC day,
 * channel, asset and product. Each `?` is the snapshot to read (the same value twice: the
 * ledger's, then the card sales'), which in AWS is the export's scheduled time.
 */
export const REVENUE_ROLLUP_SQL = `WITH facts AS (
  SELECT
    substr(item.recordedat.s, 1, 10) AS day,
    CASE coalesce(item.kind.s, 'unlock')
      WHEN 'unlock' THEN 'x402'
      WHEN 'subscription' THEN 'subscriptions'
      WHEN 'meter_top_up' THEN 'meters'
    END AS channel,
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

/**
 * What the x402 v2 channel cost: the relayer's gas by UTC day of the receipt, in wei (ETH on Base),
 * for the settlements that moved money (`settlements`) and for its transfers that reverted and
 * moved nothing (`reverted`: a payer's funds left first; docs/PAYMENTS.md). Both are paid for.
 * Items without gas figures (a settlement that never sent anything) and the payer and hour items
 * beside the settlements (no `state`) are left out. One `?`: the snapshot.
 */
export const RELAYER_COST_SQL = `SELECT
  substr(item.finishedat.s, 1, 10) AS day,
  count_if(item.state.s = 'settled') AS settlements,
  count_if(item.state.s = 'failed') AS reverted,
  CAST(sum(CAST(item.gasused.s AS DECIMAL(38, 0))) AS VARCHAR) AS gas_used,
  CAST(sum(CAST(item.gascostwei.s AS DECIMAL(38, 0))) AS VARCHAR) AS gas_cost_wei
FROM settlements_export
WHERE snapshot = ? AND item.state.s IN ('settled', 'failed') AND item.gascostwei.s IS NOT NULL
GROUP BY substr(item.finishedat.s, 1, 10)
ORDER BY day`;

/** One line of the relayer cost: a day's settled x402 v2 payments, its reverted transfers, and the gas they cost. */
export interface RelayerCostRow {
  day: string;
  settlements: number;
  reverted: number;
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

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; CRLF line ends. */
export function revenueCsv(rows: readonly RevenueCsvRow[]): string {
  const field = (v: string | number): string => {
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${[REVENUE_CSV_COLUMNS.join(','), ...rows.map((r) => REVENUE_CSV_COLUMNS.map((c) => field(r[c])).join(','))].join('\r\n')}\r\n`;
}

/** Every asset is a US dollar: amounts are summed across assets in micro-dollars (6 places). */
export const USD_PLACES = 6;
/** An amount in units of `decimals` places (atomic USDC, cents) in micro-dollars. */
export const toMicroUsd = (amount: bigint, decimals: number): bigint => amount * 10n ** BigInt(USD_PLACES - decimals);
/** Micro-dollars as the CSV's and the API's exact `amount_usd` string. */
export const usdString = (micro: bigint): string => formatDecimal(micro, USD_PLACES);
