// Code rules. The layer rules (who may import what, cycles) live in .dependency-cruiser.cjs;
// both run in `npm run lint`, inside `npm test`.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dist/', '.data/', 'packs/', 'test/.tmp-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // A leading underscore marks what is deliberately unused (destructured-away fields, fixed signatures).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-duplicate-imports': 'error',
    },
  },
  {
    // ports.ts is the domain's view of the outside: interfaces and types, nothing that runs.
    files: ['lambdas/**/ports.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'FunctionDeclaration, ClassDeclaration, VariableDeclaration, ExpressionStatement',
          message: 'ports.ts holds interfaces and types only; code goes in the core, wiring or adapters.',
        },
      ],
    },
  },
  {
    // One error catalog: a failure is built from the catalog that owns its code (errorCatalog in
    // lambdas/platform/errors.ts; each domain's errors.ts), so a throw site names the code and the
    // catalog says its status, message and tip.
    files: ['lambdas/**/*.ts'],
    ignores: ['lambdas/platform/errors.ts', 'lambdas/**/ports.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='AppError']",
          message: "Throw a code from its catalog (e.g. PAYMENT_ERRORS.BUYER_PROOF_REQUIRED()); add the code to the owner's errors.ts.",
        },
      ],
    },
  },
  {
    // A stack settles on its configured network (`MarketConfig.network`): Base's constants in
    // contract/chain.ts are for the local chain and the static site, never for a Lambda's answer.
    files: ['lambdas/**/*.ts'],
    ignores: ['lambdas/contract/chain.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/contract/chain', './chain'],
              importNames: ['CHAIN_ID', 'NETWORK', 'CAIP2'],
              message: 'Take the network from the configuration (config.network: name, caip2, chainId), so a staging stack names its own.',
            },
          ],
        },
      ],
    },
  },
  {
    // The storefront's browser code (bundled by esbuild at catalog build) runs in a page, not in node.
    files: ['catalog/storefront/browser/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests read untyped JSON answers from the running service.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
