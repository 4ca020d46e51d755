/**
 * The route table: the single source for API Gateway routes (CDK), the local HTTP
 * server and the OpenAPI document. A route is registered here only once it is implemented;
 * each domain's handler must implement exactly its routes (checked by the type system).
 */

export const DOMAINS = ['discovery', 'catalog', 'payments', 'agents', 'access', 'insights', 'checkout', 'ledger'] as const;
export type Domain = (typeof DOMAINS)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT';

/**
 * A per-caller limit: at most `requests` in any rolling `perSeconds` from one source address,
 * counted per function instance ("per isolate"). Routes that name the same `scope` share one
 * budget, and must declare the same numbers.
 */
export interface RateLimitRule {
  /** Names the budget; the limiter is keyed by scope and the caller's source address. */
  scope: string;
  requests: number;
  perSeconds: number;
  /**
   * Counted only for requests carrying one of these headers (lower case); others of the route are
   * not limited. For a route that is free to ask (GET /api/pay's challenge) but writes or settles
   * when it carries a payment or a sign-in.
   */
  onlyWith?: readonly string[];
}

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway path syntax: literal segments and `{name}` parameters. */
  path: string;
  domain: Domain;
  /** Unique; names the implementation in the domain handler and the OpenAPI operation. */
  operationId: string;
  summary: string;
  /** Enforced by `createDomainHandler` before the route runs: over it, HTTP 429 with Retry-After. */
  rateLimit?: RateLimitRule;
  /**
   * A figure the same for every caller, read from the fold's counters (seconds behind the ledger
   * anyway): its 200 answers say `public, max-age=<this>`, so CloudFront serves it from its cache
   * that long. Everything else under /api/* is `no-store`.
   */
  cacheSeconds?: number;
}

/** How long CloudFront may serve a figure from its cache: the figures already follow purchases by a few seconds. */
export const FIGURES_CACHE_SECONDS = 5;

/** The header an A2A client names its protocol version in (A2A 1.0 §3.6.2); the agent card answers by it. */
export const A2A_VERSION_HEADER = 'A2A-Version';
/**
 * The request headers an API answer varies on (`Vary`), so the CDN keys its cache on them: the
 * agent card is 1.0 to `A2A-Version: 1.0` and the v0.3 card otherwise, under one path.
 */
export const CACHE_KEY_HEADERS: readonly string[] = [A2A_VERSION_HEADER];

/**
 * The spec's A2A limit, "about 120 requests per 60 seconds"; MCP gets the same. Per caller, so
 * one client cannot spend everyone's budget.
 */
const AGENT_PROTOCOL_LIMIT = { requests: 120, perSeconds: 60 } as const;
/**
 * The spec sets no hard public rate limit on the pay path and allows throttling abuse: buyers retry
 * at 2/4/8/16 s, far below this, so it only stops floods. POST /api/pay and /api/recover share it.
 */
const UNLOCK_LIMIT = { scope: 'unlock', requests: 300, perSeconds: 60 } as const;
/**
 * Wallet-signed writes to subscriptions and meters each cost a signature check that may call the
 * chain (ERC-1271/6492) and a nonce row (gone within the hour the signature may live); only a
 * payment creates a subscription or a meter. An agent draws from its meter a few times a minute.
 */
const WALLET_WRITE_LIMIT = { scope: 'wallet-write', requests: 120, perSeconds: 60 } as const;
/**
 * Anyone may post an intent bounty without paying, and each one is a row (up to about 7 KB) until
 * it expires. An agent posts one per need it could not meet, and may fix a refused body a few times:
 * a handful a minute. Beyond this per-instance brake, the route caps each caller at 50 bounties per
 * UTC day across all instances (lambdas/catalog/intents.ts).
 */
const INTENT_POST_LIMIT = { scope: 'intent', requests: 20, perSeconds: 60 } as const;
/**
 * Creating a mandate stores it for good (its spend is accounting; up to the 64 KiB body), and a fresh
 * wallet signs for free; an owner creates or revokes one for an agent now and then. Its own budget,
 * tighter than the other wallet writes, most of which (draws, caps, cancels) change an item only a
 * payment made.
 */
const MANDATE_WRITE_LIMIT = { scope: 'mandates', requests: 30, perSeconds: 60 } as const;
/**
 * A wallet's purchases: each signed-in request checks a signature (which may ask the chain, for a
 * contract wallet) and reads a page of the ledger. A person opens the page a few times; an agent
 * lists what it owns now and then.
 */
const PURCHASES_LIMIT = { scope: 'purchases', requests: 60, perSeconds: 60 } as const;
/**
 * Checkout writes (create, update, complete, cancel) may each call Stripe, whose own limit is
 * per account: one caller must not spend it for everyone. An agent buys a few packs a minute.
 */
const CHECKOUT_LIMIT = { scope: 'checkout', requests: 60, perSeconds: 60 } as const;

export const ROUTES = [
  { method: 'GET', path: '/api/health', domain: 'discovery', operationId: 'getHealth', summary: 'Liveness: the API process answers.' },
  {
    method: 'GET',
    path: '/api/ready',
    domain: 'payments',
    operationId: 'getReady',
    summary: 'Readiness: whether the rails can challenge and unlock, with one entry per check.',
  },
  {
    method: 'GET',
    path: '/api/catalog',
    domain: 'catalog',
    operationId: 'listCatalog',
    summary: 'Catalog search and filters: q, category, max_price (USD), limit; pages with cursor (next_cursor in each answer).',
  },
  {
    method: 'GET',
    path: '/api/packs',
    domain: 'catalog',
    operationId: 'getPackMetadata',
    summary: 'Pack metadata without content: files, sizes, sha256, seal.',
  },
  {
    method: 'GET',
    path: '/api/packs/provenance',
    domain: 'discovery',
    operationId: 'getPackProvenance',
    summary:
      "A pack version's signed provenance (skill, version; the current one by default): SLSA provenance and the checks, each an in-toto statement in a Sigstore bundle signed with the key at /.well-known/jwks.json.",
  },
  {
    method: 'GET',
    path: '/api/intent',
    domain: 'catalog',
    operationId: 'getIntent',
    summary: 'Natural-language skill search (q), the list of intent bounties (list=1), or one bounty (id).',
  },
  {
    method: 'POST',
    path: '/api/intent',
    domain: 'catalog',
    operationId: 'postIntent',
    summary: 'Post an intent bounty: what you need and how success is judged. It expires 30 days after it is posted.',
    rateLimit: INTENT_POST_LIMIT,
  },
  // Both methods of /api/pay are the access domain's (lambdas/access/pay.ts): the challenge, and every way to unlock.
  {
    method: 'GET',
    path: '/api/pay',
    domain: 'access',
    operationId: 'getPay',
    summary: 'The x402 challenge (HTTP 402) for a skill.',
    // The challenge is never limited. Carrying a payment or a sign-in, the same GET verifies, settles or
    // writes a row, as POST does, so it spends POST's budget (issue 50, I7: 200 free downloads in 3.4 s met no 429).
    rateLimit: { ...UNLOCK_LIMIT, onlyWith: ['payment-signature', 'x-payment', 'sign-in-with-x'] },
  },
  {
    method: 'POST',
    path: '/api/pay',
    domain: 'access',
    operationId: 'postPay',
    summary:
      "Unlock a skill with proof of payment (X-PAYMENT), a license token (X-LICENSE), or the wallet's signature when it already has access (subscription, earlier purchase); optional AP2 mandate (X-AP2-MANDATE).",
    rateLimit: UNLOCK_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/recover',
    domain: 'access',
    operationId: 'postRecover',
    summary: 'Re-unlock when the transfer landed but the unlock did not: same proof as POST /api/pay.',
    rateLimit: UNLOCK_LIMIT,
  },
  {
    method: 'GET',
    path: '/api/proof',
    domain: 'ledger',
    operationId: 'getProof',
    summary: 'The public proof ledger of confirmed unlocks (optionally one skill).',
    cacheSeconds: FIGURES_CACHE_SECONDS,
  },
  {
    method: 'GET',
    path: '/api/mandates',
    domain: 'access',
    operationId: 'getMandates',
    summary: "A wallet's AP2 mandates (wallet=, alias address=) with their status and what each has spent.",
  },
  {
    method: 'POST',
    path: '/api/mandates',
    domain: 'access',
    operationId: 'postMandates',
    summary: 'Create or revoke an AP2 open payment mandate, signed by its wallet (EIP-712).',
    rateLimit: MANDATE_WRITE_LIMIT,
  },
  {
    method: 'GET',
    path: '/api/bundles',
    domain: 'insights',
    operationId: 'getBundles',
    summary: 'Composable skill stacks from the catalog data: their skills, total price from the price source and how to buy each.',
  },
  {
    method: 'GET',
    path: '/api/trust',
    domain: 'insights',
    operationId: 'getTrust',
    summary:
      'Trust scorecards per skill from stored facts only: seal, scan, eval score, confirmed unlocks, reorged claims, age in the catalog.',
    cacheSeconds: FIGURES_CACHE_SECONDS,
  },
  {
    method: 'GET',
    path: '/api/security',
    domain: 'insights',
    operationId: 'getSecurity',
    summary: 'The security scan of every pack, run at catalog build (secretlint and the skill-pack rules); SARIF at /security.sarif.json.',
  },
  {
    method: 'GET',
    path: '/api/eval',
    domain: 'insights',
    operationId: 'getEval',
    summary: 'The eval suite run over every pack at catalog build: a score per skill with its failing checks.',
  },
  {
    method: 'GET',
    path: '/api/signals',
    domain: 'insights',
    operationId: 'getSignals',
    summary:
      'Confirmed demand only: paid unlocks, subscription periods, meter top-ups and card sales per product over time windows, less sales refunded in full. Intent bounties are unconfirmed requests and are not among them.',
    cacheSeconds: FIGURES_CACHE_SECONDS,
  },
  {
    method: 'GET',
    path: '/api/revenue',
    domain: 'insights',
    operationId: 'getRevenue',
    summary: 'The revenue rollup, confirmed only: by day, skill, asset and channel, in atomic units and USD; ?format=csv.',
    cacheSeconds: FIGURES_CACHE_SECONDS,
  },
  {
    method: 'GET',
    path: '/api/agent-identity',
    domain: 'access',
    operationId: 'getAgentIdentity',
    summary: "An address's local reputation from the proof ledger, and its ERC-8004 registration when agent_id is given.",
  },
  {
    method: 'GET',
    path: '/api/access',
    domain: 'access',
    operationId: 'getAccess',
    summary: 'May this wallet use this skill: granted or not, via what (one-time, subscription, meter), until when, and what to do next.',
  },
  {
    method: 'GET',
    path: '/api/purchases',
    domain: 'access',
    operationId: 'getPurchases',
    summary:
      'What a wallet bought (signed in with SIGN-IN-WITH-X, then a short session), each with its license and receipt; or one purchase by its license (X-LICENSE).',
    rateLimit: PURCHASES_LIMIT,
  },
  {
    method: 'GET',
    path: '/api/subscribe',
    domain: 'access',
    operationId: 'getSubscribe',
    summary: "The recurring plans with the x402 challenge to start one; with wallet=, that wallet's subscriptions.",
  },
  {
    method: 'POST',
    path: '/api/subscribe',
    domain: 'access',
    operationId: 'postSubscribe',
    summary: 'Start or renew a plan with a verified transfer, or cancel one (signed by the wallet).',
    rateLimit: WALLET_WRITE_LIMIT,
  },
  {
    method: 'GET',
    path: '/api/meter',
    domain: 'access',
    operationId: 'getMeter',
    summary: "A wallet's prepaid meter (balance, cap, spent this period), or without one the challenge to top one up.",
  },
  {
    method: 'POST',
    path: '/api/meter',
    domain: 'access',
    operationId: 'postMeter',
    summary: 'Top up a meter with a verified transfer; set its cap or draw a skill from it (signed by the wallet).',
    rateLimit: WALLET_WRITE_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/acp/checkout_sessions',
    domain: 'checkout',
    operationId: 'createAcpCheckout',
    summary:
      'ACP (2026-04-17): open a card checkout session for one card pack; 201 ready_for_payment with the hosted page as continue_url.',
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'GET',
    path: '/api/acp/checkout_sessions/{id}',
    domain: 'checkout',
    operationId: 'getAcpCheckout',
    summary: 'ACP: the checkout session as it stands (ready_for_payment, in_progress, completed, canceled, expired).',
  },
  {
    method: 'POST',
    path: '/api/acp/checkout_sessions/{id}',
    domain: 'checkout',
    operationId: 'updateAcpCheckout',
    summary: "ACP: update an open session (the buyer's email).",
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/acp/checkout_sessions/{id}/complete',
    domain: 'checkout',
    operationId: 'completeAcpCheckout',
    summary: 'ACP: complete a session paid on its hosted page; answers the order once Stripe has confirmed the payment.',
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/acp/checkout_sessions/{id}/cancel',
    domain: 'checkout',
    operationId: 'cancelAcpCheckout',
    summary: 'ACP: cancel an open session (its hosted page stops taking payment); 405 once completed or canceled.',
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/ucp/checkout-sessions',
    domain: 'checkout',
    operationId: 'createUcpCheckout',
    summary:
      'UCP (2026-08-25): open a card checkout session for one card pack; 201 requires_escalation with the hosted page as continue_url.',
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'GET',
    path: '/api/ucp/checkout-sessions/{id}',
    domain: 'checkout',
    operationId: 'getUcpCheckout',
    summary: 'UCP: the checkout session as it stands.',
  },
  {
    method: 'PUT',
    path: '/api/ucp/checkout-sessions/{id}',
    domain: 'checkout',
    operationId: 'updateUcpCheckout',
    summary: "UCP: replace an open session's buyer (the item and quantity cannot change).",
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/ucp/checkout-sessions/{id}/complete',
    domain: 'checkout',
    operationId: 'completeUcpCheckout',
    summary: 'UCP: complete a session paid on its hosted page; answers the order once Stripe has confirmed the payment.',
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/ucp/checkout-sessions/{id}/cancel',
    domain: 'checkout',
    operationId: 'cancelUcpCheckout',
    summary: 'UCP: cancel an open session (its hosted page stops taking payment).',
    rateLimit: CHECKOUT_LIMIT,
  },
  {
    method: 'POST',
    path: '/api/checkout/stripe-webhook',
    domain: 'checkout',
    operationId: 'postStripeWebhook',
    summary: "Stripe's webhook (signed): a paid checkout records the card sale and its license; expiry and failures close the session.",
  },
  {
    method: 'GET',
    path: '/api/checkout/delivery',
    domain: 'checkout',
    operationId: 'getCheckoutDelivery',
    summary:
      'For the success page (session_id = the Stripe Checkout Session id): the pack and its license once the sale is recorded, 202 until then.',
  },
  {
    method: 'GET',
    path: '/.well-known/acp.json',
    domain: 'checkout',
    operationId: 'getAcpDiscovery',
    summary: 'ACP discovery: the protocol version, the checkout endpoint and what this merchant supports.',
  },
  {
    method: 'GET',
    path: '/.well-known/ucp',
    domain: 'checkout',
    operationId: 'getUcpProfile',
    summary: 'UCP business profile: the version, the shopping service and its checkout capability, the payment handler.',
  },
  {
    method: 'GET',
    path: '/api/mcp',
    domain: 'agents',
    operationId: 'getMcp',
    summary: 'MCP server information and its tools with JSON-schema inputs.',
  },
  {
    method: 'POST',
    path: '/api/mcp',
    domain: 'agents',
    operationId: 'postMcp',
    summary: 'MCP Streamable HTTP (stateless, JSON responses): JSON-RPC requests.',
    rateLimit: { scope: 'mcp', ...AGENT_PROTOCOL_LIMIT },
  },
  { method: 'GET', path: '/api/a2a', domain: 'agents', operationId: 'getA2a', summary: 'Pointer to the signed A2A agent card.' },
  {
    method: 'POST',
    path: '/api/a2a',
    domain: 'agents',
    operationId: 'postA2a',
    summary:
      'A2A JSON-RPC: 1.0 (A2A-Version: 1.0; SendMessage, GetTask, CancelTask) and v0.3 (no version header; message/send, tasks/get, tasks/cancel).',
    rateLimit: { scope: 'a2a', ...AGENT_PROTOCOL_LIMIT },
  },
  {
    method: 'GET',
    path: '/.well-known/agent.json',
    domain: 'agents',
    operationId: 'getAgentCard',
    summary: "The signed A2A agent card (the spec's path): 1.0 to A2A-Version 1.0, the v0.3 card otherwise.",
  },
  {
    method: 'GET',
    path: '/.well-known/agent-card.json',
    domain: 'agents',
    operationId: 'getAgentCardA2a',
    summary: "The signed A2A agent card (A2A's path): 1.0 to A2A-Version 1.0, the v0.3 card otherwise.",
  },
  {
    method: 'GET',
    path: '/.well-known/agent-skills/index.json',
    domain: 'agents',
    operationId: 'getAgentSkillsIndex',
    summary: "Agent Skills discovery (draft v0.2.0): every pack as an archive with the SHA-256 of the archive's bytes.",
  },
  {
    method: 'GET',
    path: '/.well-known/agent-skills/{id}/pack.zip',
    domain: 'agents',
    operationId: 'getAgentSkillArchive',
    summary:
      "A pack as the ZIP the discovery index names: x402's 402 until paid (PAYMENT-SIGNATURE), or to an owner (SIGN-IN-WITH-X) or a license (X-LICENSE).",
    // Free to ask; carrying a payment or a sign-in it settles or spends a nonce, as GET /api/pay does, at the
    // same size. A budget of its own: a scope is one budget in one function, and this one runs in agents.
    rateLimit: { ...UNLOCK_LIMIT, scope: 'unlock-archive', onlyWith: ['payment-signature', 'sign-in-with-x', 'x-license'] },
  },
  {
    method: 'GET',
    path: '/.well-known/jwks.json',
    domain: 'agents',
    operationId: 'getJwks',
    summary: 'The public key (JWKS) that signs the agent card.',
  },
  {
    method: 'GET',
    path: '/api/esp',
    domain: 'discovery',
    operationId: 'getEsp',
    summary: "ESP: the root document, a skill's full cycle, or one phase of it.",
    cacheSeconds: FIGURES_CACHE_SECONDS,
  },
  {
    method: 'GET',
    path: '/api/shop',
    domain: 'discovery',
    operationId: 'getShop',
    summary: 'The unified agent entry: contract, shelves and the next request to make.',
    cacheSeconds: FIGURES_CACHE_SECONDS,
  },
  {
    method: 'GET',
    path: '/api/judges',
    domain: 'discovery',
    operationId: 'getJudges',
    summary: 'Judge, verifier and critic skills, with quality from the ledger only.',
    cacheSeconds: FIGURES_CACHE_SECONDS,
  },
  {
    method: 'GET',
    path: '/api/openapi.json',
    domain: 'discovery',
    operationId: 'getOpenApi',
    summary: 'This API as OpenAPI 3.1.0, with the x402 resource list.',
  },
  {
    method: 'GET',
    path: '/.well-known/esp.json',
    domain: 'discovery',
    operationId: 'getEspDiscovery',
    summary: 'Where the ESP documents of this deployment are.',
  },
  {
    method: 'GET',
    path: '/.well-known/x402',
    domain: 'discovery',
    operationId: 'getX402Discovery',
    summary: "Every purchasable skill as an x402 resource, in x402 Bazaar's list shape, a page at a time.",
  },
] as const satisfies readonly RouteDefinition[];

export type Route = (typeof ROUTES)[number];
export type OperationId = Route['operationId'];
/** The operation ids that belong to one domain. */
export type DomainOperationId<D extends Domain> = Extract<Route, { domain: D }>['operationId'];

/** The domain that answers everything no route matches: unknown `/api/*` paths, wrong methods and CORS preflights. */
export const FALLBACK_DOMAIN: Domain = 'discovery';

/** API Gateway's route key for a route, e.g. `GET /api/health`. */
export const routeKey = (r: Pick<RouteDefinition, 'method' | 'path'>): string => `${r.method} ${r.path}`;

/** Domains with at least one implemented route; CDK creates a function only for these (plus the fallback). */
export function activeDomains(): Domain[] {
  const used = new Set<Domain>([FALLBACK_DOMAIN, ...ROUTES.map((r) => r.domain)]);
  return DOMAINS.filter((d) => used.has(d));
}
