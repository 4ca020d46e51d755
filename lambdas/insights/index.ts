/**
 * The public face of the insights domain. Nothing outside it needs its code: its routes are
 * reached through its handler, and what it shares with the export rollup (the CSV) is in
 * contract/finance-export.ts.
 */
export { REVENUE_WINDOW } from './revenue';
