/**
 * GET /api/revenue: the revenue rollup, confirmed only, read from the tallies: all-time totals
 * from the `TOTAL` item and one item per day of the window. By channel (x402 unlocks,
 * subscriptions, meters, card), asset and product, in the asset's own unit and in USD.
 * `?format=csv` gives the window's lines for spreadsheets; `npm run revenue` computes the same
 * CSV from a DynamoDB export, and a test holds the two equal.
 */
import { addDays, dayOf, daysBetween, isDay } from '../contract/days';
import { revenueCsv, toMicroUsd, usdString, type RevenueCsvRow } from '../contract/finance-export';
import { links } from '../contract/links';
import { invalidRequest } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { optionalString } from '../platform/query';
import { revenueLines, TALLY_DECIMALS, type Counters, type RevenueLine, type TallyAsset } from '../ledger';
import type { InsightsPorts } from './ports';

export const REVENUE_WINDOW = { defaultDays: 30, maxDays: 366 } as const;
const micro = (amount: bigint, asset: TallyAsset): bigint => toMicroUsd(amount, TALLY_DECIMALS[asset]);
/** Code-unit order, as SQL engines sort VARCHAR (`USDC` before `USDbC`); localeCompare would not agree. */
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function readDay(req: ApiRequest, name: 'from' | 'to'): string | undefined {
  const v = optionalString(req, name, { maxLength: 10 });
  if (v !== undefined && !isDay(v))
    throw invalidRequest(name, `\`${name}\` must be a UTC day, yyyy-mm-dd, got "${v}".`, `Example: ${name}=2026-11-01`);
  return v;
}

/** The window asked for: `to` defaults to today (UTC), `from` to 29 days before `to`; at most 366 days. */
export function readWindow(req: ApiRequest, now: Date): { from: string; to: string } {
  const to = readDay(req, 'to') ?? dayOf(now);
  const from = readDay(req, 'from') ?? addDays(to, -(REVENUE_WINDOW.defaultDays - 1));
  if (from > to) throw invalidRequest('from', `\`from\` (${from}) is after \`to\` (${to}).`, 'Give from ≤ to.');
  if (daysBetween(from, to) + 1 > REVENUE_WINDOW.maxDays)
    throw invalidRequest('from', `The window spans more than ${REVENUE_WINDOW.maxDays} days.`, 'Ask for a year or less at a time.');
  return { from, to };
}

const lineOut = (l: RevenueLine) => ({
  channel: l.channel,
  asset: l.asset,
  product: l.product,
  count: Number(l.count),
  amount_atomic: l.amount.toString(),
  decimals: TALLY_DECIMALS[l.asset],
  amount_usd: usdString(micro(l.amount, l.asset)),
});

/** Sums of lines grouped by `key`: count and USD. */
function groupBy<K extends string>(lines: readonly RevenueLine[], key: (l: RevenueLine) => K) {
  const out = new Map<K, { count: bigint; micro: bigint }>();
  for (const l of lines) {
    const g = out.get(key(l)) ?? { count: 0n, micro: 0n };
    g.count += l.count;
    g.micro += micro(l.amount, l.asset);
    out.set(key(l), g);
  }
  return [...out].sort(([a], [b]) => cmp(a, b));
}

/** Totals of a set of lines: overall, and by channel, asset and product. */
function summary(lines: readonly RevenueLine[]) {
  const all = groupBy(lines, () => 'all')[0]?.[1] ?? { count: 0n, micro: 0n };
  const byAsset = new Map<TallyAsset, bigint>();
  for (const l of lines) byAsset.set(l.asset, (byAsset.get(l.asset) ?? 0n) + l.amount);
  return {
    count: Number(all.count),
    amount_usd: usdString(all.micro),
    by_channel: groupBy(lines, (l) => l.channel).map(([channel, g]) => ({
      channel,
      count: Number(g.count),
      amount_usd: usdString(g.micro),
    })),
    by_asset: groupBy(lines, (l) => l.asset).map(([asset, g]) => ({
      asset,
      count: Number(g.count),
      amount_atomic: byAsset.get(asset)!.toString(),
      decimals: TALLY_DECIMALS[asset],
      amount_usd: usdString(g.micro),
    })),
    by_product: groupBy(lines, (l) => `${l.channel}|${l.product}`).map(([key, g]) => {
      const [channel, product] = key.split('|') as [string, string];
      return { channel, product, count: Number(g.count), amount_usd: usdString(g.micro) };
    }),
    lines: lines.map(lineOut),
  };
}

/** The window's lines, one per day, channel, asset and product, in CSV order. */
export function revenueRows(days: ReadonlyMap<string, Counters>): RevenueCsvRow[] {
  return [...days]
    .sort(([a], [b]) => cmp(a, b))
    .flatMap(([day, counters]) =>
      revenueLines(counters)
        .map((l) => ({ day, ...lineOut(l) }))
        .sort((a, b) => cmp(a.channel, b.channel) || cmp(a.asset, b.asset) || cmp(a.product, b.product)),
    );
}

export async function getRevenue(req: ApiRequest, ports: InsightsPorts): Promise<ApiResponse> {
  const format = optionalString(req, 'format', { maxLength: 10 }) ?? 'json';
  if (format !== 'json' && format !== 'csv')
    throw invalidRequest('format', `\`format\` must be json or csv, got "${format}".`, 'Use format=csv for a spreadsheet.');
  const { from, to } = readWindow(req, ports.now());
  const [totals, days] = await Promise.all([ports.figures.totals(), ports.figures.days(from, to)]);
  const rows = revenueRows(days);
  if (format === 'csv') {
    return {
      statusCode: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="revenue-${from}-to-${to}.csv"`,
        'cache-control': 'no-store',
      },
      body: revenueCsv(rows),
    };
  }
  const windowLines = [...days.values()].flatMap((c) => revenueLines(c));
  const merged = new Map<string, RevenueLine>();
  for (const l of windowLines) {
    const key = `${l.channel}|${l.asset}|${l.product}`;
    const m = merged.get(key) ?? { ...l, count: 0n, amount: 0n };
    m.count += l.count;
    m.amount += l.amount;
    merged.set(key, m);
  }
  const base = links(req.baseUrl);
  return json(200, {
    ok: true,
    source: 'tallies',
    basis:
      'Confirmed only: x402 unlocks, subscription periods and meter top-ups whose transfers are on the proof ledger and not dropped by a reorg, and card sales Stripe reported paid. Gross: refunds, disputes, fees and gas are not taken off (the books and the net rollup do that: npm run revenue -- <dir> --net). Nothing pending or estimated.',
    units: {
      USDC: { decimals: 6, unit: 'atomic units of USDC on Base' },
      USDbC: { decimals: 6, unit: 'atomic units of USDbC on Base' },
      USD: { decimals: 2, unit: 'US cents (card sales)' },
      amount_usd: 'exact decimal string; USDC and USDbC are counted at face value',
    },
    totals: summary(revenueLines(totals)),
    window: {
      from,
      to,
      ...summary([...merged.values()].sort((a, b) => cmp(a.channel, b.channel) || cmp(a.product, b.product) || cmp(a.asset, b.asset))),
    },
    by_day: [...days]
      .sort(([a], [b]) => cmp(a, b))
      .map(([day, counters]) => {
        const s = summary(revenueLines(counters));
        return { day, count: s.count, amount_usd: s.amount_usd, lines: s.lines };
      }),
    csv: base.revenue_csv(from, to),
    proof: base.proof,
    honesty:
      'Every figure is a sum of tally counters that the reconcile job checks against a recount of the ledger rows and card sales; a fresh instance reports zeros.',
  });
}
