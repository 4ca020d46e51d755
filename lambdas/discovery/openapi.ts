/**
 * The OpenAPI 3.1.0 document, generated from the route table, the per-operation docs below
 * (which the compiler requires for every route) and the zod schemas the code itself uses.
 * It also carries the ten x402 resources (`x-x402-resources`).
 */
import * as z from 'zod';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { activeDomains, ROUTES, type OperationId, type RouteDefinition } from '../contract/routes';
import { INTENT_LIFETIME_DAYS, INTENT_MAX_TEXT_BYTES, INTENTS_PER_CALLER_PER_DAY, IntentBodySchema } from '../contract/intent-schema';
import { ChallengeSchema } from '../contract/challenge-schema';
import { MandatesPostSchema, MeterPostSchema, SubscribePostSchema } from '../access';
import { EspCycleSchema } from '../contract/esp-cycle-schema';
import type { DiscoveryPorts } from './ports';
import { x402Resources } from './x402-resources';

/**
 * The spec's version of the API description ("OpenAPI 3.1.0, with its own version 1.6.0"). It
 * names the interface the spec defines, not this deployment's changes: what was added since is
 * compatible with it, and what changed is in the changelog of docs/ARCHITECTURE.md.
 */
export const OPENAPI_VERSION = '1.6.0';

const FailureSchema = z.object({
  ok: z.literal(false),
  error: z.string(),
  error_code: z.string(),
  message: z.string(),
  retry: z.boolean(),
  tip: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

interface Param {
  name: string;
  in?: 'query' | 'header' | 'path';
  required?: boolean;
  description: string;
  schema?: Record<string, unknown>;
}
interface OperationDoc {
  params?: Param[];
  body?: z.core.$ZodType;
  ok: { status: number; description: string; schema?: z.core.$ZodType; contentType?: string; headers?: Record<string, string> };
  /** Other answers than `ok` and the failures (e.g. the 200 of a settled x402 v2 payment), with the headers they carry. */
  also?: { status: number; description: string; headers?: Record<string, string> }[];
  errors?: number[];
  /** What else than the route table's per-minute limit answers 429 (e.g. a daily allowance). */
  alsoLimited?: string;
  /** The call presents a checkout session's client secret: required, or accepted as one way in. */
  sessionSecret?: 'required' | 'optional';
}

const str = { type: 'string' };
const skill: Param = { name: 'skill', required: true, description: 'Catalog id', schema: str };
/** A re-download's version (issue 52; docs/ACCESS.md, "Versions"). */
const VERSION: Param = {
  name: 'version',
  description:
    "A re-download only (a license, the buyer's own transfer again, a wallet that already has access): the version to deliver, a number as /api/packs and the receipt (`pack.version`) name it; the current version when absent. A purchase covers the version it bought and every later one: an earlier one is 403 VERSION_NOT_COVERED, one never published 404 VERSION_NOT_FOUND, anything but a number 1, 2, … 400. A paid purchase always delivers the current version",
  schema: { type: 'integer', minimum: 1 },
};
/** What every delivery says of the version it carries. */
const VERSION_FIELD = 'version: {number, digest ("sha256:<hex>", equal to seal), published (yyyy-mm-dd)}: which version the bytes are';
/** The payer's wallet signature: x402's sign-in-with-x extension (docs/SECURITY.md). */
const SIGN_IN_WITH_X: Param = {
  name: 'SIGN-IN-WITH-X',
  in: 'header',
  description:
    'Base64 JSON of an x402 sign-in-with-x proof signed by the paying wallet (EIP-4361 over EIP-191): proves the buyer for a transfer already claimed, and binds a first claim to the payer',
  schema: str,
};

/** x402 v1's signed payment, as a v1 client (x402-fetch 1.x) retries the challenge's GET with it (docs/PAYMENTS.md). */
const X_PAYMENT_V1: Param = {
  name: 'X-PAYMENT',
  in: 'header',
  description:
    "x402 v1: base64 JSON {x402Version: 1, scheme: exact, network: base, payload: {signature, authorization}} for an entry of the body's accepts; settled by the service like PAYMENT-SIGNATURE and answered with X-PAYMENT-RESPONSE",
  schema: str,
};

/** Applied alike on GET (with PAYMENT-SIGNATURE) and POST /api/pay: both are the access domain's. */
const AP2_MANDATE: Param = {
  name: 'X-AP2-MANDATE',
  in: 'header',
  description:
    'AP2 open payment mandate: its id (mnd_…) or the signed mandate (JSON or base64 JSON). The purchase must be signed (SIGN-IN-WITH-X) by its agent (cnf) or wallet, paid by its wallet and within its constraints; else 403 AP2_MANDATE_REJECTED',
  schema: str,
};

/** x402 v2's signed authorization (the `exact` scheme, EIP-3009), which the service settles itself (docs/PAYMENTS.md). */
const PAYMENT_SIGNATURE: Param = {
  name: 'PAYMENT-SIGNATURE',
  in: 'header',
  description:
    "x402 v2: base64 JSON PaymentPayload for an entry of PAYMENT-REQUIRED's accepts, signed by the buyer: `exact`, an EIP-3009 transferWithAuthorization the service submits from its relayer; or `auth-capture` (paymentFlow escrow), an EIP-3009 receiveWithAuthorization to the escrow's token collector with the PaymentInfo salt, which the service authorizes into the escrow and captures only once the pack is delivered (voided if it cannot be). The unlock is answered with PAYMENT-RESPONSE",
  schema: str,
};
const PAYMENT_RESPONSE = {
  'PAYMENT-RESPONSE': 'x402 v2 settlement response, base64 JSON {success, transaction, network, payer, errorReason?}',
  'X-PAYMENT-RESPONSE': 'the same settlement, as the spec names it',
};

/** Checkout parameters and bodies as documented; the checks themselves (with their error codes) are lambdas/checkout/core/create-request.ts. */
const SESSION_ID: Param = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The checkout session id the creation answered',
  schema: str,
};
const IDEMPOTENCY_KEY: Param = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    "Optional: the same request with the same key gets the saved answer (Idempotent-Replayed: true) for 24 hours. A key is its caller's (on creation, the caller's address; on a session, the session's creator): the same key from someone else is their own request",
  schema: str,
};
/**
 * What only a session's creator holds: the `client_secret` its creation answered, sent as
 * `Authorization: Bearer` (docs/CHECKOUT.md). OpenAPI describes that header as a security scheme
 * (a header parameter named Authorization is ignored).
 */
const SESSION_SECRET_SCHEME = 'checkoutSessionSecret';
const SECURITY_SCHEMES = {
  [SESSION_SECRET_SCHEME]: {
    type: 'http',
    scheme: 'bearer',
    description: "The session's client_secret, answered once by its creation. Without it (or with another): 401 CHECKOUT_SECRET_REQUIRED",
  },
};
const CREATED =
  ', and `client_secret`: told this once, presented as Authorization: Bearer on every later call on the session (read, update, complete, cancel)';
const BUYER = z.object({ email: z.string().optional() }).passthrough().optional();
const ACP_CREATE = z
  .object({
    line_items: z.array(z.object({ id: z.string(), quantity: z.literal(1).optional() }).passthrough()).length(1),
    currency: z.literal('usd').optional(),
    buyer: BUYER,
  })
  .passthrough();
const ACP_UPDATE = z.object({ buyer: BUYER }).passthrough();
const UCP_CREATE = z
  .object({
    line_items: z.array(z.object({ item: z.object({ id: z.string() }).passthrough(), quantity: z.literal(1) }).passthrough()).length(1),
    buyer: BUYER,
  })
  .passthrough();

const DOCS: Record<OperationId, OperationDoc> = {
  getHealth: { ok: { status: 200, description: 'Liveness' } },
  getReady: { ok: { status: 200, description: '`ready` and `checks[]` (name, ok, detail)' } },
  listCatalog: {
    params: [
      { name: 'q', description: 'Natural-language query (≤ 200 characters)', schema: str },
      { name: 'category', description: 'A catalog category', schema: str },
      { name: 'max_price', description: 'Highest current price, in USD', schema: { type: 'number', minimum: 0 } },
      {
        name: 'limit',
        description: 'Results per page, default 20; a page holds at most 100 (a larger limit is served as 100, and the answer says so)',
        schema: { type: 'integer', minimum: 1 },
      },
      {
        name: 'cursor',
        description:
          'next_cursor of the previous answer (opaque): the next page of the same query, which the cursor carries; q, category and max_price beside it must be the same. Any other parameter (offset, page, page_size, …) is a 400 naming the one to use',
        schema: str,
      },
    ],
    ok: {
      status: 200,
      description:
        'Ranked results: query, order, total (every match), count, results, next_cursor (null on the last page) and next (its URL)',
    },
    errors: [400],
  },
  getPackMetadata: {
    params: [skill],
    ok: {
      status: 200,
      description:
        'Files, sizes, sha256 and the pack seal, never the text; `version` (the current version: number, digest "sha256:<hex>" equal to the seal, published, file_count, total_bytes) and `earlier_versions` (the same for every earlier version, newest first)',
    },
    errors: [400, 404],
  },
  getPackProvenance: {
    params: [
      skill,
      {
        name: 'version',
        description: 'A version number (1, 2, …); the current version when absent',
        schema: { type: 'integer', minimum: 1 },
      },
    ],
    ok: {
      status: 200,
      description:
        "skill_id, version, digest (sha256:<hex>), published, and attestations: [{predicateType, bundle}], npm's attestations shape. Each bundle is a Sigstore bundle v0.3 with a DSSE envelope (application/vnd.in-toto+json) holding an in-toto Statement v1 whose subjects are the pack (<skill>@<version>, its digest) and each file (<skill>/<path>, sha256): SLSA provenance v1 (https://slsa.dev/provenance/v1) and the checks (urn:skill-market:attestation:pack-checks:v1: the security scan, the prompt-injection rules over SKILL.md, the eval suite). Signed with the service key, whose JWKS kid is the bundle's public-key hint (/.well-known/jwks.json); tlogEntries is empty unless a transparency log is configured (docs/PROVENANCE.md)",
    },
    errors: [400, 404],
  },
  getIntent: {
    params: [
      { name: 'q', description: 'Search skills by a plain description', schema: str },
      { name: 'list', description: '1: list intent bounties, newest first', schema: str },
      { name: 'id', description: 'One intent bounty', schema: str },
      { name: 'cursor', description: 'next_cursor of the previous page', schema: str },
      { name: 'limit', description: 'Results per page', schema: { type: 'integer' } },
    ],
    ok: {
      status: 200,
      description: `Ranked skills, a page of intents, or one intent; an intent past its expires_at (${INTENT_LIFETIME_DAYS} days after it was posted) is neither listed nor served (404)`,
    },
    errors: [400, 404],
  },
  postIntent: {
    body: IntentBodySchema,
    ok: {
      status: 200,
      description: `The stored intent bounty: id, created_at, expires_at (created_at + ${INTENT_LIFETIME_DAYS} days: then it is no longer listed or served, and DynamoDB's TTL deletes it), status open, the fields posted, suggested_skills. Each field has its own length cap, and title, description, success_criteria and skill_hints together hold at most ${INTENT_MAX_TEXT_BYTES} bytes of UTF-8 text. A bounty is an unconfirmed request: it is never shown as demand (GET /api/signals)`,
    },
    errors: [400],
    alsoLimited: `at most ${INTENTS_PER_CALLER_PER_DAY} bounties per caller (address; an IPv6 /64) per UTC day, across all instances`,
  },
  getPay: {
    params: [skill, PAYMENT_SIGNATURE, X_PAYMENT_V1, SIGN_IN_WITH_X, AP2_MANDATE, VERSION],
    ok: {
      status: 402,
      description:
        "The x402 challenge. Two flows pay it: transfer the amount and POST /api/pay with X-PAYMENT (the spec's), or send this request again signed: PAYMENT-SIGNATURE (x402 v2 exact, EIP-3009, or auth-capture into the escrow) or X-PAYMENT (x402 v1 exact, base64)",
      schema: ChallengeSchema,
      headers: {
        'PAYMENT-REQUIRED':
          'x402 v2 PaymentRequired, base64 JSON: {x402Version: 2, resource, accepts: [{scheme: exact, network: eip155:8453, amount, asset (token address), payTo, maxTimeoutSeconds, extra: {name, version}}, …, {scheme: auth-capture, …, extra: {name, version, authCaptureEscrow, tokenCollector, captureAuthorizer, captureDeadline, refundDeadline, feeRecipient, minFeeBps: 0, maxFeeBps: 0, paymentFlow: escrow, assetTransferMethod: eip3009}}]}; the auth-capture deadlines are absolute (Unix seconds), those of the minute the challenge was made',
        'X-PAYMENT-REQUIRED': 'the body, base64',
      },
    },
    also: [
      {
        status: 200,
        description: 'With PAYMENT-SIGNATURE or a v1 X-PAYMENT, once settled: the unlock (as POST /api/pay answers it)',
        headers: PAYMENT_RESPONSE,
      },
    ],
    // A refused PAYMENT-SIGNATURE is a 402 too: the failure body (PAYMENT_VERIFICATION_FAILED, details.reason) with the challenge's headers.
    errors: [400, 403, 404, 503],
  },
  postPay: {
    params: [
      {
        name: 'X-PAYMENT',
        in: 'header',
        description:
          'JSON {"txHash","skill"} (or its base64); or, told apart by its content, x402 v1\'s base64 exact payment (as on GET), settled and answered with X-PAYMENT-RESPONSE',
        schema: str,
      },
      PAYMENT_SIGNATURE,
      { name: 'X-LICENSE', in: 'header', description: 'License token from an earlier unlock', schema: str },
      SIGN_IN_WITH_X,
      AP2_MANDATE,
      VERSION,
    ],
    body: z.object({ txHash: z.string().optional(), skill: z.string().optional(), license: z.string().optional() }),
    ok: {
      status: 200,
      description: `The unlock: sealed_pack.files, seal, ${VERSION_FIELD}, how_to_use, license, payment, revenue_ledger, and receipt: the sale's receipt, a compact JWS (ES256, typ sale-receipt+jwt) signed with the key in /.well-known/jwks.json, whose pack: {seal, version} names the version sold`,
      headers: PAYMENT_RESPONSE,
    },
    errors: [400, 402, 403, 404, 503],
  },
  postRecover: {
    params: [
      { name: 'X-PAYMENT', in: 'header', description: 'JSON {"txHash","skill"} (or its base64); or the same in the body', schema: str },
      { name: 'X-LICENSE', in: 'header', description: 'License token from an earlier unlock', schema: str },
      SIGN_IN_WITH_X,
      VERSION,
    ],
    body: z.object({ txHash: z.string(), skill: z.string() }),
    ok: {
      status: 200,
      description: `The same pack, re-unlocked (the version asked for, else the current one: ${VERSION_FIELD}), with the sale's receipt`,
    },
    errors: [400, 402, 403, 404, 503],
  },
  getProof: {
    params: [
      { name: 'skill', description: 'Only this skill', schema: str },
      { name: 'limit', description: 'Rows per page, 1–100 (default 20)', schema: { type: 'integer', minimum: 1, maximum: 100 } },
      {
        name: 'cursor',
        description: '`next_cursor` of the previous page: the rows after it, newest first',
        schema: { type: 'string', maxLength: 400 },
      },
    ],
    ok: {
      status: 200,
      description:
        '`confirmed` (the count, from the tallies) and `confirmed_counts` (what it counts: refunded sales included), one page of `recent_unlocks`, newest first (a sale an operator refunded carries `refunded_amount`, atomic, and `refund_txs`; other rows neither), `next_cursor` (null on the last page), and `explorer_url`: the block explorer a row links to (`<explorer_url>/tx/<txHash>`, `<explorer_url>/address/<payer>`), null where none is configured',
    },
    errors: [400, 404],
  },
  getMandates: {
    params: [
      { name: 'wallet', description: 'The wallet (alias: address)', schema: str },
      { name: 'address', description: 'Alias of wallet', schema: str },
    ],
    ok: { status: 200, description: 'The AP2 mandates of the wallet, with status and spend' },
    errors: [400],
  },
  postMandates: {
    body: MandatesPostSchema,
    ok: { status: 200, description: 'The mandate created (or found) or revoked' },
    errors: [400, 403, 404],
  },
  getBundles: {
    params: [{ name: 'bundle', description: 'One bundle by id', schema: str }],
    ok: { status: 200, description: 'Bundles from the catalog data: skills, total from the price source, each skill’s challenge' },
    errors: [400, 404],
  },
  getTrust: {
    params: [{ ...skill, required: false, description: 'One skill’s scorecard' }],
    ok: { status: 200, description: 'Scorecards: seal, scan, eval score, confirmed unlocks, reorged claims, age in the catalog' },
    errors: [400, 404],
  },
  getSecurity: {
    params: [{ ...skill, required: false, description: 'One skill’s scan' }],
    ok: {
      status: 200,
      description: 'The build’s scan: per skill is_safe, max severity, counts, findings, scanner versions and the seal scanned',
    },
    errors: [400, 404],
  },
  getEval: {
    params: [{ ...skill, required: false, description: 'One skill’s result' }],
    ok: { status: 200, description: 'The eval suite run at build: suite version, checks, a score per skill with its failing checks' },
    errors: [400, 404],
  },
  getSignals: {
    ok: {
      status: 200,
      description:
        'Confirmed demand only: paid unlocks, subscription periods, meter top-ups and card sales per product over 7 days, 30 days and all time, each with its source, less sales refunded in full (a sale refunded in part still counts). Intent bounties are not included, neither their text nor their number: anyone may post one without paying, so they are unconfirmed requests (`not_included.intent_bounties` links their list)',
    },
  },
  getRevenue: {
    params: [
      { name: 'from', description: 'First UTC day, yyyy-mm-dd (default: 29 days before `to`)', schema: { type: 'string', format: 'date' } },
      {
        name: 'to',
        description: 'Last UTC day, yyyy-mm-dd (default: today); at most 366 days in all',
        schema: { type: 'string', format: 'date' },
      },
      { name: 'format', description: '`json` (default) or `csv`', schema: { type: 'string', enum: ['json', 'csv'] } },
    ],
    ok: {
      status: 200,
      description: 'Confirmed revenue: all-time totals and the window by day, channel, asset and product (CSV with format=csv)',
    },
    errors: [400],
  },
  getAgentIdentity: {
    params: [
      { name: 'address', required: true, description: 'The address', schema: str },
      { name: 'agent_id', description: 'ERC-8004 agent id to verify against the Identity Registry', schema: str },
    ],
    ok: { status: 200, description: 'Local reputation from the ledger, and the ERC-8004 check' },
    errors: [400],
  },
  getAccess: {
    params: [
      { name: 'wallet', required: true, description: 'The wallet', schema: str },
      { ...skill, description: 'Catalog id' },
    ],
    ok: { status: 200, description: '`granted`, `via` (one-time, subscription, meter, none), `until`, and `next` steps' },
    errors: [400],
  },
  getPurchases: {
    params: [
      {
        name: 'SIGN-IN-WITH-X',
        in: 'header',
        description:
          'Sign in: base64 JSON of a sign-in-with-x proof whose uri is this URL, signed by the wallet (EIP-4361 over EIP-191); single use',
        schema: str,
      },
      { name: 'Authorization', in: 'header', description: 'Bearer <session.token> from a sign-in, for 15 minutes', schema: str },
      { name: 'X-LICENSE', in: 'header', description: "A license: that one purchase (a card buyer's way back)", schema: str },
      { name: 'cursor', description: 'The `next` of the previous page', schema: str },
      { name: 'limit', description: 'Purchases per page, 1 to 100 (default 25)', schema: { type: 'integer' } },
    ],
    ok: {
      status: 200,
      description:
        "The wallet's purchases newest first (each with its license and receipt, and for a pack `versions`: every version the purchase covers, newest first, each {number, digest, published, current?, bought?, download: {method: POST, url: /api/pay?version=<n>, header: X-LICENSE}}), its subscriptions, `next`; signing in also answers a 15-minute `session` (Authorization: Bearer)",
    },
    errors: [400, 401, 403, 429],
  },
  getSubscribe: {
    params: [{ name: 'wallet', description: "Also list this wallet's subscriptions", schema: str }],
    ok: { status: 200, description: 'The plans, each with its x402 payment options' },
    errors: [400],
  },
  postSubscribe: {
    params: [SIGN_IN_WITH_X],
    body: SubscribePostSchema,
    ok: { status: 200, description: 'The subscription after start, renew or cancel' },
    errors: [400, 402, 403, 404, 409],
  },
  getMeter: {
    params: [{ name: 'wallet', description: 'The wallet (alias: address)', schema: str }],
    ok: { status: 200, description: "The wallet's meter (balance, cap, spent this month) and the top-up challenge" },
    errors: [400],
  },
  postMeter: {
    params: [
      SIGN_IN_WITH_X,
      {
        ...VERSION,
        description:
          'A draw of a skill already drawn: the version to deliver (every version of a drawn skill is covered); a new draw delivers the current one',
      },
    ],
    body: MeterPostSchema,
    ok: { status: 200, description: `The meter after a top-up or a cap; for a draw, the pack (${VERSION_FIELD})` },
    errors: [400, 402, 403, 404],
  },
  getMcp: { ok: { status: 200, description: 'MCP server info and tools' } },
  postMcp: {
    body: z.object({ jsonrpc: z.literal('2.0') }).passthrough(),
    ok: { status: 200, description: 'JSON-RPC result (MCP Streamable HTTP, JSON responses)' },
    errors: [403],
  },
  getA2a: { ok: { status: 200, description: 'Pointer to the agent card' } },
  postA2a: {
    body: z.object({ jsonrpc: z.literal('2.0') }).passthrough(),
    ok: { status: 200, description: 'JSON-RPC task or message (A2A v0.3)' },
    errors: [429],
  },
  getAgentCard: { ok: { status: 200, description: 'Signed A2A agent card' } },
  getAgentCardA2a: { ok: { status: 200, description: 'Signed A2A agent card' } },
  getJwks: { ok: { status: 200, description: "JWKS of the service key, which signs the agent card and every sale's receipt" } },
  getAgentSkillsIndex: {
    ok: {
      status: 200,
      description:
        'Agent Skills discovery index (draft v0.2.0): {$schema, skills: [{name, type: archive, description, url, digest: sha256 of the archive, pack: {seal, price_usd, pay}}]}',
    },
  },
  getAgentSkillArchive: {
    params: [
      { name: 'id', in: 'path', required: true, description: 'Catalog id', schema: str },
      PAYMENT_SIGNATURE,
      SIGN_IN_WITH_X,
      { name: 'X-LICENSE', in: 'header', description: 'A license token of an earlier purchase of the skill', schema: str },
    ],
    ok: {
      status: 402,
      description:
        "Unpaid: GET /api/pay's x402 challenge for the skill (the same resource); pay it by sending this request again with PAYMENT-SIGNATURE",
      schema: ChallengeSchema,
      headers: { 'PAYMENT-REQUIRED': 'x402 v2 PaymentRequired, base64 JSON', 'X-PAYMENT-REQUIRED': 'the body, base64' },
    },
    also: [
      {
        status: 200,
        description:
          "Paid, owned (SIGN-IN-WITH-X) or licensed: the pack's ZIP (application/zip), whose SHA-256 is the index entry's digest; the sale's receipt in X-RECEIPT, its license in X-LICENSE",
        headers: PAYMENT_RESPONSE,
      },
    ],
    errors: [400, 403, 404, 503],
  },
  getEsp: {
    params: [
      { name: 'skill', description: 'A catalog id: the full cycle', schema: str },
      {
        name: 'phase',
        description: 'evaluate | settle | prove | cycle',
        schema: { type: 'string', enum: ['evaluate', 'settle', 'prove', 'cycle'] },
      },
      { name: 'tx', description: 'With phase=prove: one transaction', schema: str },
    ],
    ok: { status: 200, description: 'The ESP root document, a skill cycle, or a phase slice', schema: EspCycleSchema },
    errors: [400, 404],
  },
  getShop: { ok: { status: 200, description: 'Contract, shelves and next_action' } },
  getJudges: { ok: { status: 200, description: 'Judge, verifier and critic skills' } },
  getOpenApi: { ok: { status: 200, description: 'This document' } },
  getEspDiscovery: { ok: { status: 200, description: 'Where the ESP documents are' } },
  createAcpCheckout: {
    params: [IDEMPOTENCY_KEY],
    body: ACP_CREATE,
    ok: { status: 201, description: `The ACP session, status ready_for_payment, continue_url = the hosted card page${CREATED}` },
    errors: [400, 409, 422],
  },
  getAcpCheckout: {
    sessionSecret: 'required',
    params: [SESSION_ID],
    ok: { status: 200, description: 'The ACP session' },
    errors: [400, 401, 404],
  },
  updateAcpCheckout: {
    params: [SESSION_ID, IDEMPOTENCY_KEY],
    sessionSecret: 'required',
    body: ACP_UPDATE,
    ok: { status: 200, description: 'The ACP session' },
    errors: [400, 401, 404, 405, 409, 422],
  },
  completeAcpCheckout: {
    params: [SESSION_ID, IDEMPOTENCY_KEY],
    sessionSecret: 'required',
    ok: { status: 200, description: 'completed with its order once Stripe confirmed the payment; else the session with a message' },
    errors: [400, 401, 404, 405, 409, 422],
  },
  cancelAcpCheckout: {
    params: [SESSION_ID, IDEMPOTENCY_KEY],
    sessionSecret: 'required',
    ok: { status: 200, description: 'The canceled ACP session' },
    errors: [400, 401, 404, 405, 409, 422],
  },
  createUcpCheckout: {
    params: [IDEMPOTENCY_KEY],
    body: UCP_CREATE,
    ok: { status: 201, description: `The UCP session, status requires_escalation, continue_url = the hosted card page${CREATED}` },
    errors: [400, 409],
  },
  getUcpCheckout: {
    sessionSecret: 'required',
    params: [SESSION_ID],
    ok: { status: 200, description: 'The UCP session' },
    errors: [400, 401, 404],
  },
  updateUcpCheckout: {
    params: [SESSION_ID, IDEMPOTENCY_KEY],
    sessionSecret: 'required',
    body: UCP_CREATE,
    ok: { status: 200, description: 'The UCP session' },
    errors: [400, 401, 404, 409],
  },
  completeUcpCheckout: {
    params: [SESSION_ID, IDEMPOTENCY_KEY],
    sessionSecret: 'required',
    ok: { status: 200, description: 'completed with its order once Stripe confirmed the payment; else the session with a message' },
    errors: [400, 401, 404, 409],
  },
  cancelUcpCheckout: {
    params: [SESSION_ID, IDEMPOTENCY_KEY],
    sessionSecret: 'required',
    ok: { status: 200, description: 'The canceled UCP session' },
    errors: [400, 401, 404, 409],
  },
  postStripeWebhook: {
    params: [{ name: 'Stripe-Signature', in: 'header', required: true, description: "Stripe's signature of the raw body", schema: str }],
    body: z.object({ id: z.string(), type: z.string(), data: z.object({ object: z.record(z.string(), z.unknown()) }) }).passthrough(),
    ok: { status: 200, description: '`received`, the event id and what it changed' },
    errors: [400],
  },
  getCheckoutDelivery: {
    params: [
      { name: 'session_id', required: true, description: 'The Stripe Checkout Session id (cs_…) of the success URL', schema: str },
      {
        name: 'X-LICENSE',
        in: 'header',
        description: 'The card license an earlier delivery of this checkout gave: the pack again, to anyone who holds it',
        schema: str,
      },
      {
        ...VERSION,
        description:
          'With X-LICENSE or the session secret: the version to deliver (the sale covers the version it bought and every later one; docs/ACCESS.md, "Versions"); the current version when absent, and always with the Stripe id alone',
      },
    ],
    sessionSecret: 'optional',
    ok: {
      status: 200,
      description:
        "The pack, a license and the sale's signed receipt (a compact JWS) once the card sale is recorded; 202 with Retry-After until then. The session id alone delivers once (and again to the same caller within the retry window); after that 403 LICENSE_REQUIRED",
    },
    errors: [400, 401, 403, 404, 409],
  },
  getAcpDiscovery: { ok: { status: 200, description: 'ACP version, checkout endpoint, payment provider, the card packs' } },
  getUcpProfile: { ok: { status: 200, description: 'UCP profile: version, shopping service, checkout capability, payment handler' } },
  getX402Discovery: {
    params: [
      { name: 'limit', description: '1–100, default 100', schema: { type: 'integer' } },
      { name: 'offset', description: '0–10000, default 0', schema: { type: 'integer' } },
    ],
    ok: {
      status: 200,
      description:
        "{x402Version, items, pagination: {limit, offset, total}}: every purchasable skill, the spec's ten first; each item is the x402 resource entry with the Bazaar's type, accepts, description and mimeType",
    },
  },
};

/** Static files the CDN serves, documented beside the API (they are part of the spec). */
const STATIC_PATHS: Record<string, { description: string; contentType: string; params?: Param[] }> = {
  '/catalog.json': { description: 'The full catalog (250 skills); ETag and If-None-Match → 304', contentType: 'application/json' },
  '/skills/{id}/outline.json': {
    description: 'Free outline',
    contentType: 'application/json',
    params: [{ name: 'id', in: 'path', required: true, description: 'Catalog id', schema: str }],
  },
  '/skills/{id}/sample.md': {
    description: 'Free sample (Markdown)',
    contentType: 'text/markdown',
    params: [{ name: 'id', in: 'path', required: true, description: 'Catalog id', schema: str }],
  },
  '/llms.txt': { description: 'Guide for language models', contentType: 'text/plain' },
  '/esp/cycle.schema.json': { description: 'JSON Schema of an ESP cycle', contentType: 'application/json' },
};

const schema = (s: z.core.$ZodType) => z.toJSONSchema(s, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
/** A request body is described as the client sends it, before any transform. */
const requestSchema = (s: z.core.$ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
const param = (p: Param) => ({
  name: p.name,
  in: p.in ?? 'query',
  required: p.required ?? false,
  description: p.description,
  schema: p.schema ?? str,
});

export function openApiDocument(ports: DiscoveryPorts, base: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const doc = DOCS[route.operationId];
    const headers = (h: Record<string, string> | undefined) =>
      h ? { headers: Object.fromEntries(Object.entries(h).map(([name, description]) => [name, { description, schema: str }])) } : {};
    const responses: Record<string, unknown> = {
      [doc.ok.status]: {
        description: doc.ok.description,
        ...headers(doc.ok.headers),
        content: { [doc.ok.contentType ?? 'application/json']: { schema: doc.ok.schema ? schema(doc.ok.schema) : { type: 'object' } } },
      },
    };
    for (const other of doc.also ?? [])
      responses[other.status] = {
        description: other.description,
        ...headers(other.headers),
        content: { 'application/json': { schema: { type: 'object' } } },
      };
    for (const status of doc.errors ?? [])
      responses[status] = { description: 'Failure', content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } };
    // A route with a per-caller limit can answer 429, from the route table's own declaration.
    const limit = (route as RouteDefinition).rateLimit;
    if (limit) {
      responses['429'] = {
        description: `Over ${limit.requests} requests per ${limit.perSeconds} s from this address${limit.onlyWith ? ` (counting only requests that carry ${limit.onlyWith.join(', ')})` : ''}${doc.alsoLimited ? `, or ${doc.alsoLimited}` : ''}; see Retry-After`,
        content: { 'application/json': { schema: { type: 'object' } } },
      };
    }
    responses['503'] ??= {
      description: 'Fault on our side; retry with backoff',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
    };
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      // The tag is the domain that serves the route, from the route table.
      tags: [route.domain],
      ...(doc.params ? { parameters: doc.params.map(param) } : {}),
      // Required: the secret or nothing; optional: the secret, or no credential at all (an empty requirement).
      ...(doc.sessionSecret ? { security: [{ [SESSION_SECRET_SCHEME]: [] }, ...(doc.sessionSecret === 'optional' ? [{}] : [])] } : {}),
      ...(doc.body
        ? {
            requestBody: {
              required: route.method === 'POST' && route.operationId !== 'postPay',
              content: { 'application/json': { schema: requestSchema(doc.body) } },
            },
          }
        : {}),
      responses,
    };
  }
  for (const [path, s] of Object.entries(STATIC_PATHS)) {
    paths[path] = {
      get: {
        operationId: `static${path.replace(/[^a-z]+/gi, '_')}`,
        summary: s.description,
        tags: ['static'],
        ...(s.params ? { parameters: s.params.map(param) } : {}),
        responses: {
          200: {
            description: s.description,
            content: { [s.contentType]: { schema: s.contentType === 'application/json' ? { type: 'object' } : { type: 'string' } } },
          },
          404: { description: 'No such file' },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Skill Marketplace',
      version: OPENAPI_VERSION,
      description:
        'Sealed capability packs for software agents, paid in USDC on Base over x402. Evaluate free, settle once, prove publicly.',
    },
    servers: [{ url: base }],
    tags: [...activeDomains(), 'static'].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Failure: schema(FailureSchema), Challenge: schema(ChallengeSchema), EspCycle: schema(EspCycleSchema) },
      securitySchemes: SECURITY_SCHEMES,
    },
    'x-x402-resources': x402Resources(ports.catalog, ports.config, base),
  };
}

/** GET /api/openapi.json */
export function getOpenApi(req: ApiRequest, ports: DiscoveryPorts): ApiResponse {
  return json(200, openApiDocument(ports, req.baseUrl));
}
