/**
 * The storefront as the catalog build writes it: a page per skill beside its outline and sample,
 * titles and descriptions on every page, pack text that can never become markup, and the
 * page-weight budget (catalog/storefront/budget.ts).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, type BuildResult } from '../../catalog/build';
import { VERSIONS_DIR } from '../../catalog/versions';
import {
  BUDGET,
  pageWeight,
  provenanceCheckWeight,
  walletPurchaseWeight,
  x402ClientWeight,
  type PageType,
} from '../../catalog/storefront/budget';
import { formatDay } from '../../catalog/storefront/browser/dates';
import { renderMarkdown } from '../../catalog/storefront/markdown';

let built: BuildResult;
const html = (path: string): string => {
  const file = built.publicFiles.get(path);
  if (file === undefined) throw new Error(`${path} was not built`);
  return file.toString();
};

beforeAll(async () => {
  built = await buildCatalog();
}, 60_000);

describe('the storefront pages', () => {
  it('has a page for every skill, beside its outline and sample, and a home and a ledger page', () => {
    for (const e of built.entries) {
      expect(built.publicFiles.has(`skills/${e.id}/index.html`), e.id).toBe(true);
      expect(built.publicFiles.has(`skills/${e.id}/outline.json`), e.id).toBe(true);
    }
    expect(html('index.html')).toContain('<form id="search"');
    expect(html('proof/index.html')).toContain('computed from the proof ledger, confirmed on-chain only');
  });

  it('gives every page its own title and a description', () => {
    const pages = [...built.publicFiles.keys()].filter(
      (p) => p.endsWith('index.html') && !p.startsWith('checkout/') && !p.startsWith('recover/'),
    );
    const titles = pages.map((p) => /<title>([^<]+)<\/title>/.exec(html(p))?.[1]);
    expect(titles.every(Boolean)).toBe(true);
    expect(new Set(titles).size).toBe(pages.length);
    for (const p of pages) expect(html(p), p).toMatch(/<meta name="description" content="[^"]{40,}">/);
  });

  it('lists every skill on the home page in the order /api/catalog answers without a query', () => {
    const ids = [...html('index.html').matchAll(/<li data-id="([^"]+)"/g)].map((m) => m[1]);
    const expected = [...built.entries].sort((a, b) => a.price_usd - b.price_usd || (a.id < b.id ? -1 : 1)).map((e) => e.id);
    expect(ids).toEqual(expected);
    // The canary is offered to agents' builders on /agents/, not to the people shopping on the home page.
    expect(html('agents/index.html')).toMatch(/First buy\?<\/b> <a href="\/skills\/agent-x402-first-buy\/">/);
    expect(html('index.html')).not.toMatch(/First buy|id="canary"/);
  });

  it('offers the card only for the card packs, at the card price, hidden until the shop says it takes cards, with the price difference explained', () => {
    expect(html('skills/csv-cleaner/index.html')).toContain(
      '<button type="button" id="pay-card" class="secondary" hidden>Pay by card, $10.00</button>',
    );
    expect(html('skills/csv-cleaner/index.html')).toMatch(
      /<span id="card-offer" hidden>Or \$10\.00 by card: a card payment carries a fixed processing fee on every sale/,
    );
    // Both halves of why: the card's fixed fee, and none on a USDC payment.
    expect(html('skills/csv-cleaner/index.html')).toContain("while a USDC payment on Base reaches the shop with no processor's fee");
    // Where both prices show, the explanation sits beside them, in the same sentence block.
    expect(html('skills/market-x402-merchant-os/index.html')).toMatch(
      /<p><span class="price">\$0\.099<[^\n]*<span id="card-offer" hidden>Or \$0\.99 by card: a card payment carries a fixed processing fee/,
    );
    expect(html('skills/agent-x402-first-buy/index.html')).not.toContain('id="pay-card"');
  });

  it("links the terms, privacy, refund and contact pages from every page's footer, and builds them", () => {
    const pages = [...built.publicFiles.keys()].filter((p) => p.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(250);
    for (const p of pages) {
      const footer = /<footer class="site">([\s\S]*)<\/footer>/.exec(html(p))?.[1] ?? '';
      for (const href of ['/terms/', '/privacy/', '/refunds/', '/contact/']) expect(footer, `${p} → ${href}`).toContain(`href="${href}"`);
    }
    for (const p of ['terms', 'privacy', 'refunds', 'contact']) expect(built.publicFiles.has(`${p}/index.html`), p).toBe(true);
  });

  it('builds the operator pages with placeholders by default, each marked not for publication', () => {
    for (const p of ['terms', 'privacy', 'refunds', 'contact'])
      expect(html(`${p}/index.html`), p).toContain('<b>Example operator, not for publication.</b>');
    expect(html('index.html')).not.toContain('Example operator');
  });

  it('references only assets the build wrote', () => {
    for (const [path, content] of built.publicFiles) {
      if (!path.endsWith('.html')) continue;
      for (const m of content.toString().matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g))
        expect(built.publicFiles.has(m[1]!), `${path} → ${m[1]}`).toBe(true);
    }
  });
});

describe("a skill page's version (issue 52)", () => {
  /** The text of an element by id, tags removed. */
  const text = (page: string, id: string): string | undefined => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(page)?.[1];

  it('shows the version on sale, its day, its scan and eval as recorded, and its digest under Details; provenance is checked, never claimed', () => {
    for (const [id, versions] of built.versions) {
      const page = html(`skills/${id}/index.html`);
      const current = versions.at(-1)!;
      expect(page, id).toContain(`<div class="facts" id="version" data-version="${current.version}">`);
      expect(page, id).toMatch(new RegExp(`Version<b>${current.version}</b><span class="note">published \\d{1,2} [A-Z][a-z]{2} \\d{4}<`));
      const security = current.checks.security.result;
      expect(page, id).toContain(
        `Security scan<b>${security.findings.length === 0 ? 'No findings' : `${security.findings.length} finding`}`,
      );
      expect(page, id).toContain(`Eval score<b>${current.checks.eval.result.score} / 100</b>`);
      // The digest printed is the seal of the pack sold, the one the signed statement must name.
      expect(text(page, 'version-digest'), id).toBe(`sha256:${built.packMeta.get(id)!.seal}`);
      expect(page.indexOf('id="version-digest"'), id).toBeGreaterThan(page.indexOf('<summary>Details: versions and provenance</summary>'));
      // Only the browser may say "Verified", after checking: the page as built says it is checking.
      expect(page, id).toContain('<b id="provenance" data-state="checking">Checking…</b>');
    }
  });

  it('lists the earlier versions with their days and digests once a skill is edited', async () => {
    const work = mkdtempSync(join(tmpdir(), 'storefront-versions-'));
    try {
      cpSync(fileURLToPath(new URL('../../catalog/skills', import.meta.url)), join(work, 'skills'), { recursive: true });
      const file = join(work, 'skills', 'data.json');
      const records = JSON.parse(readFileSync(file, 'utf8')) as { id: string; outcome: string }[];
      const edited = records[0]!;
      edited.outcome = `${edited.outcome} Now with a second pass over the edge cases.`;
      writeFileSync(file, JSON.stringify(records, null, 2));
      const again = await buildCatalog({
        skillsDir: join(work, 'skills'),
        versionsDir: VERSIONS_DIR,
        now: new Date('2026-12-01T09:00:00Z'),
      });
      expect(again.addedVersions.map((v) => v.skill_id)).toEqual([edited.id]);
      const page = again.publicFiles.get(`skills/${edited.id}/index.html`)!.toString();
      const [v1, v2] = again.versions.get(edited.id)!;
      expect(page).toContain('Version<b>2</b><span class="note">published 1 Dec 2026; 1 earlier version</span>');
      expect(text(page, 'version-digest')).toBe(`sha256:${v2!.digest}`);
      const rows = [...page.matchAll(/<tr><td>(\d+)[^<]*<\/td><td>([^<]+)<\/td><td><code>([^<]+)<\/code><\/td>/g)].map((m) => m.slice(1));
      expect(rows).toEqual([
        ['2', '1 Dec 2026', `sha256:${v2!.digest}`],
        ['1', formatDay(v1!.published), `sha256:${v1!.digest}`],
      ]);
      expect(page).toContain('<tr><td>2 (sold now)</td>');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('pack text on a page', () => {
  it('prints raw HTML as text and never links a script URL', () => {
    const out = renderMarkdown(
      '# Title\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) [ok](https://example.com)',
    );
    expect(out).not.toMatch(/<script|<img|href="javascript/i);
    expect(out).toContain('&lt;script&gt;');
    expect(out).toContain('<a href="https://example.com" rel="nofollow noopener noreferrer">ok</a>');
    expect(out).toContain('<h3>Title</h3>');
  });
});

describe('page weight (gzip bytes)', () => {
  it.each<PageType>(['home', 'skill', 'proof', 'recover', 'purchases', 'checkout-success'])('%s stays within its budget', (type) => {
    const path = {
      home: 'index.html',
      skill: 'skills/csv-cleaner/index.html',
      proof: 'proof/index.html',
      recover: 'recover/index.html',
      purchases: 'purchases/index.html',
      'checkout-success': 'checkout/success/index.html',
    }[type];
    const heaviest =
      type === 'skill' ? built.entries.map((e) => html(`skills/${e.id}/index.html`)).sort((a, b) => b.length - a.length)[0]! : html(path);
    const weight = pageWeight(heaviest, type, built.assets);
    expect(weight.html).toBeLessThanOrEqual(BUDGET[type].html);
    expect(weight.css).toBeLessThanOrEqual(BUDGET[type].css);
    expect(weight.js).toBeLessThanOrEqual(BUDGET[type].js);
    expect(weight.js).toBeGreaterThan(0);
  });

  it("loads the skill page's provenance check after the page, within its budget", () => {
    const weight = provenanceCheckWeight(built.assets);
    expect(weight).toBeGreaterThan(500);
    expect(weight).toBeLessThanOrEqual(BUDGET.provenanceCheck);
  });

  it('loads the wallet library only on "Pay with wallet", within its budget', () => {
    const weight = walletPurchaseWeight(built.assets);
    expect(weight).toBeGreaterThan(10_000);
    expect(weight).toBeLessThanOrEqual(BUDGET.walletPurchase);
    const x402 = x402ClientWeight(built.assets);
    expect(x402).toBeGreaterThan(10_000);
    expect(x402).toBeLessThanOrEqual(BUDGET.x402Client);
  });
});

describe('contrast (WCAG 2, AA for normal text: 4.5:1)', () => {
  const css = readFileSync(new URL('../../catalog/storefront/style.css', import.meta.url), 'utf8');
  const colour = (name: string): string => {
    const m = new RegExp(`--${name}:(#[0-9a-f]{6})`).exec(css);
    if (!m) throw new Error(`--${name} is not in style.css`);
    return m[1]!;
  };
  const luminance = (hex: string): number => {
    const [r, g, b] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const ratio = (a: string, b: string): number => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x! + 0.05) / (y! + 0.05);
  };

  it.each([
    ['ink', '#ffffff'],
    ['muted', '#ffffff'],
    ['link', '#ffffff'],
    ['muted', 'soft'],
    ['ink', 'busy-bg'],
    ['ok', 'ok-bg'],
    ['ink', 'err-bg'],
    ['ink', 'ok-bg'],
    ['ok', '#ffffff'],
    ['err', '#ffffff'],
  ])('--%s on %s', (fg, bg) => {
    expect(ratio(colour(fg), bg.startsWith('#') ? bg : colour(bg))).toBeGreaterThanOrEqual(4.5);
  });

  it('white on the buttons', () => {
    expect(ratio('#ffffff', colour('accent'))).toBeGreaterThanOrEqual(4.5);
  });
});
