/**
 * Who runs the store: the operator settings' rules (lambdas/contract/operator.ts) and the terms,
 * privacy, refund and contact pages rendered from them (catalog/storefront/operator-pages.ts).
 * Every operator fact on a page comes from a setting; with any placeholder each page says it is
 * an example not for publication, with real settings none does.
 */
import { describe, expect, it } from 'vitest';
import { OPERATOR_SETTINGS, PLACEHOLDER_OPERATOR, readOperator } from '../../lambdas/contract/operator';
import type { AssetUrls } from '../../catalog/storefront/html';
import { renderOperatorPages } from '../../catalog/storefront/operator-pages';

const assets: AssetUrls = { css: '/assets/style-test.css', scripts: {}, preloads: {} };

const REAL = {
  legalName: 'Zebra & Sons Trading GmbH',
  email: 'help@zebra-sons.example.com',
  postalAddress: 'Musterstraße 7, 10115 Berlin, Germany',
  jurisdiction: 'Germany',
  refundDays: '30',
  supportHours: 'Monday to Friday, 09:00 to 17:00 CET',
};

const pages = (reading = readOperator(REAL)): Map<string, string> => new Map(renderOperatorPages(reading, assets));

describe('operator settings', () => {
  it('takes each given value, and a placeholder for each missing or blank one, named', () => {
    const { supportHours: _left, ...given } = REAL;
    const reading = readOperator({ ...given, postalAddress: '  ' });
    expect(reading.problems).toEqual([]);
    expect(reading.placeholders).toEqual(['postalAddress', 'supportHours']);
    expect(reading.operator.legalName).toBe(REAL.legalName);
    expect(reading.operator.refundDays).toBe(30);
    expect(reading.operator.postalAddress).toBe(OPERATOR_SETTINGS.postalAddress.placeholder);
    expect(readOperator(REAL).placeholders).toEqual([]);
    expect(PLACEHOLDER_OPERATOR.placeholders).toEqual(Object.keys(OPERATOR_SETTINGS));
  });

  it('refuses a bad value instead of replacing it: an email that is none, days that are no whole number up to 365, a second line', () => {
    const { problems } = readOperator({ ...REAL, email: 'help at zebra', refundDays: '14.5', postalAddress: 'Line 1\nLine 2' });
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/operatorEmail is not an email address/);
    expect(problems.join('\n')).toMatch(/operatorRefundDays must be a whole number/);
    expect(problems.join('\n')).toMatch(/operatorPostalAddress must be one line/);
    expect(readOperator({ ...REAL, refundDays: '366' }).problems).toHaveLength(1);
    expect(readOperator({ ...REAL, refundDays: '0' }).problems).toEqual([]);
  });
});

describe('the operator pages', () => {
  it('are the terms, privacy, refund and contact pages, each with its own title', () => {
    const built = pages();
    expect([...built.keys()]).toEqual(['terms/index.html', 'privacy/index.html', 'refunds/index.html', 'contact/index.html']);
    const titles = [...built.values()].map((html) => /<title>([^<]+)<\/title>/.exec(html)?.[1]);
    expect(new Set(titles).size).toBe(4);
  });

  it('carry the settings, escaped, where each page needs them', () => {
    const built = pages();
    const escapedName = 'Zebra &amp; Sons Trading GmbH';
    expect(built.get('terms/index.html')).toContain(`The seller is ${escapedName}, Musterstraße 7, 10115 Berlin, Germany`);
    expect(built.get('terms/index.html')).toContain('governed by the law of Germany');
    expect(built.get('privacy/index.html')).toContain(`The controller is ${escapedName}`);
    expect(built.get('refunds/index.html')).toContain('Within 30 days of a card purchase you may ask for a refund');
    expect(built.get('refunds/index.html')).toContain('mailto:help@zebra-sons.example.com');
    expect(built.get('contact/index.html')).toContain('<li>Support hours: Monday to Friday, 09:00 to 17:00 CET</li>');
    for (const html of built.values()) expect(html).not.toContain('Zebra & Sons');
  });

  it('say card purchases are not refunded when the window is 0 days, and never promise one for a USDC transfer', () => {
    const refunds = pages(readOperator({ ...REAL, refundDays: '0' })).get('refunds/index.html')!;
    expect(refunds).toContain('Card purchases are not refunded, except where the law gives you a right to one');
    expect(refunds).not.toMatch(/Within \d+ days?/);
    expect(refunds).toContain("the shop's software never sends one back");
  });

  it('with every setting given show no placeholder and no notice', () => {
    for (const [path, html] of pages()) {
      expect(html, path).not.toContain('id="placeholder-operator"');
      expect(html, path).not.toContain('placeholder');
      expect(html, path).not.toContain('example.invalid');
    }
  });

  it('with any placeholder open with a visible "example operator, not for publication" notice naming the keys to set', () => {
    for (const [path, html] of pages(PLACEHOLDER_OPERATOR)) {
      expect(html, path).toMatch(
        /<main id="main">\n<p class="callout" id="placeholder-operator"><b>Example operator, not for publication\.<\/b>/,
      );
      for (const spec of Object.values(OPERATOR_SETTINGS)) expect(html, path).toContain(`<code>${spec.context}</code>`);
    }
    const one = pages(readOperator({ ...REAL, jurisdiction: '' }));
    for (const [path, html] of one) {
      expect(html, path).toContain('Example operator, not for publication.');
      expect(html, path).toContain('(<code>operatorJurisdiction</code> not set)');
    }
  });
});
