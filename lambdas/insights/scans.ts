/**
 * GET /api/security and GET /api/eval: the reports the catalog build wrote after running the
 * security scan and the eval suite over every pack (catalog/security-scan.ts,
 * catalog/eval-suite.ts). Served as built, with one check made at request time: whether the
 * pack seal each result was computed for is the seal of the pack sold now.
 */
import { links } from '../contract/links';
import { requireSkill } from '../catalog';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import type { InsightsPorts } from './ports';

/** Whether a result was computed for the pack sold now. */
const sealMatches = (ports: InsightsPorts, skillId: string, seal: string): boolean => ports.catalog.packMeta(skillId)?.seal === seal;

export async function getSecurity(req: ApiRequest, ports: InsightsPorts): Promise<ApiResponse> {
  const report = ports.reports.security();
  const base = links(req.baseUrl);
  const { skills, ...head } = report;
  if (req.query['skill'] !== undefined) {
    const id = requireSkill(ports.catalog, req.query['skill']).id;
    const result = skills[id]!;
    return json(200, {
      ok: true,
      ...head,
      sarif: base.security_sarif,
      skill: { ...result, seal_matches: sealMatches(ports, id, result.seal) },
    });
  }
  return json(200, {
    ok: true,
    ...head,
    sarif: base.security_sarif,
    skills: Object.values(skills).map((s) => ({ ...s, seal_matches: sealMatches(ports, s.skill_id, s.seal) })),
  });
}

export async function getEval(req: ApiRequest, ports: InsightsPorts): Promise<ApiResponse> {
  const report = ports.reports.evals();
  const { skills, ...head } = report;
  if (req.query['skill'] !== undefined) {
    const id = requireSkill(ports.catalog, req.query['skill']).id;
    const result = skills[id]!;
    return json(200, { ok: true, ...head, skill: { ...result, seal_matches: sealMatches(ports, id, result.seal) } });
  }
  return json(200, {
    ok: true,
    ...head,
    skills: Object.values(skills).map((s) => ({ ...s, seal_matches: sealMatches(ports, s.skill_id, s.seal) })),
  });
}
