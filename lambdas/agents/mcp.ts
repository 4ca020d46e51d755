/**
 * MCP at /api/mcp: Streamable HTTP in stateless JSON-response mode (a new server and
 * transport per request, which suits a Lambda), built on @modelcontextprotocol/sdk.
 * Every tool calls the same domain functions as the HTTP API, so rules and error codes
 * are the same; a tool failure is an MCP tool error carrying the spec's failure body.
 * `unlock_skill` is paid through x402's MCP transport (mcp-x402.ts); the packs are skills of MCP's
 * Skills extension, bought with `skills/get` through the same transport (mcp-skills.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { decideAccess, decisionView, mandatesDocument, unlockPack } from '../access';
import { absoluteEntry, rankSkills, requireSkill } from '../catalog';
import { ADDRESS, TX_HASH } from '../contract/chain';
import { links } from '../contract/links';
import { espCycle } from '../discovery';
import { PROOF_LIMIT, proofDocument } from '../ledger';
import { challengeFor, decodePaymentHeader, readSignInWithXHeader } from '../payments';
import { AppError, failureBody, internalError, invalidRequest } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { logger } from '../platform/logger';
import { readRpcBody, rpcError, RPC_CODES } from './json-rpc';
import { servePrompts } from './mcp-prompts';
import { serveResources } from './mcp-resources';
import { parseSkillUri, presentedOf, readSkillFile, serveSkills, SKILLS_EXTENSION } from './mcp-skills';
import {
  failureResult,
  jsonResult,
  MCP_PAY_TIP,
  paidResult,
  paymentRefusedResult,
  paymentRequired,
  refusalResult,
  X402_META,
} from './mcp-x402';
import type { AgentsPorts } from './ports';

export const MCP_SERVER = { name: 'skill-market', version: '1.0.0' } as const;

const skillId = z.string().min(1).max(100).describe('Catalog id, e.g. agent-x402-first-buy');
const wallet = z.string().regex(ADDRESS, 'must be 0x followed by 40 hex digits').describe('Wallet address: 0x and 40 hex digits');

/** Who called the tool: MCP requests arrive over HTTP like POST /api/pay, so the same buyer rules apply. */
interface Caller {
  sourceIp: string;
  /** The call's `params._meta["x402/payment"]` (x402's MCP transport), as sent: undefined when there is none. */
  x402Payment?: unknown;
}

/**
 * A tool's answer already in MCP's result form: x402's payment-required error, or a result with
 * `_meta`. Any other value a tool returns is its JSON result.
 */
class Formed {
  constructor(readonly result: CallToolResult) {}
}
type Run<Args> = (args: Args, ports: AgentsPorts, baseUrl: string, caller: Caller) => Promise<unknown> | unknown;

/**
 * What a host reads to decide whether to ask its user first (MCP tool annotations). Every tool
 * states all four hints, so none falls back to the spec's defaults (which assume a destructive,
 * open-world tool). `title` is the tool's own.
 */
type Hints = Required<Omit<ToolAnnotations, 'title'>>;

/** Reads this service's own catalog, ledger or tables: changes nothing, so calling again has no further effect. */
const READS: Hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A tool as served: its arguments arrive unknown and are parsed with the tool's own schema before it runs. */
interface ToolDef {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  hints: Hints;
  run: Run<unknown>;
}

/** Declares a tool whose `run` sees arguments typed from its input schema. */
function tool<Shape extends z.ZodRawShape>(def: {
  name: string;
  title: string;
  description: string;
  input: Shape;
  hints: Hints;
  run: Run<z.infer<z.ZodObject<Shape>>>;
}): ToolDef {
  const schema = z.object(def.input);
  return { ...def, run: (args, ports, baseUrl, caller) => def.run(schema.parse(args), ports, baseUrl, caller) };
}

/** The tools; GET /api/mcp lists them from here, so the list cannot drift from what runs. */
export const TOOLS: readonly ToolDef[] = [
  tool({
    name: 'search_skills',
    hints: READS,
    title: 'Search skills',
    description: 'Natural-language search over the 250 skills: ranked results with score, price and free evaluation links.',
    input: { query: z.string().min(1).max(200), limit: z.number().int().min(1).max(20).optional() },
    run: ({ query, limit }, ports, baseUrl) => rankSkills(ports.catalog, query, limit ?? 10, baseUrl).results,
  }),
  tool({
    name: 'get_skill',
    hints: READS,
    title: 'Get a skill',
    description: 'The catalog entry of a skill with its pack metadata (files, sizes, sha256) and seal; never the pack text.',
    input: { skill_id: skillId },
    run: ({ skill_id }, ports, baseUrl) => {
      const e = requireSkill(ports.catalog, skill_id, 'argument `skill_id`');
      return { ...absoluteEntry(e, baseUrl), pack: ports.catalog.packMeta(e.id) };
    },
  }),
  tool({
    name: 'get_outline',
    hints: READS,
    title: 'Get the free outline',
    description: 'The free outline of a skill: who it is for, what it produces, its sections and step titles.',
    input: { skill_id: skillId },
    run: ({ skill_id }, ports) => ports.catalog.evaluation(requireSkill(ports.catalog, skill_id, 'argument `skill_id`').id)!.outline,
  }),
  tool({
    name: 'get_sample',
    hints: READS,
    title: 'Get the free sample',
    description: 'The free sample of a skill: the opening of its SKILL.md through the first step, in Markdown.',
    input: { skill_id: skillId },
    run: ({ skill_id }, ports) => ({
      skill_id,
      markdown: ports.catalog.evaluation(requireSkill(ports.catalog, skill_id, 'argument `skill_id`').id)!.sample,
    }),
  }),
  tool({
    name: 'get_payment_challenge',
    hints: READS,
    title: 'Get the payment challenge',
    description:
      'The x402 challenge for a skill, as GET /api/pay answers it with 402 (amount in atomic USDC, payTo, asset contracts on Base), with x402 v2\'s PaymentRequired (the PAYMENT-REQUIRED header\'s) under payment_required: sign an entry of its accepts and pass the PaymentPayload to unlock_skill in params._meta["x402/payment"].',
    input: { skill_id: skillId },
    run: ({ skill_id }, ports, baseUrl) => {
      const entry = requireSkill(ports.catalog, skill_id, 'argument `skill_id`');
      const challenge = challengeFor(entry.id, ports, baseUrl);
      // The HTTP body's message and tip tell a client which header to send; over MCP the payment goes in `_meta`.
      return {
        ...(JSON.parse(challenge.body) as Record<string, unknown>),
        message: `${entry.name} costs ${entry.price_label} (${entry.x402.amount} atomic USDC on Base): pay it through unlock_skill.`,
        tip: MCP_PAY_TIP,
        payment_required: challenge.v2,
      };
    },
  }),
  tool({
    name: 'unlock_skill',
    // Moves money: paid through x402's MCP transport (or payment_signature) the service submits the
    // buyer's USDC transfer on Base (open world, and no undo, so a host should confirm first).
    // Idempotent per transfer: the same transfer or signature again replays the same pack and
    // charges nothing more.
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    title: 'Unlock a paid skill',
    description:
      'The sealed pack, exactly as POST /api/pay. Paid with x402\'s MCP transport: called with skill_id alone it answers x402 v2\'s PaymentRequired (isError, structuredContent); call it again with the signed PaymentPayload in params._meta["x402/payment"] and the service submits the transfer (the wallet needs no ETH): the answer carries x402\'s SettleResponse in _meta["x402/payment-response"]. The same payment base64-encoded (the PAYMENT-SIGNATURE value) may be passed as payment_signature instead; or transfer the challenge amount yourself and unlock with tx_hash. A payment already claimed goes only to its buyer: pass license_token, or sign_in_with_x (the SIGN-IN-WITH-X value signed by the paying wallet). Under an AP2 mandate, pass ap2_mandate and sign_in_with_x signed by its agent. A wallet that already has access (a purchase, a subscription, a meter draw) gets the pack with sign_in_with_x alone, or with a fresh payment that is then never settled.',
    input: {
      skill_id: skillId,
      tx_hash: z.string().regex(TX_HASH).optional(),
      license_token: z.string().min(10).max(4000).optional(),
      sign_in_with_x: z.string().min(10).max(8000).optional().describe('base64 JSON of an x402 sign-in-with-x proof (docs/SECURITY.md)'),
      ap2_mandate: z.string().min(1).max(16_000).optional().describe('the X-AP2-MANDATE value: mnd_… id or the signed mandate'),
      payment_signature: z
        .string()
        .min(10)
        .max(16_000)
        .optional()
        .describe("the PAYMENT-SIGNATURE value: base64 JSON of an x402 v2 exact payment (EIP-3009) for the skill's challenge"),
    },
    // The access domain's unlock, as POST /api/pay calls it: mandates and wallet access hold here too.
    run: async ({ skill_id, tx_hash, license_token, sign_in_with_x, ap2_mandate, payment_signature }, ports, baseUrl, caller) => {
      const viaMeta = caller.x402Payment !== undefined;
      if (viaMeta && (tx_hash ?? license_token ?? payment_signature) !== undefined) {
        throw invalidRequest(
          '_meta["x402/payment"]',
          'The call carries an x402 payment in _meta and another proof in its arguments; one call pays one way.',
          'Send the _meta payment alone (sign_in_with_x and ap2_mandate may go with it), or the argument alone.',
        );
      }
      if (
        !viaMeta &&
        tx_hash === undefined &&
        license_token === undefined &&
        payment_signature === undefined &&
        sign_in_with_x === undefined
      ) {
        return new Formed(paymentRequired(skill_id, ports, baseUrl));
      }
      try {
        const { body, settlement } = await unlockPack(
          {
            proof: {
              skill: skill_id,
              txHash: tx_hash as `0x${string}` | undefined,
              license: license_token,
              signInWithX: sign_in_with_x === undefined ? undefined : readSignInWithXHeader(sign_in_with_x, 'argument `sign_in_with_x`'),
            },
            mandate: ap2_mandate,
            // The payment as the surface holds it, decoded once: _meta's object as it is, the argument's base64 here.
            payment: viaMeta
              ? { version: 2, value: caller.x402Payment, field: '_meta["x402/payment"]' }
              : payment_signature !== undefined
                ? { version: 2, value: decodePaymentHeader(payment_signature), field: 'argument `payment_signature`' }
                : undefined,
            sourceIp: caller.sourceIp,
          },
          ports.access,
          baseUrl,
        );
        return viaMeta ? new Formed(paidResult(body, settlement)) : body;
      } catch (e) {
        const refused = (viaMeta ? paymentRefusedResult(e, skill_id, ports, baseUrl) : undefined) ?? refusalResult(e);
        if (refused) return new Formed(refused);
        throw e;
      }
    },
  }),
  tool({
    name: 'check_access',
    hints: READS,
    title: "Check a wallet's access",
    description:
      'Whether a wallet may use a skill and why (one-time purchase, subscription, meter), exactly as GET /api/access; when not, the next steps: pay once, subscribe, or use a meter.',
    input: { wallet, skill_id: skillId },
    run: async ({ wallet, skill_id }, ports, baseUrl) => {
      const entry = requireSkill(ports.access.catalog, skill_id, 'argument `skill_id`');
      const decision = await decideAccess(wallet, entry, ports.access.now(), ports.access);
      return decisionView(decision, entry, wallet, ports.access, baseUrl);
    },
  }),
  tool({
    name: 'list_mandates',
    hints: READS,
    title: "List a wallet's AP2 mandates",
    description: "A wallet's AP2 mandates with status and spend, newest first, exactly as GET /api/mandates.",
    input: { wallet },
    run: ({ wallet }, ports) => mandatesDocument(wallet, ports.access),
  }),
  tool({
    name: 'get_proof',
    hints: READS,
    title: 'Get the proof ledger',
    description: 'Confirmed on-chain unlocks recorded by this service, overall or for one skill; the only source of success figures.',
    input: { skill_id: skillId.optional(), limit: z.number().int().min(PROOF_LIMIT.min).max(PROOF_LIMIT.max).optional() },
    run: ({ skill_id, limit }, ports) => proofDocument(ports, skill_id, limit ?? PROOF_LIMIT.fallback),
  }),
  tool({
    name: 'get_esp_cycle',
    hints: READS,
    title: 'Get the ESP cycle of a skill',
    description:
      'Evaluate (outline, sample, pack seal, challenge), settle (amount, pay_to, asset, how to post the proof) and prove (ledger rows) for one skill.',
    input: { skill_id: skillId },
    run: ({ skill_id }, ports, baseUrl) => espCycle(requireSkill(ports.catalog, skill_id, 'argument `skill_id`'), ports, baseUrl),
  }),
];

/** The annotations tools/list and GET /api/mcp carry: the title and every hint. */
const annotations = (t: ToolDef): ToolAnnotations => ({ title: t.title, ...t.hints });

function createServer(ports: AgentsPorts, baseUrl: string, caller: Caller): McpServer {
  // logging: the SDK's server answers logging/setLevel (MCP's logging utility). Each request has a
  // server of its own and no session, so a level lasts for the request that set it; this server
  // sends no notifications/message (MCP lets it), as a JSON response carries only the result.
  // extensions: MCP's Skills extension (SEP-2640), skills/list and skills/get, paid by x402 (mcp-skills.ts).
  const server = new McpServer(MCP_SERVER, { capabilities: { tools: {}, logging: {}, extensions: { [SKILLS_EXTENSION]: {} } } });
  for (const tool of TOOLS) {
    const config = { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: annotations(tool) };
    server.registerTool(tool.name, config, async (args: unknown, extra) => {
      try {
        const x402Payment = extra._meta?.[X402_META.payment];
        const result = await tool.run(args, ports, baseUrl, { ...caller, ...(x402Payment !== undefined ? { x402Payment } : {}) });
        return result instanceof Formed ? result.result : jsonResult(result);
      } catch (e) {
        if (!(e instanceof AppError)) logger.error('mcp tool failed', e as Error);
        return failureResult(failureBody(e instanceof AppError ? e : internalError()));
      }
    });
  }
  serveResources(server.server, ports.catalog, baseUrl, (uri, meta) => {
    const named = parseSkillUri(ports.catalog, uri);
    return named && readSkillFile(named, presentedOf(meta), ports, baseUrl, caller.sourceIp);
  });
  serveSkills(server.server, ports, baseUrl, caller.sourceIp);
  servePrompts(server, ports.catalog, baseUrl);
  return server;
}

/** GET /api/mcp: server information and the tools with their JSON-schema inputs. */
export function getMcp(req: ApiRequest): ApiResponse {
  return json(200, {
    ok: true,
    protocol: 'MCP',
    server: MCP_SERVER,
    endpoint: links(req.baseUrl).mcp,
    transport: 'Streamable HTTP, stateless, JSON responses (POST JSON-RPC with Accept: application/json, text/event-stream)',
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: z.toJSONSchema(z.object(t.input)),
      annotations: annotations(t),
    })),
  });
}

/**
 * The MCP transport rules ask servers to validate Origin against DNS rebinding: a browser
 * request from another origin is refused; agents without an Origin header are served.
 */
function originAllowed(origin: string | undefined, baseUrl: string): boolean {
  if (origin === undefined) return true;
  try {
    return new URL(origin).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

/** POST /api/mcp: one JSON-RPC exchange through a fresh server and web-standard transport. */
export async function postMcp(req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  if (!originAllowed(req.headers['origin'], req.baseUrl)) {
    return json(403, { jsonrpc: '2.0', id: null, error: { code: -32000, message: `Origin ${req.headers['origin']} is not allowed.` } });
  }
  // The SDK's transport would JSON.parse any nesting; the body is read within the platform's limits
  // first, and the transport gets the parsed value. Errors as the transport words its own (id null).
  const read = readRpcBody(req.body);
  if (!read.ok) {
    return read.kind === 'malformed'
      ? rpcError(400, null, RPC_CODES.parseError, 'Parse error: Invalid JSON')
      : rpcError(read.status, null, RPC_CODES.invalidRequest, read.message);
  }
  const server = createServer(ports, req.baseUrl, { sourceIp: req.sourceIp });
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true }); // no sessionIdGenerator: stateless;
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (k !== 'host' && k !== 'content-length') headers.set(k, v);
    const response = await transport.handleRequest(new Request(links(req.baseUrl).mcp, { method: 'POST', headers }), {
      parsedBody: read.value,
    });
    const out: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      out[key] = value;
    });
    const text = await response.text();
    // A notification (no id) is answered 202 with no body; keep the JSON content type off it.
    return { statusCode: response.status, headers: { 'cache-control': 'no-store', ...out }, body: text };
  } finally {
    await server.close();
  }
}
