/**
 * The arithmetic of bench/x402-reference.ts: what a seller's rounds add up to, the ratios of
 * issue 38's table, and which of its goals the figures meet. Pure, so a test can check it.
 */
import { percentile } from './harness';

/** What one seller's rounds at one concurrency measured. */
export interface Tally {
  /** Purchases tried. */
  attempts: number;
  /** Purchases that did not end in a 200 with the resource (thrown, timed out, or any other status). */
  failures: number;
  /** The whole wrapped fetch of each successful purchase, ms. */
  latencies: number[];
  /** Wall time of the rounds, ms. */
  wallMs: number;
  /** The seller process's CPU time (user + system) over its rounds, ms. */
  cpuMs: number;
  /** JSON-RPC HTTP requests at the seller's proxy during its rounds. */
  rpcRequests: number;
  /** JSON-RPC methods at the seller's proxy during its rounds (a batch counts each call). */
  methods: Record<string, number>;
}

export const emptyTally = (): Tally => ({ attempts: 0, failures: 0, latencies: [], wallMs: 0, cpuMs: 0, rpcRequests: 0, methods: {} });

export interface Figures {
  rpcPerPurchase: number;
  p50Ms: number;
  perSecond: number;
  cpuMsPerPurchase: number;
  failed: number;
  attempts: number;
}

/** Per purchase tried: RPC requests and CPU; per second: successful purchases over the rounds' wall time. */
export function figures(t: Tally): Figures {
  const done = t.attempts - t.failures;
  return {
    rpcPerPurchase: t.attempts ? t.rpcRequests / t.attempts : NaN,
    p50Ms: t.latencies.length
      ? percentile(
          [...t.latencies].sort((a, b) => a - b),
          50,
        )
      : NaN,
    perSecond: t.wallMs ? done / (t.wallMs / 1000) : NaN,
    cpuMsPerPurchase: t.attempts ? t.cpuMs / t.attempts : NaN,
    failed: t.failures,
    attempts: t.attempts,
  };
}

/** project ÷ reference; NaN when the reference measured nothing. */
export const ratio = (project: number, reference: number): number => (reference > 0 ? project / reference : NaN);

export interface Goal {
  goal: string;
  met: boolean;
}

/** Issue 38's goal 3, from the figures at concurrency 1 and 8 (the reference given the nonce manager at 8). */
export function goals(at1: { project: Figures; reference: Figures }, at8: { project: Figures; reference: Figures }): Goal[] {
  return [
    { goal: 'paid request p50 ≤ 1.2× the reference at concurrency 1', met: ratio(at1.project.p50Ms, at1.reference.p50Ms) <= 1.2 },
    { goal: 'paid request p50 ≤ 1.2× the reference at concurrency 8', met: ratio(at8.project.p50Ms, at8.reference.p50Ms) <= 1.2 },
    {
      goal: 'purchases per second ≥ the reference (nonce manager) at concurrency 8',
      met: at8.project.perSecond >= at8.reference.perSecond,
    },
    {
      goal: 'JSON-RPC requests per purchase ≤ the reference at concurrency 1',
      met: at1.project.rpcPerPurchase <= at1.reference.rpcPerPurchase,
    },
    { goal: '0 failed purchases (the project, at 1 and 8)', met: at1.project.failed === 0 && at8.project.failed === 0 },
  ];
}

const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** One cell of the table: the ratio, then the two figures. */
function cell(project: number, reference: number, digits: number, unit = ''): string {
  return `${fixed(ratio(project, reference), 2)} (${fixed(project, digits)} vs ${fixed(reference, digits)}${unit})`;
}

/** Issue 38's table, project ÷ reference, with the figures beside each ratio. */
export function table(at1: { project: Figures; reference: Figures }, at8: { project: Figures; reference: Figures }): string {
  const row = (name: string, f: (x: Figures) => number, digits: number, unit = ''): string =>
    `| ${name} | ${cell(f(at1.project), f(at1.reference), digits, unit)} | ${cell(f(at8.project), f(at8.reference), digits, unit)} |`;
  return [
    "| project ÷ reference | concurrency 1 | concurrency 8 (reference given viem's `nonceManager`) |",
    '|---|---|---|',
    row('JSON-RPC requests per purchase', (x) => x.rpcPerPurchase, 1),
    row('paid request p50', (x) => x.p50Ms, 0, ' ms'),
    row('purchases per second', (x) => x.perSecond, 1),
    row('server CPU per purchase', (x) => x.cpuMsPerPurchase, 1, ' ms'),
    `| failed purchases (project vs reference) | ${at1.project.failed}/${at1.project.attempts} vs ${at1.reference.failed}/${at1.reference.attempts} | ${at8.project.failed}/${at8.project.attempts} vs ${at8.reference.failed}/${at8.reference.attempts} |`,
  ].join('\n');
}
