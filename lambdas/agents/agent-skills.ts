/**
 * Agent Skills discovery (the well-known URI draft, v0.2.0; issue 52): `/.well-known/agent-skills/index.json`
 * lists every pack as one artifact with the SHA-256 of its bytes, and the artifact is sold at its URL.
 *
 * What each entry names: `type: "archive"`, a ZIP of the pack's current version at
 * `/.well-known/agent-skills/<id>/pack.zip`. A pack is SKILL.md and its supporting files, which the
 * draft distributes as an archive; a `skill-md` entry would leave the scripts out. The archive is
 * paid: it answers x402's 402 (the challenge GET /api/pay answers, the same resource) until it is
 * paid with PAYMENT-SIGNATURE, or asked by an owner (SIGN-IN-WITH-X) or with a license (X-LICENSE):
 * the access domain's unlock, as on every surface. The index's digest is the SHA-256 of exactly the
 * bytes a paying client receives, so it verifies the archive before unpacking it, as the draft asks.
 *
 * The ZIP is made the same way every time from the pack's files (sorted paths, stored without
 * compression, one fixed time), so its digest is a function of the files alone: the index and the
 * archive are computed here from the same bytes, and stored entries mean the archive's size is its
 * unpacked size (no decompression bomb to guard against). Computed on the first index request, not
 * at import.
 */
import { createHash } from 'node:crypto';
import { strToU8, zipSync, type ZipOptions } from 'fflate';
import { unlockPack } from '../access';
import { requireSkill } from '../catalog';
import type { CatalogEntry, SealedPack } from '../contract/catalog-data';
import { links } from '../contract/links';
import { digestRef } from '../contract/pack-versions';
import { challengeAnswer, decodePaymentHeader, readSignInWithXHeader, settlementHeaders } from '../payments';
import { notFound } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { lruPerOwner } from '../platform/memo';
import type { AgentsPorts } from './ports';

/** The draft's schema identifier for v0.2.0. */
export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

/** Every entry's time in the archive: ZIP's (DOS) epoch, so the bytes do not depend on when they were made. */
const ARCHIVE_TIME = new Date(1980, 0, 1, 0, 0, 0);

/** A pack's files as the archive the index names: sorted paths, stored, one fixed time. */
export function packArchive(files: SealedPack): Uint8Array {
  const entries = Object.keys(files)
    .sort()
    .map((path): [string, [Uint8Array, ZipOptions]] => [path, [strToU8(files[path]!), { level: 0, mtime: ARCHIVE_TIME }]]);
  return zipSync(Object.fromEntries(entries), { level: 0, mtime: ARCHIVE_TIME });
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** One index entry, per the draft: name, type, description, url, digest. `pack` (ignored by clients that do not know it) names the seal and price. */
export interface AgentSkillEntry {
  name: string;
  type: 'archive';
  description: string;
  url: string;
  digest: string;
  pack: { seal: string; price_usd: number; pay: string };
}

function indexEntry(entry: CatalogEntry, files: SealedPack, seal: string, baseUrl: string): AgentSkillEntry {
  const skill = links(baseUrl).skill(entry.id);
  return {
    name: entry.id,
    type: 'archive',
    description: entry.summary,
    url: skill.archive,
    digest: digestRef(sha256(packArchive(files))),
    pack: { seal: digestRef(seal), price_usd: entry.price_usd, pay: skill.challenge },
  };
}

const indexes = lruPerOwner<AgentsPorts, { $schema: string; skills: AgentSkillEntry[] }>(4);

/** The index for a base URL, made once per instance and base URL (250 archives hashed, a few milliseconds). */
export function agentSkillsIndex(ports: AgentsPorts, baseUrl: string): { $schema: string; skills: AgentSkillEntry[] } {
  const cache = indexes(ports);
  let index = cache.get(baseUrl);
  if (!index) {
    const skills: AgentSkillEntry[] = [];
    for (const entry of ports.catalog.entries) {
      const files = ports.packs.get(entry.id);
      const meta = ports.catalog.packMeta(entry.id);
      if (files && meta) skills.push(indexEntry(entry, files, meta.seal, baseUrl));
    }
    index = { $schema: AGENT_SKILLS_SCHEMA, skills };
    cache.set(baseUrl, index);
  }
  return index;
}

/** GET /.well-known/agent-skills/index.json */
export function getAgentSkillsIndex(req: ApiRequest, ports: AgentsPorts): ApiResponse {
  return json(200, agentSkillsIndex(ports, req.baseUrl), { 'cache-control': 'public, max-age=300' });
}

/**
 * GET /.well-known/agent-skills/{id}/pack.zip: the archive, sold as GET /api/pay sells the pack.
 * Without a payment, a sign-in or a license: GET /api/pay's 402. Otherwise the access domain's unlock
 * (an owner is never charged; a payment settles once and replays only to its buyer), answered with the
 * archive and x402's settlement headers.
 */
export async function getAgentSkillArchive(req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  const entry = requireSkill(ports.catalog, req.pathParameters['id'], 'path');
  const signature = req.headers['payment-signature'];
  const signIn = req.headers['sign-in-with-x'];
  const license = req.headers['x-license'];
  if (signature === undefined && signIn === undefined && license === undefined) {
    return challengeAnswer({ ...req, query: { skill: entry.id } }, ports);
  }
  const { body, settlement } = await unlockPack(
    {
      proof: {
        skill: entry.id,
        txHash: undefined,
        license,
        signInWithX: signIn === undefined ? undefined : readSignInWithXHeader(signIn, 'SIGN-IN-WITH-X'),
      },
      payment: signature === undefined ? undefined : { version: 2, value: decodePaymentHeader(signature), field: 'PAYMENT-SIGNATURE' },
      sourceIp: req.sourceIp,
    },
    ports.access,
    req.baseUrl,
  );
  const files = (body as { sealed_pack?: { files?: SealedPack } }).sealed_pack?.files;
  if (!files) throw notFound(`The pack of ${entry.id} is missing from this deployment.`);
  const { receipt, license: issued } = body as { receipt?: unknown; license?: { token?: unknown } };
  return {
    statusCode: 200,
    headers: {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="${entry.id}.zip"`,
      'cache-control': 'no-store',
      ...settlementHeaders(settlement),
      // The sale's signed receipt (docs/PAYMENTS.md, "Receipts"): the archive's body has no room for it.
      ...(typeof receipt === 'string' ? { 'x-receipt': receipt } : {}),
      // The license that gets the archive again (X-LICENSE on this URL, or POST /api/pay).
      ...(typeof issued?.token === 'string' ? { 'x-license': issued.token } : {}),
    },
    body: Buffer.from(packArchive(files)).toString('base64'),
    isBase64Encoded: true,
  };
}
