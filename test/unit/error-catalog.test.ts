/**
 * One error catalog (issue 32, goal 2): every code is written once, in the catalog of the layer or
 * domain that owns it, with its status, message and tip; the platform names no domain's code;
 * throw sites name a code instead of building an error (the linter refuses `new AppError` in
 * lambdas/), and every code is documented.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { PLATFORM_ERRORS } from '../../lambdas/platform/errors';
import { CATALOG_ERRORS } from '../../lambdas/catalog/errors';
import { PAYMENT_ERRORS } from '../../lambdas/payments/errors';
import { ACCESS_ERRORS } from '../../lambdas/access/errors';
import { CHECKOUT_ERRORS } from '../../lambdas/checkout/errors';

const CATALOGS = {
  platform: PLATFORM_ERRORS,
  catalog: CATALOG_ERRORS,
  payments: PAYMENT_ERRORS,
  access: ACCESS_ERRORS,
  checkout: CHECKOUT_ERRORS,
};
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the error catalogs', () => {
  it('write each code once, with a status, a message and a tip', () => {
    const owners = new Map<string, string[]>();
    for (const [owner, catalog] of Object.entries(CATALOGS)) {
      for (const [code, spec] of Object.entries(catalog.specs)) {
        owners.set(code, [...(owners.get(code) ?? []), owner]);
        expect(spec.status, code).toBeGreaterThanOrEqual(400);
        expect(spec.message.length, code).toBeGreaterThan(0);
        expect(spec.tip.length, code).toBeGreaterThan(0);
      }
    }
    for (const [code, where] of owners) expect(where, code).toHaveLength(1);
    // The spec's own codes, each in the catalog of the domain that owns what it is about.
    expect(owners.get('SKILL_REQUIRED')).toEqual(['catalog']);
    for (const code of [
      'PAYMENT_REQUIRED',
      'PROOF_REQUIRED',
      'PAYMENT_VERIFICATION_FAILED',
      'INVALID_LICENSE',
      'AP2_MANDATE_REJECTED',
      'PAYMENTS_DISABLED',
    ])
      expect(owners.get(code), code).toEqual(['payments']);
    for (const code of ['not_found', 'INTERNAL_ERROR']) expect(owners.get(code), code).toEqual(['platform']);
  });

  it('build the failure a throw site names, with its detail over the catalog default', () => {
    const e = PAYMENT_ERRORS.PAYMENT_VERIFICATION_FAILED({ message: 'not mined yet', retry: true, details: { reason: 'not_found' } });
    expect(e).toMatchObject({ status: 402, code: 'PAYMENT_VERIFICATION_FAILED', message: 'not mined yet', retry: true });
    expect(e.tip).toBe(PAYMENT_ERRORS.specs.PAYMENT_VERIFICATION_FAILED.tip);
    expect(CHECKOUT_ERRORS.CHECKOUT_SESSION_CLOSED({ status: 405 }).status).toBe(405);
    expect(PLATFORM_ERRORS.INTERNAL_ERROR().retry).toBe(true);
  });

  it('are documented: every code is named in docs', () => {
    const docs = ['ARCHITECTURE', 'SECURITY', 'CHECKOUT', 'ACCESS', 'PAYMENTS'].map((d) => readFileSync(`docs/${d}.md`, 'utf8')).join('\n');
    for (const catalog of Object.values(CATALOGS))
      for (const code of Object.keys(catalog.specs)) expect(docs, code).toContain(`\`${code}\``);
  });

  it('is the only way to build a failure in lambdas/: the linter refuses `new AppError` anywhere else', async () => {
    const eslint = new ESLint({ cwd: root });
    const code =
      "import { AppError } from '../platform/errors';\nexport const e = new AppError({ status: 400, code: 'X', message: 'm', tip: 't' });\n";
    const [outside] = await eslint.lintText(code, { filePath: `${root}lambdas/catalog/made-up.ts` });
    expect(outside!.messages.map((m) => m.ruleId)).toContain('no-restricted-syntax');
    const [inside] = await eslint.lintText(code.replace("'../platform/errors'", "'./json'"), {
      filePath: `${root}lambdas/platform/errors.ts`,
    });
    expect(inside!.messages.filter((m) => m.ruleId === 'no-restricted-syntax')).toEqual([]);
  });
});
