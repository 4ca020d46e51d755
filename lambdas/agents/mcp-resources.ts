/**
 * MCP resources: every skill's free evaluation material (outline, sample, pack metadata), the
 * documents the site serves, named by the site's own URLs. The sealed pack is never a free resource:
 * it is sold, through `unlock_skill`, /api/pay, or as the `skill://` files of MCP's Skills extension
 * (`mcp-skills.ts`), which `resources/read` answers only paid or owned.
 *
 * 250 skills × 3 documents are listed in pages (`resources/list` with MCP's opaque cursor), and
 * `resources/templates/list` gives the three URI templates, so a client that knows a skill id
 * reads its material without listing at all. Registered on the SDK's low-level server because
 * McpServer's own resource list has no pagination.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { packMetadataDocument, type Catalog } from '../catalog';
import type { CatalogEntry } from '../contract/catalog-data';
import { links } from '../contract/links';
import { RPC_CODES } from './json-rpc';

/** Resources per `resources/list` page: 750 in all, so a client reads eight pages. */
export const RESOURCE_PAGE_SIZE = 100;

/** One kind of free document per skill: its URL on the site, and its text as the site serves it. */
interface Kind {
  key: 'outline' | 'sample' | 'packs';
  title: string;
  description: string;
  mimeType: string;
  text: (catalog: Catalog, entry: CatalogEntry, baseUrl: string) => string;
}

const KINDS: readonly Kind[] = [
  {
    key: 'outline',
    title: 'free outline',
    description: 'Who the skill is for, what it produces, its sections and step titles, price and how to buy (outline.json on the site).',
    mimeType: 'application/json',
    // The catalog build writes the site's outline.json this way, so the bytes are the same.
    text: (catalog, entry) => `${JSON.stringify(catalog.evaluation(entry.id)!.outline, null, 2)}\n`,
  },
  {
    key: 'sample',
    title: 'free sample',
    description: 'The opening of the skill’s SKILL.md through its first step, in Markdown (sample.md on the site).',
    mimeType: 'text/markdown',
    text: (catalog, entry) => catalog.evaluation(entry.id)!.sample,
  },
  {
    key: 'packs',
    title: 'pack metadata',
    description: 'What the sealed pack holds (paths, sizes, sha256, seal) and its price, never its text (GET /api/packs).',
    mimeType: 'application/json',
    text: (catalog, entry, baseUrl) => JSON.stringify(packMetadataDocument(catalog, entry, baseUrl)),
  },
];

const uriOf = (kind: Kind, baseUrl: string, id: string): string => links(baseUrl).skill(id)[kind.key];

const describe = (kind: Kind, entry: CatalogEntry, baseUrl: string): Resource => ({
  uri: uriOf(kind, baseUrl, entry.id),
  name: `${entry.id}/${kind.key}`,
  title: `${entry.name}: ${kind.title}`,
  mimeType: kind.mimeType,
});

/** The cursor is opaque to clients (MCP's rule); here it is the next offset, so a page needs no state. */
const cursorOf = (offset: number): string => Buffer.from(`o${offset}`).toString('base64url');

function offsetOf(cursor: string | undefined, total: number): number {
  if (cursor === undefined) return 0;
  const m = /^o([1-9]\d{0,5})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const offset = m ? Number(m[1]) : NaN;
  // MCP: an invalid cursor is -32602.
  if (!(offset < total)) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: pass back a nextCursor this server gave.');
  return offset;
}

/** One page of the resources, in catalog order (skill id, then outline, sample, pack metadata). */
export function listResources(catalog: Catalog, baseUrl: string, cursor: string | undefined) {
  const total = catalog.entries.length * KINDS.length;
  const offset = offsetOf(cursor, total);
  const resources: Resource[] = [];
  for (let i = offset; i < Math.min(total, offset + RESOURCE_PAGE_SIZE); i++) {
    resources.push(describe(KINDS[i % KINDS.length]!, catalog.entries[Math.floor(i / KINDS.length)]!, baseUrl));
  }
  const next = offset + RESOURCE_PAGE_SIZE;
  return { resources, ...(next < total ? { nextCursor: cursorOf(next) } : {}) };
}

/** The URI templates (RFC 6570) of the three documents: the site's URLs with the skill id left open. */
export function resourceTemplates(baseUrl: string) {
  return KINDS.map((kind) => ({
    uriTemplate: uriOf(kind, baseUrl, '{skill_id}'),
    name: `skill-${kind.key}`,
    title: `A skill's ${kind.title}`,
    description: kind.description,
    mimeType: kind.mimeType,
  }));
}

/** `resources/read`: the document at a URI this server lists, or MCP's -32002 for any other. */
export function readResource(catalog: Catalog, baseUrl: string, uri: string) {
  for (const kind of KINDS) {
    // The id is what sits where the template's variable is; the URI must then be exactly the skill's.
    const [head, tail] = uriOf(kind, baseUrl, '\u0000').split('\u0000') as [string, string];
    if (!uri.startsWith(head) || !uri.endsWith(tail) || uri.length < head.length + tail.length) continue;
    const entry = catalog.get(uri.slice(head.length, uri.length - tail.length));
    if (entry === undefined || uriOf(kind, baseUrl, entry.id) !== uri) continue;
    return { contents: [{ uri, mimeType: kind.mimeType, text: kind.text(catalog, entry, baseUrl) }] };
  }
  throw new McpError(RPC_CODES.resourceNotFound, `Resource not found: ${uri.slice(0, 300)}`, { uri: uri.slice(0, 300) });
}

/**
 * A reader of the URIs the free documents do not cover (a skill's paid files, `mcp-skills.ts`), given
 * the request's `_meta`: undefined when the URI is not one of its own.
 */
export type PaidReader = (uri: string, meta: Record<string, unknown> | undefined) => Promise<ReadResourceResult> | undefined;

/** Declares the resources capability and answers its three methods on a server about to connect. */
export function serveResources(server: Server, catalog: Catalog, baseUrl: string, paid?: PaidReader): void {
  server.registerCapabilities({ resources: {} });
  server.setRequestHandler(ListResourcesRequestSchema, (req) => listResources(catalog, baseUrl, req.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: resourceTemplates(baseUrl) }));
  server.setRequestHandler(
    ReadResourceRequestSchema,
    (req) => paid?.(req.params.uri, req.params._meta) ?? readResource(catalog, baseUrl, req.params.uri),
  );
}
