/**
 * The layer rules are held by a tool, not by goodwill: this runs `depcruise` with the project's
 * own rules over a small tree that breaks each of them once, and over the real tree, which must
 * break none. See docs/ARCHITECTURE.md, "Where things go".
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function cruise(cwd: string, dirs: string[]): Promise<Violation[]> {
  return new Promise((resolve, reject) => {
    execFile(
      depcruise,
      [...dirs, '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        // depcruise exits non-zero when it finds violations; the JSON is still complete.
        try {
          resolve((JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations);
        } catch {
          reject(err ?? new Error('depcruise printed no JSON'));
        }
      },
    );
  });
}

/** A tree shaped like lambdas/, inside the project so that packages resolve from its node_modules. */
const fixture = mkdtempSync(join(root, 'test', '.tmp-layout-'));
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(fixture, path)), { recursive: true });
  writeFileSync(join(fixture, path), text);
}

describe('the layer rules', () => {
  it('fail on each kind of forbidden import', async () => {
    cpSync(join(root, 'tsconfig.json'), join(fixture, 'tsconfig.json'));
    write('lambdas/contract/chain.ts', 'export const CHAIN_ID = 8453;\n');
    write('lambdas/platform/http.ts', "import { CHAIN_ID } from '../contract/chain';\nexport const id = CHAIN_ID;\n");
    write('lambdas/payments/index.ts', "export { settle } from './core/settle';\n");
    // A core that imports viem and names an adapter.
    write(
      'lambdas/payments/core/settle.ts',
      "import { getAddress } from 'viem';\nimport { ledger } from '../adapters/ledger';\nexport const settle = () => [getAddress, ledger];\n",
    );
    write('lambdas/payments/adapters/ledger.ts', "import { getAddress } from 'viem';\nexport const ledger = getAddress;\n");
    // The facilitator reaching up into payments, even through its face; and payments using the facilitator's face (allowed).
    write('lambdas/facilitator/index.ts', "import { settle } from '../payments';\nexport const facilitate = settle;\n");
    write('lambdas/payments/relay.ts', "import { facilitate } from '../facilitator';\nexport const relay = facilitate;\n");
    // Reaches past payments' index into its core.
    write('lambdas/discovery/esp.ts', "import { settle } from '../payments/core/settle';\nexport const esp = settle;\n");
    // Through the index: allowed.
    write('lambdas/discovery/shop.ts', "import { settle } from '../payments';\nexport const shop = settle;\n");
    // A cycle, and deployed code importing the CDK app.
    write('lambdas/catalog/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
    write(
      'lambdas/catalog/b.ts',
      "import { a } from './a';\nimport { stack } from '../../lib/stack';\nexport const b = () => [a, stack];\n",
    );
    write('lib/stack.ts', 'export const stack = 1;\n');
    // Wiring: a route module reaching another domain's wiring, and an entry importing its own statically.
    write(
      'lambdas/payments/wiring.ts',
      "import { ledger } from './adapters/ledger';\nexport const paymentsPortsFromEnv = () => ({ ledger });\n",
    );
    write(
      'lambdas/discovery/health.ts',
      "import { paymentsPortsFromEnv } from '../payments/wiring';\nexport const health = paymentsPortsFromEnv;\n",
    );
    write(
      'lambdas/payments/handler.ts',
      "import { paymentsPortsFromEnv } from './wiring';\nexport const handler = paymentsPortsFromEnv;\n",
    );
    // Another domain's wiring building on payments' wiring (its face is the way), and a face importing its wiring statically.
    write(
      'lambdas/checkout/wiring.ts',
      "import { paymentsPortsFromEnv } from '../payments/wiring';\nexport const checkoutPortsFromEnv = paymentsPortsFromEnv;\n",
    );
    write('lambdas/insights/index.ts', "import { insightsPortsFromEnv } from './wiring';\nexport const ports = insightsPortsFromEnv;\n");
    write('lambdas/insights/wiring.ts', 'export const insightsPortsFromEnv = () => ({});\n');
    // Allowed: a face loading its wiring with import() for another function's composition, a wiring
    // building on that face, and an entry loading its wiring with import().
    write('lambdas/payments/index.ts', "export const paymentsPorts = () => import('./wiring').then((m) => m.paymentsPortsFromEnv());\n");
    write('lambdas/access/wiring.ts', "import { paymentsPorts } from '../payments';\nexport const accessPortsFromEnv = paymentsPorts;\n");
    write('lambdas/access/handler.ts', "export const handler = () => import('./wiring').then((m) => m.accessPortsFromEnv());\n");
    // Storefront browser code: a page script reaching node and viem, and the wallet purchase importing viem (allowed).
    write(
      'catalog/storefront/browser/home.ts',
      "import { readFileSync } from 'node:fs';\nimport { getAddress } from 'viem';\nexport const home = [readFileSync, getAddress];\n",
    );
    write(
      'catalog/storefront/browser/wallet-buy.ts',
      "import { getAddress } from 'viem';\nimport { CHAIN_ID } from '../../../lambdas/contract/chain';\nexport const buy = [getAddress, CHAIN_ID];\n",
    );

    const found = (await cruise(fixture, ['lambdas', 'lib', 'catalog'])).map(
      (v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`,
    );
    expect(found).toEqual(
      expect.arrayContaining([
        'domain-through-index-only: lambdas/discovery/esp.ts -> lambdas/payments/core/settle.ts',
        'facilitator-knows-no-domain: lambdas/facilitator/index.ts -> lambdas/payments/index.ts',
        expect.stringMatching(/^outside-services-only-in-adapters: lambdas\/payments\/core\/settle\.ts -> node_modules\/viem\//),
        'only-wiring-names-adapters: lambdas/payments/core/settle.ts -> lambdas/payments/adapters/ledger.ts',
        'lambdas-never-import-tooling: lambdas/catalog/b.ts -> lib/stack.ts',
        expect.stringMatching(/^no-cycles: lambdas\/catalog\/[ab]\.ts -> lambdas\/catalog\/[ab]\.ts$/),
        'wiring-is-loaded-on-first-use: lambdas/discovery/health.ts -> lambdas/payments/wiring.ts',
        'entries-load-wiring-lazily: lambdas/payments/handler.ts -> lambdas/payments/wiring.ts',
        'domain-through-index-only: lambdas/checkout/wiring.ts -> lambdas/payments/wiring.ts',
        'wiring-is-loaded-on-first-use: lambdas/checkout/wiring.ts -> lambdas/payments/wiring.ts',
        'entries-load-wiring-lazily: lambdas/insights/index.ts -> lambdas/insights/wiring.ts',
        'storefront-browser-code-runs-in-a-browser: catalog/storefront/browser/home.ts -> fs',
        expect.stringMatching(
          /^storefront-wallet-library-in-wallet-buy-only: catalog\/storefront\/browser\/home\.ts -> node_modules\/viem\//,
        ),
      ]),
    );
    // What the rules allow: an adapter importing viem, a domain using another through its index,
    // a wiring building on a lower domain's face, a face or an entry loading its wiring with import().
    expect(
      found.filter((f) =>
        [
          'adapters/ledger.ts ->',
          'discovery/shop.ts',
          'lambdas/access/',
          'lambdas/payments/index.ts ->',
          'payments/relay.ts',
          'wallet-buy.ts ->',
        ].some((allowed) => f.includes(allowed)),
      ),
    ).toEqual([]);
  }, 60_000);

  it('hold on the real tree', async () => {
    expect(await cruise(root, ['lambdas', 'lib', 'local', 'catalog', 'bin', 'bench'])).toEqual([]);
  }, 60_000);
});
