/**
 * GET /api/packs/provenance?skill=<id>[&version=<n>]: a version's signed provenance (issue 52,
 * docs/PROVENANCE.md), in npm's attestations shape: the SLSA provenance statement and the pack
 * checks statement, each a Sigstore bundle signed with the service key (/.well-known/jwks.json).
 * Each statement is signed on its first request and kept (write-once); later requests, on any
 * instance, answer the kept bundle.
 */
import { skillRequired } from '../catalog';
import { digestRef } from '../contract/pack-versions';
import {
  PROVENANCE_PREDICATE_TYPES,
  provenanceStatement,
  statementPayload,
  type ProvenanceDocument,
  type ProvenanceInput,
  type ProvenancePredicateType,
} from '../contract/provenance';
import { invalidRequest, notFound } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import type { DiscoveryPorts, ProvenancePorts, SigstoreBundleJson } from './ports';

const VERSION = /^[1-9]\d{0,8}$/;

/** The kept bundle of a version's statement, signing and keeping it first if nobody has. */
export async function signedStatement(
  ports: ProvenancePorts,
  input: ProvenanceInput,
  type: ProvenancePredicateType,
): Promise<SigstoreBundleJson> {
  const kept = await ports.store.get(input.digest, type);
  if (kept) return kept;
  const bundle = await ports.signer.sign(statementPayload(provenanceStatement(input, type)));
  return ports.store.keepFirst(input.digest, type, bundle);
}

export async function getPackProvenance(req: ApiRequest, ports: DiscoveryPorts): Promise<ApiResponse> {
  const skill = req.query['skill']?.trim();
  if (!skill) throw skillRequired();
  const rawVersion = req.query['version'];
  if (rawVersion !== undefined && !VERSION.test(rawVersion.trim()))
    throw invalidRequest(
      'version',
      `\`version\` must be a version number (1, 2, …), got "${rawVersion.slice(0, 20)}".`,
      'Leave it out for the current version; /api/packs lists the versions.',
    );
  const provenance = await ports.provenance();
  const versions = skill.length <= 100 ? await provenance.inputs.versions(skill) : undefined;
  if (!versions || versions.length === 0)
    throw notFound(`Unknown skill "${skill.slice(0, 100)}".`, 'GET /catalog.json or /api/catalog?q=… lists the skill ids.');
  const input = rawVersion === undefined ? versions.at(-1)! : versions.find((v) => v.version === Number(rawVersion.trim()));
  if (!input)
    throw notFound(
      `${skill} has no version ${rawVersion!.trim()}.`,
      `Its versions are 1 to ${versions.at(-1)!.version}; leave \`version\` out for the current one.`,
    );
  const bundles = await Promise.all(PROVENANCE_PREDICATE_TYPES.map((type) => signedStatement(provenance, input, type)));
  const document: ProvenanceDocument = {
    skill_id: input.skill_id,
    version: input.version,
    digest: digestRef(input.digest),
    published: input.published,
    attestations: PROVENANCE_PREDICATE_TYPES.map((predicateType, i) => ({ predicateType, bundle: bundles[i] })),
  };
  return json(200, document);
}
