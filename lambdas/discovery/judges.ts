import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { skillCard } from '../catalog';
import { unlockFigures } from '../ledger';
import { SEED_JUDGES } from './esp';
import { links } from '../contract/links';
import type { DiscoveryPorts } from './ports';

const KIND = /-(judge|verifier|critic)$/;

/** GET /api/judges: judge, verifier and critic skills; quality only from the ledger (null when none). */
export async function getJudges(req: ApiRequest, ports: DiscoveryPorts): Promise<ApiResponse> {
  const summary = unlockFigures(await ports.figures.totals());
  const judges = ports.catalog.entries
    .filter((e) => KIND.test(e.id))
    .map((e) => {
      const unlocks = summary.perSkill[e.id] ?? 0;
      return {
        ...skillCard(e, req.baseUrl),
        kind: KIND.exec(e.id)![1],
        seed: (SEED_JUDGES as readonly string[]).includes(e.id),
        quality: unlocks > 0 ? { confirmed_unlocks: unlocks, source: links(req.baseUrl).skill(e.id).proof } : null,
      };
    })
    .sort((a, b) => Number(b.seed) - Number(a.seed) || (a.name < b.name ? -1 : 1));
  return json(200, {
    ok: true,
    count: judges.length,
    seed_judges: [...SEED_JUDGES],
    quality_rule: 'Quality is the number of confirmed unlocks on the proof ledger; null when there are none. Nothing else is scored.',
    judges,
  });
}
