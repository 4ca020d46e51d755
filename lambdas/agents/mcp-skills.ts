/**
 * MCP's Skills extension (SEP-2640, `io.modelcontextprotocol/skills`), with x402's payment on
 * `skills/get` (issue 52): every pack is a skill at `skill://<id>/SKILL.md`, its files the
 * resources under it.
 *
 * - `skills/list` pages the 250 entries (`uri`, the SKILL.md `frontmatter` as JSON, `resources`:
 *   every file with `sha256:<hex>`), from the catalog's pack metadata alone: no pack text is read.
 * - `skills/get` of a pack is its purchase. Without a payment it is x402's payment-required
 *   signal: the transport's `x402/error` object (`code` 402, `data` the `PaymentRequired` of
 *   GET /api/pay for the skill) as the JSON-RPC error itself, since a `skills/get` result has a fixed
 *   shape (a `skill` entry) and no `isError` to carry a tool error. With the signed `PaymentPayload`
 *   in `params._meta["x402/payment"]`, or an owner's sign-in in `params._meta["x402/sign-in-with-x"]`,
 *   it is the access domain's `unlockPack`, exactly as `unlock_skill` calls it (an owner is never
 *   charged, an authorization settles once, a copy is a replay served only to its buyer), and the
 *   answer is the entry plus the files (`contents`, as `resources/read` words them: buy and install in
 *   one call), with x402's `SettleResponse` in `_meta["x402/payment-response"]` and the unlock's
 *   receipt, license and payment in `_meta["skill-market/unlock"]`.
 * - A `skill://` file read with `resources/read` is the same sale: the file, paid or owned.
 *
 * A refusal other than a payment's (a copy of an owner's payment, another caller's replay) is a
 * JSON-RPC error whose code is the HTTP status POST /api/pay answers and whose `data` is the spec's
 * failure body.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { unlockPack } from '../access';
import type { Catalog } from '../catalog';
import type { CatalogEntry } from '../contract/catalog-data';
import { links } from '../contract/links';
import { digestRef } from '../contract/pack-versions';
import { challengeFor, readSignInWithXHeader, settleResponse, type Settlement } from '../payments';
import { AppError, failureBody, internalError } from '../platform/errors';
import { logger } from '../platform/logger';
import { MCP_PAY_TIP, X402_META } from './mcp-x402';
import type { AgentsPorts } from './ports';

/** The extension's identifier, declared under `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Skill entries per `skills/list` page: 250 in all, three pages. An entry is never split across pages. */
export const SKILLS_PAGE_SIZE = 100;

/**
 * The `_meta` keys this surface reads and writes beside x402's: the owner's sign-in (the
 * SIGN-IN-WITH-X value, base64 JSON; x402's MCP transport names no key for it), the unlock's
 * receipt, license and payment, and the pack's digest and price on an entry (the service's own
 * prefix: SEP-2640 reserves `io.modelcontextprotocol.skills/` for the extension).
 */
export const SKILLS_META = {
  signIn: 'x402/sign-in-with-x',
  unlock: 'skill-market/unlock',
  pack: 'skill-market/pack',
} as const;

/** A skill file's URI: `skill://<id>/<path>`; the skill's own is its SKILL.md. */
export const skillUri = (id: string, path = 'SKILL.md'): string => `skill://${id}/${path}`;

/** One `resources` item: a file of the skill and the SHA-256 of its bytes. */
export interface SkillResource {
  uri: string;
  digest: string;
}

/** A skill entry, identical in `skills/list` and `skills/get`. */
export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string };
  resources: SkillResource[];
  _meta: Record<string, unknown>;
}

/**
 * A pack's entry, from its catalog entry and pack metadata. The frontmatter is what the catalog
 * build writes at the top of SKILL.md (`catalog/render.ts`: `name` the id, `description` the summary).
 */
export function skillEntry(catalog: Catalog, entry: CatalogEntry, baseUrl: string): SkillEntry {
  const pack = catalog.packMeta(entry.id)!;
  return {
    uri: skillUri(entry.id),
    frontmatter: { name: entry.id, description: entry.summary },
    resources: pack.files.map((f) => ({ uri: skillUri(entry.id, f.path), digest: digestRef(f.sha256) })),
    _meta: {
      [SKILLS_META.pack]: {
        digest: digestRef(pack.seal),
        price_usd: entry.price_usd,
        pay: links(baseUrl).skill(entry.id).challenge,
        metadata: links(baseUrl).skill(entry.id).packs,
      },
    },
  };
}

/** The cursor is opaque to clients; here it is the next offset, so a page needs no state. */
const cursorOf = (offset: number): string => Buffer.from(`s${offset}`).toString('base64url');

function offsetOf(cursor: string | undefined, total: number): number {
  if (cursor === undefined) return 0;
  const m = /^s([1-9]\d{0,5})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const offset = m ? Number(m[1]) : NaN;
  if (!(offset < total)) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: pass back a nextCursor this server gave.');
  return offset;
}

/** One page of `skills/list`, in catalog order (by id). */
export function listSkills(catalog: Catalog, baseUrl: string, cursor: string | undefined) {
  const all = catalog.entries;
  const offset = offsetOf(cursor, all.length);
  const next = offset + SKILLS_PAGE_SIZE;
  return {
    skills: all.slice(offset, next).map((e) => skillEntry(catalog, e, baseUrl)),
    ...(next < all.length ? { nextCursor: cursorOf(next) } : {}),
  };
}

/** The skill a `skill://` URI names, and the file in it; undefined for any other URI. */
export function parseSkillUri(catalog: Catalog, uri: string): { entry: CatalogEntry; path: string } | undefined {
  const m = /^skill:\/\/([a-z0-9-]{1,100})\/(.+)$/.exec(uri);
  const entry = m ? catalog.get(m[1]!) : undefined;
  if (!m || !entry) return undefined;
  const path = m[2]!;
  return catalog.packMeta(entry.id)?.files.some((f) => f.path === path) ? { entry, path } : undefined;
}

/** The skill of a `skills/get` URI, which must be a skill's SKILL.md; SEP-2640's -32602 for any other. */
function skillOfGet(catalog: Catalog, uri: string): CatalogEntry {
  const named = parseSkillUri(catalog, uri);
  if (!named || named.path !== 'SKILL.md') {
    throw new McpError(ErrorCode.InvalidParams, `Not a skill this server serves: ${uri.slice(0, 300)}`, { uri: uri.slice(0, 300) });
  }
  return named.entry;
}

/** The media type of a pack file, by its extension. */
export function mimeTypeOf(path: string): string {
  if (path.endsWith('.md')) return 'text/markdown';
  if (path.endsWith('.json')) return 'application/json';
  if (path.endsWith('.py')) return 'text/x-python';
  if (path.endsWith('.sh')) return 'text/x-shellscript';
  if (path.endsWith('.ts') || path.endsWith('.js') || path.endsWith('.mjs')) return 'text/javascript';
  if (path.endsWith('.csv')) return 'text/csv';
  if (path.endsWith('.yaml') || path.endsWith('.yml')) return 'application/yaml';
  return 'text/plain';
}

/** What the request's `_meta` pays or signs in with. */
export interface Presented {
  payment?: unknown;
  signIn?: unknown;
}

/** The x402 payment-required signal for a skill, as a JSON-RPC error: the transport's `x402/error` object. */
function paymentRequiredError(skill: string, ports: AgentsPorts, baseUrl: string, error: string, message: string): McpError {
  return new McpError(402, message, { ...challengeFor(skill, ports, baseUrl).v2, error });
}

/** A refusal of the unlock as a JSON-RPC error: 402 as x402's payment-required, anything else with the spec's failure body. */
function refusal(e: unknown, skill: string, ports: AgentsPorts, baseUrl: string): McpError {
  if (e instanceof McpError) return e;
  if (!(e instanceof AppError)) {
    logger.error('mcp skills/get failed', e as Error);
    const body = failureBody(internalError());
    return new McpError(ErrorCode.InternalError, body.message, body);
  }
  const body = failureBody(e);
  // The payment and the sign-in were read as the HTTP headers they are there; here they came in _meta.
  const message = body.message
    .replaceAll('PAYMENT-SIGNATURE', `_meta["${X402_META.payment}"]`)
    .replaceAll('SIGN-IN-WITH-X', `_meta["${SKILLS_META.signIn}"]`);
  if (e.status === 402) {
    const reason = e.details?.['reason'];
    return paymentRequiredError(skill, ports, baseUrl, typeof reason === 'string' ? reason : body.error, `${message} ${SKILLS_PAY_TIP}`);
  }
  return new McpError(e.status, message, { ...body, message });
}

/** What a client does to pay over the extension, where HTTP names headers. */
export const SKILLS_PAY_TIP = `${MCP_PAY_TIP.replace('call unlock_skill with the skill_id and', 'call skills/get again with')} An owner sends a SIGN-IN-WITH-X value in params._meta["${SKILLS_META.signIn}"] instead and pays nothing.`;

/** The unlock's answer, but its files: the receipt, license, payment and access as POST /api/pay words them. */
function unlockMeta(body: Record<string, unknown>): Record<string, unknown> {
  const { sealed_pack: _files, ...rest } = body;
  return rest;
}

/**
 * The sale of a skill to the request's payment or sign-in, through the access domain's unlock as
 * `unlock_skill` calls it; the pack's files and the unlock's answer. Unpaid: x402's payment-required error.
 */
async function sell(entry: CatalogEntry, presented: Presented, ports: AgentsPorts, baseUrl: string, sourceIp: string) {
  if (presented.payment === undefined && presented.signIn === undefined) {
    throw paymentRequiredError(
      entry.id,
      ports,
      baseUrl,
      'payment_required',
      `${entry.name} costs ${entry.price_label} (${entry.x402.amount} atomic USDC on Base); this request carried no payment. ${SKILLS_PAY_TIP}`,
    );
  }
  try {
    const signIn = presented.signIn;
    if (signIn !== undefined && typeof signIn !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, `_meta["${SKILLS_META.signIn}"] must be the SIGN-IN-WITH-X value (base64 JSON).`);
    }
    const { body, settlement } = await unlockPack(
      {
        proof: {
          skill: entry.id,
          txHash: undefined,
          license: undefined,
          signInWithX: signIn === undefined ? undefined : readSignInWithXHeader(signIn, `_meta["${SKILLS_META.signIn}"]`),
        },
        payment:
          presented.payment === undefined ? undefined : { version: 2, value: presented.payment, field: `_meta["${X402_META.payment}"]` },
        sourceIp,
      },
      ports.access,
      baseUrl,
    );
    const unlocked = body as Record<string, unknown> & { sealed_pack: { files: Record<string, string> } };
    return { files: unlocked.sealed_pack.files, meta: unlockMeta(unlocked), settlement };
  } catch (e) {
    throw refusal(e, entry.id, ports, baseUrl);
  }
}

/** The result's `_meta`: x402's settlement response when a payment stands behind the pack, and the unlock's answer. */
const resultMeta = (meta: Record<string, unknown>, settlement: Settlement | undefined): Record<string, unknown> => ({
  ...(settlement ? { [X402_META.paymentResponse]: settleResponse(settlement) } : {}),
  [SKILLS_META.unlock]: meta,
});

/** `skills/get`: the entry and, paid or owned, the files (unpaid: x402's payment-required error). */
export async function getSkill(uri: string, presented: Presented, ports: AgentsPorts, baseUrl: string, sourceIp: string) {
  const entry = skillOfGet(ports.catalog, uri);
  const skill = skillEntry(ports.catalog, entry, baseUrl);
  const { files, meta, settlement } = await sell(entry, presented, ports, baseUrl, sourceIp);
  return {
    skill,
    contents: Object.entries(files).map(([path, text]) => ({ uri: skillUri(entry.id, path), mimeType: mimeTypeOf(path), text })),
    _meta: resultMeta(meta, settlement),
  };
}

/** `resources/read` of a `skill://` file: the same sale, answering the one file. */
export async function readSkillFile(
  named: { entry: CatalogEntry; path: string },
  presented: Presented,
  ports: AgentsPorts,
  baseUrl: string,
  sourceIp: string,
) {
  const { files, meta, settlement } = await sell(named.entry, presented, ports, baseUrl, sourceIp);
  const uri = skillUri(named.entry.id, named.path);
  return {
    contents: [{ uri, mimeType: mimeTypeOf(named.path), text: files[named.path]! }],
    _meta: resultMeta(meta, settlement),
  };
}

const metaSchema = z.optional(z.record(z.string(), z.unknown()));
const SkillsListRequest = z.object({
  method: z.literal('skills/list'),
  params: z.optional(z.looseObject({ cursor: z.optional(z.string()), _meta: metaSchema })),
});
const SkillsGetRequest = z.object({
  method: z.literal('skills/get'),
  params: z.looseObject({ uri: z.string().max(2048), _meta: metaSchema }),
});

/** The payment and sign-in a request's `_meta` carries. */
export const presentedOf = (meta: Record<string, unknown> | undefined): Presented => ({
  payment: meta?.[X402_META.payment],
  signIn: meta?.[SKILLS_META.signIn],
});

/** Declares the extension and answers `skills/list` and `skills/get` on a server about to connect. */
export function serveSkills(server: Server, ports: AgentsPorts, baseUrl: string, sourceIp: string): void {
  server.setRequestHandler(SkillsListRequest, (req) => listSkills(ports.catalog, baseUrl, req.params?.cursor));
  server.setRequestHandler(SkillsGetRequest, (req) => getSkill(req.params.uri, presentedOf(req.params._meta), ports, baseUrl, sourceIp));
}
