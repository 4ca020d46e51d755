/**
 * The layer rules of docs/ARCHITECTURE.md ("Where things go"), held by dependency-cruiser in
 * `npm run lint` (and so in `npm test` and CI). Chosen over eslint-plugin-boundaries because one
 * declarative file covers all of them, import cycles included, on the resolved module graph.
 *
 *   contract  <  platform  <  catalog  <  ledger  <  payments  <  access, checkout  <  discovery  <  agents
 *   (insights reads the books: catalog and ledger only)
 *   (the facilitator, x402's facilitator role, stands on the contract and the platform alone; payments uses it)
 *   (a domain may use a lower domain only through its index.ts; its wiring.ts builds its ports
 *   from its adapters and from the lower domains' faces, never from their wiring.ts; a wiring.ts
 *   is loaded only by its own domain's Lambda entry or face, with import(), so that adapters and
 *   their libraries sit in a chunk of their own)
 */
const DOMAIN = '^lambdas/(?!contract/|platform/)([^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'An import cycle makes load order matter; it is how the agents bundle once failed to start.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-through-index-only',
      comment: 'Another domain is entered only through its index.ts: what it exports is its public face; the rest can change.',
      severity: 'error',
      from: { path: DOMAIN },
      to: {
        path: '^lambdas/[^/]+/',
        pathNot: ['^lambdas/$1/', '^lambdas/(contract|platform)/', '^lambdas/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'wiring-is-loaded-on-first-use',
      comment:
        "A wiring.ts (adapters: the AWS SDK, viem, stripe) is loaded only by its domain's Lambda entry, or by its face (index.ts) for another function's composition, with import() on first use: esbuild then puts it in a chunk of its own, and a cold start does not parse what the request may not need. No domain builds its ports from another's wiring.",
      severity: 'error',
      from: { path: '^lambdas/', pathNot: ['^lambdas/[^/]+/[a-z-]*handler\\.ts$', '^lambdas/[^/]+/index\\.ts$'] },
      to: { path: '^lambdas/[^/]+/wiring\\.ts$' },
    },
    {
      name: 'entries-load-wiring-lazily',
      comment: 'A Lambda entry or a face loads its wiring.ts with import() on first use, never with a static import.',
      severity: 'error',
      from: { path: ['^lambdas/[^/]+/[a-z-]*handler\\.ts$', '^lambdas/[^/]+/index\\.ts$'] },
      to: { path: '^lambdas/[^/]+/wiring\\.ts$', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'ledger-is-below-payments',
      comment:
        'The ledger (rows, card sales, figures, the fold) knows nothing of taking money: payments and the domains above it use the ledger, never the reverse.',
      severity: 'error',
      from: { path: '^lambdas/ledger/' },
      to: { path: '^lambdas/(payments|access|checkout|discovery|agents|insights)/' },
    },
    {
      name: 'facilitator-knows-no-domain',
      comment:
        "The facilitator settles authorizations for resources (x402's facilitator role): it knows the contract and the platform, never payments (the resource server) or any domain that delivers, lists or records what is sold.",
      severity: 'error',
      from: { path: '^lambdas/facilitator/' },
      to: { path: '^lambdas/', pathNot: '^lambdas/(contract|platform|facilitator)/' },
    },
    {
      name: 'insights-reads-the-books-only',
      comment: 'Insights reports figures: it reads the ledger and the catalog, and none of the domains that take money.',
      severity: 'error',
      from: { path: '^lambdas/insights/' },
      to: { path: '^lambdas/(payments|access|checkout|discovery|agents)/' },
    },
    {
      name: 'contract-is-the-bottom',
      comment: 'contract/ holds data, types and pure functions of them; it imports nothing else under lambdas/.',
      severity: 'error',
      from: { path: '^lambdas/contract/' },
      to: { path: '^lambdas/', pathNot: '^lambdas/contract/' },
    },
    {
      name: 'platform-knows-no-domain',
      comment: 'platform/ (http, errors, middleware, logger) serves every domain and knows none of them.',
      severity: 'error',
      from: { path: '^lambdas/platform/' },
      to: { path: '^lambdas/', pathNot: '^lambdas/(contract|platform)/' },
    },
    {
      name: 'outside-services-only-in-adapters',
      comment:
        'The AWS SDK, viem, jose, stripe and the x402 SDK (viem underneath) are imported only in adapters/; cores and routes see ports.',
      severity: 'error',
      from: { path: '^lambdas/', pathNot: '/adapters/' },
      to: { path: '(^|/)node_modules/(@aws-sdk/[^/]+|viem|jose|stripe|@x402/[^/]+)/' },
    },
    {
      name: 'only-wiring-names-adapters',
      comment: "A domain's wiring.ts builds its ports; nothing else in the domain names an adapter.",
      severity: 'error',
      from: { path: DOMAIN, pathNot: ['/wiring\\.ts$', '/adapters/'] },
      to: { path: '/adapters/' },
    },
    {
      name: 'infra-manifests-are-data',
      comment: "A domain's infra.ts is read by the CDK stack: it may use the contract and nothing else.",
      severity: 'error',
      from: { path: '^lambdas/[^/]+/infra\\.ts$' },
      to: { path: '^lambdas/', pathNot: '^lambdas/contract/' },
    },
    {
      name: 'lambdas-never-import-tooling',
      comment: 'What is deployed cannot depend on the CDK app, the local runtime, the build or the tests.',
      severity: 'error',
      from: { path: '^lambdas/' },
      to: { path: '^(lib|local|catalog|bin|bench|test)/' },
    },
    {
      name: 'cdk-sees-contract-and-manifests',
      comment: "lib/ is CDK only: it reads the contract and the domains' infra.ts manifests, never their code.",
      severity: 'error',
      from: { path: '^(lib|bin)/' },
      to: { path: '^lambdas/', pathNot: ['^lambdas/contract/', '^lambdas/[^/]+/infra\\.ts$'] },
    },
    {
      name: 'catalog-build-sees-contract',
      comment: 'The catalog build shares only published formats with the Lambdas (seal, search index, schemas).',
      severity: 'error',
      from: { path: '^catalog/' },
      to: { path: '^lambdas/', pathNot: '^lambdas/contract/' },
    },
    {
      name: 'storefront-browser-code-runs-in-a-browser',
      comment:
        "catalog/storefront/browser/ is bundled for the pages: no node built-ins, nothing of the build, the local runtime or the Lambdas but the contract's pure facts.",
      severity: 'error',
      from: { path: '^catalog/storefront/browser/' },
      to: {
        pathNot: [
          '^catalog/storefront/browser/',
          '^lambdas/contract/(chain|links|catalog-data|sign-in-with-x)\\.ts$',
          '(^|/)node_modules/(viem|fflate|mipd|@x402/[^/]+)/',
          // a package subpath dependency-cruiser leaves unresolved (exports maps), e.g. @x402/evm/exact/client
          '^@x402/[^/]+/',
        ],
      },
    },
    {
      name: 'storefront-wallet-library-in-wallet-buy-only',
      comment:
        'viem and the x402 client are the wallet purchase\'s libraries (wallet-*.ts), loaded on the first "Pay with wallet" click; the page scripts stay small.',
      severity: 'error',
      from: { path: '^catalog/storefront/browser/', pathNot: '^catalog/storefront/browser/wallet-[a-z-]+\\.ts$' },
      to: { path: ['(^|/)node_modules/(viem|@x402/[^/]+)/', '^@x402/'] },
    },
    {
      name: 'storefront-wallet-discovery-in-wallets-only',
      comment:
        "mipd (EIP-6963 wallet discovery) is used in one place, wallets.ts, which the skill and recovery pages load at once: the wallets must be listed before the first click. It is a few hundred bytes; anything heavier belongs in the wallet purchase's chunk.",
      severity: 'error',
      from: { path: '^catalog/storefront/browser/', pathNot: '^catalog/storefront/browser/wallets\\.ts$' },
      to: { path: '(^|/)node_modules/mipd/' },
    },
    {
      name: 'local-runtime-sees-contract-and-platform',
      comment:
        "local/ hosts the Lambdas as AWS would: the contract, the platform, and each domain's Lambda entries (handler.ts and the scheduled <task>-handler.ts, loaded by path).",
      severity: 'error',
      from: { path: '^local/' },
      to: { path: '^lambdas/', pathNot: ['^lambdas/(contract|platform)/', '^lambdas/[^/]+/[a-z-]*handler\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js', '.json'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '(^|/)(cdk\\.out|dist|\\.data)/' },
  },
};
