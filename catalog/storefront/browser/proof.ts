/**
 * The proof ledger for people: unlocks and volume per day as SVG bar charts drawn from
 * /api/revenue (x402 unlocks only: transfers verified on chain and not reorged), and the newest
 * rows of /api/proof, each linked to the block explorer the deployment names (`explorer_url`;
 * none locally). `?skill=<id>` narrows both to one skill.
 */
import { call, explain, isFailure } from './api';
import { formatDay, formatTime } from './dates';
import { byId, el, markReady, short } from './dom';

interface Row {
  txHash: string;
  skill: string;
  amount_usd: number;
  asset: string;
  payer: string;
  block: number;
  time: string;
}
interface ProofAnswer {
  confirmed: number;
  explorer_url?: string | null;
  recent_unlocks: Row[];
  next_cursor: string | null;
}
interface RevenueAnswer {
  window: { from: string; to: string };
  by_day: { day: string; lines: { channel: string; product: string; count: number; amount_usd: string }[] }[];
}

/** The revenue channel of skills bought on chain (lambdas/payments tallies). */
const ON_CHAIN_UNLOCKS = 'x402';

const skill = new URLSearchParams(location.search).get('skill') ?? '';
const scope = skill ? `&skill=${encodeURIComponent(skill)}` : '';
let explorer: string | null = null;

function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The labels' size in CSS pixels: the charts are drawn at their container's width, so it is the size a person reads, phone or desktop. */
const LABEL_PX = 13;

/**
 * A bar per day; the tallest bar and the axis ends are labelled, every bar has a tooltip (its <title>).
 * Drawn `width` units wide for a box that many pixels wide, so a label is LABEL_PX on screen
 * (a 720-unit chart shrunk onto a phone made its labels about 6 px).
 */
function barChart(label: string, series: { day: string; value: number }[], format: (v: number) => string, width: number): SVGElement {
  const height = 180;
  const left = 8;
  const bottom = LABEL_PX + 12;
  const top = LABEL_PX + 8;
  const max = Math.max(0, ...series.map((s) => s.value));
  const step = (width - left * 2) / Math.max(series.length, 1);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'chart', role: 'img', 'aria-label': label });
  chart.append(svg('title', {}, label));
  series.forEach((s, i) => {
    const h = max > 0 ? ((height - bottom - top) * s.value) / max : 0;
    const bar = svg('rect', { x: left + i * step + 1, y: height - bottom - h, width: Math.max(step - 2, 1), height: h });
    bar.append(svg('title', {}, `${formatDay(s.day)}: ${format(s.value)}`));
    chart.append(bar);
  });
  chart.append(svg('line', { x1: left, x2: width - left, y1: height - bottom, y2: height - bottom, stroke: '#8a8a8a' }));
  const text = (attrs: Record<string, string | number>, t: string) => svg('text', { 'font-size': LABEL_PX, ...attrs }, t);
  if (series.length) {
    chart.append(text({ x: left, y: height - 6 }, formatDay(series[0]!.day)));
    chart.append(text({ x: width - left, y: height - 6, 'text-anchor': 'end' }, formatDay(series.at(-1)!.day)));
  }
  chart.append(text({ x: left, y: LABEL_PX + 2 }, max > 0 ? `max ${format(max)} per day` : 'none in this window'));
  return chart;
}

/** The days drawn last, to draw again at a new width when the window is resized (a phone turned). */
let drawn: { day: string; count: number; usd: number }[] = [];

function drawCharts(): void {
  const box = byId('charts');
  const width = Math.round(Math.min(960, Math.max(280, box.clientWidth || 720)));
  box.replaceChildren(
    barChart(
      'Unlocks per day',
      drawn.map((s) => ({ day: s.day, value: s.count })),
      (v) => `${v} unlock${v === 1 ? '' : 's'}`,
      width,
    ),
    barChart(
      'Volume per day in USD',
      drawn.map((s) => ({ day: s.day, value: s.usd })),
      (v) => `$${v.toFixed(3)}`,
      width,
    ),
  );
}

async function charts(): Promise<void> {
  const answer = await call<RevenueAnswer>('/api/revenue');
  if (isFailure(answer.body)) throw new Error(explain(answer.body));
  const { window, by_day } = answer.body;
  const byDay = new Map(
    by_day.map((d) => [d.day, d.lines.filter((l) => l.channel === ON_CHAIN_UNLOCKS && (!skill || l.product === skill))]),
  );
  drawn = days(window.from, window.to).map((day) => {
    const lines = byDay.get(day) ?? [];
    return { day, count: lines.reduce((n, l) => n + l.count, 0), usd: lines.reduce((n, l) => n + Number(l.amount_usd), 0) };
  });
  const count = drawn.reduce((n, s) => n + s.count, 0);
  const usd = drawn.reduce((n, s) => n + s.usd, 0);
  byId('window').textContent =
    `${formatDay(window.from)} to ${formatDay(window.to)}: ${count} unlock${count === 1 ? '' : 's'}, $${usd.toFixed(usd < 1 && usd > 0 ? 3 : 2)}`;
  drawCharts();
}

let resizing: ReturnType<typeof setTimeout> | undefined;
addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => drawn.length && drawCharts(), 150);
});

const link = (href: string | null, text: string, title: string): Node =>
  href ? el('a', { href, rel: 'noopener', title }, text) : el('code', { title }, text);

function rowOf(r: Row): HTMLTableRowElement {
  return el(
    'tr',
    { 'data-tx': r.txHash },
    el('td', {}, formatTime(r.time)),
    el('td', {}, el('a', { href: `/skills/${r.skill}/` }, r.skill)),
    el('td', {}, `$${r.amount_usd} ${r.asset}`),
    el('td', {}, link(explorer && `${explorer}/address/${r.payer}`, short(r.payer), r.payer)),
    el('td', {}, link(explorer && `${explorer}/tx/${r.txHash}`, short(r.txHash), r.txHash)),
    el('td', {}, String(r.block)),
  );
}

async function rows(cursor?: string): Promise<void> {
  const answer = await call<ProofAnswer>(`/api/proof?limit=20${scope}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  if (isFailure(answer.body)) throw new Error(explain(answer.body));
  const proof = answer.body;
  explorer = proof.explorer_url ?? null;
  if (!cursor) {
    byId('confirmed').textContent = String(proof.confirmed);
    byId('explorer-note').textContent = explorer
      ? `Transactions and payers link to ${explorer}.`
      : 'This deployment names no block explorer (a local chain): hashes are shown in full on hover.';
  }
  byId('rows').append(...proof.recent_unlocks.map(rowOf));
  byId('empty').hidden = byId('rows').children.length > 0;
  const more = byId<HTMLButtonElement>('more');
  more.hidden = !proof.next_cursor;
  more.onclick = () => {
    more.disabled = true;
    void rows(proof.next_cursor!)
      .catch(failed)
      .finally(() => (more.disabled = false));
  };
}

function failed(e: unknown): void {
  byId('load-note').textContent = `The ledger could not be read: ${e instanceof Error ? e.message : String(e)} Reload to try again.`;
}

if (skill) {
  byId('scope').replaceChildren(
    'Showing ',
    el('a', { href: `/skills/${skill}/` }, skill),
    ' only. ',
    el('a', { href: '/proof/' }, 'Show every skill'),
  );
  document.title = `Proof ledger: ${skill} · Agent Skill Marketplace`;
}
void Promise.all([rows(), charts()]).catch(failed);
markReady();
