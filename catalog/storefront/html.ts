/**
 * HTML for the pre-rendered storefront pages: one escaping rule for every text that reaches a page
 * (skill records, pack texts and build facts are data, never markup), and the shell every page shares.
 */
import { links } from '../../lambdas/contract/links';

const site = links('');

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML element or a quoted attribute. */
export const esc = (text: string | number): string => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The hashed asset URLs a page may reference (see assets.ts). */
export interface AssetUrls {
  css: string;
  /** Entry module per page script: its URL under /assets/. */
  scripts: Record<string, string>;
  /** The chunks each entry imports statically, preloaded so they load in parallel with the entry. */
  preloads: Record<string, string[]>;
}

export interface PageSpec {
  title: string;
  description: string;
  /** Which nav entry is the current page. */
  current?: 'skills' | 'proof' | 'purchases' | 'recover' | 'agents';
  body: string;
  /** The page's entry script, by name (assets.ts), if it has one. */
  script?: string;
}

/** A favicon inside the page: no extra request, and no 404 in the console for /favicon.ico. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%230b57d0'/%3E%3Cpath d='M4 8.5l2.5 2.5L12 5' stroke='white' stroke-width='2' fill='none'/%3E%3C/svg%3E";

const NAV: { id: NonNullable<PageSpec['current']>; href: string; label: string }[] = [
  { id: 'skills', href: '/', label: 'Skills' },
  { id: 'proof', href: '/proof/', label: 'Proof ledger' },
  { id: 'purchases', href: '/purchases/', label: 'My purchases' },
  { id: 'recover', href: '/recover/', label: 'Recover a purchase' },
  { id: 'agents', href: '/agents/', label: 'For agents' },
];

/**
 * A "Details" disclosure: what an engineer may want (chain ids, seals, API paths, where a figure is
 * computed) closed under the plain sentence a person reads first.
 */
export const details = (inner: string, summary = 'Details'): string =>
  `<details class="more"><summary>${esc(summary)}</summary>\n${inner}\n</details>`;

/** A whole page: title and description for search engines and link previews, the shared header and footer. */
export function page(spec: PageSpec, assets: AssetUrls): string {
  const script = spec.script ? assets.scripts[spec.script] : undefined;
  if (spec.script && !script) throw new Error(`no asset for script ${spec.script}`);
  const preloads = spec.script ? (assets.preloads[spec.script] ?? []) : [];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(spec.title)}</title>
<meta name="description" content="${esc(spec.description)}">
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="${assets.css}">
${preloads.map((p) => `<link rel="modulepreload" href="${p}">\n`).join('')}${script ? `<script type="module" src="${script}"></script>\n` : ''}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><nav aria-label="Site">
<a class="brand" href="/">Agent Skill Marketplace</a>
${NAV.map((n) => `<a href="${n.href}"${n.id === spec.current ? ' aria-current="page"' : ''}>${n.label}</a>`).join('\n')}
</nav></header>
<main id="main">
${spec.body}
</main>
<footer class="site"><p>Sealed skill packs for software agents and the people who run them. Paid in USDC on Base, or by card for a
few packs. Every USDC payment is a row on the public <a href="/proof/">proof ledger</a>; card payments are kept by the card
processor and counted on each skill's page. <a href="/agents/">For agents and developers</a>: the same shop over HTTP.</p>
<nav aria-label="About the shop"><a href="${site.terms_page}">Terms</a> · <a href="${site.privacy_page}">Privacy</a> · <a href="${site.refunds_page}">Refunds</a> · <a href="${site.contact_page}">Contact</a></nav></footer>
</body>
</html>
`;
}
