/**
 * GET /api/esp: without `skill` the ESP root document (every field of the spec's table);
 * with `skill` the skill's full cycle; with `phase` one slice; `phase=prove&tx=` one
 * transaction's ledger row. Every figure is read from the ledger; none is invented.
 */
import { formatAtomic, TX_HASH } from '../contract/chain';
import { chainLabel } from '../contract/networks';
import { invalidRequest } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { requireSkill, skillRequired } from '../catalog';
import { publicRow, unlockFigures } from '../ledger';
import { ESP_PROTOCOL_VERSION, espCycle } from './esp-cycle';
import { links, SKILL_PLACEHOLDER } from '../contract/links';
import type { DiscoveryPorts } from './ports';

export const ESP_SCHEMA_ID = 'market-esp-protocol-v1';
export const ESP_PHASES = ['evaluate', 'settle', 'prove', 'cycle'] as const;
export const SEED_JUDGES = ['esp-outcome-judge', 'esp-claim-verifier', 'esp-delivery-critic'] as const;

/** The ledger's figures as ESP and the shop report them: the tallies and the newest row. quality_score stays null: nothing computes one. */
export async function confirmedActivity(ports: Pick<DiscoveryPorts, 'ledger' | 'figures'>, base: string) {
  const [totals, newest] = await Promise.all([ports.figures.totals(), ports.ledger.recent(1)]);
  const s = unlockFigures(totals);
  const row = newest?.rows[0];
  return {
    confirmed_unlocks: s.confirmed,
    volume_usd: Number(formatAtomic(s.volumeAtomic)),
    unique_skills: Object.keys(s.perSkill).length,
    last_verified: row?.recordedAt ?? null,
    last_tx: row?.txHash ?? null,
    quality_score: null,
    source: links(base).proof,
    honesty:
      'Counts of the confirmed rows of the proof ledger, kept by every claim and reorg and checked against a recount by the reconcile job; zero and null mean nothing has happened yet, not that data is missing.',
    per_skill: s.perSkill,
  };
}

export function moneySafety(ports: Pick<DiscoveryPorts, 'config'>) {
  const { config } = ports;
  return {
    network: config.network.name,
    network_caip2: config.network.caip2,
    asset: 'USDC',
    asset_contract: config.assets.USDC ?? null,
    also_accepted: config.assets.USDbC ? [{ asset: 'USDbC', asset_contract: config.assets.USDbC }] : [],
    pay_to: config.treasury?.toLowerCase() ?? null,
    // The treasury is stored in its EIP-55 form (contract/settings.ts checksums every address it accepts).
    pay_to_canonical: config.treasury ?? null,
    legacy_treasury_banned: config.legacyTreasury ?? null,
    rule: `Pay only the payTo of the live 402 challenge; a transfer to the banned legacy treasury never unlocks. Gas is paid in ETH on ${config.network.label}.`,
  };
}

/** The root document; a caller that already read the ledger passes its activity so the rows are read once. */
export async function espRoot(ports: DiscoveryPorts, base: string, known?: Awaited<ReturnType<typeof confirmedActivity>>) {
  const l = links(base);
  const s = l.skill(SKILL_PLACEHOLDER);
  const canary = ports.catalog.get(ports.catalog.pricing.canary)!;
  const { per_skill: _perSkill, ...activity } = known ?? (await confirmedActivity(ports, base));
  return {
    ok: true,
    schema: ESP_SCHEMA_ID,
    protocol: 'ESP',
    protocol_version: ESP_PROTOCOL_VERSION,
    name: 'Agent Skill Marketplace',
    site: l.site,
    philosophy: {
      free_evaluation_sacred: true,
      settlement_atomic_one_time: true,
      proof_public_only_success_signal: true,
      never_invent_metrics: true,
      evaluators_are_esp_skills: true,
    },
    invariants: {
      free_eval_always: true,
      settlement_atomic: true,
      proof_public_only: true,
      no_invented_metrics: true,
      source_of_truth: l.proof,
    },
    phases: {
      evaluate: {
        cost: 'free',
        description:
          'Read the outline, the sample and the pack metadata (files, sizes, sha256, seal) and the shape of the 402 challenge. Never requires payment.',
        endpoints: [s.evaluate, s.outline, s.sample, s.packs],
      },
      settle: {
        cost: `the skill's price in USDC on ${chainLabel(ports.config.network)}, e.g. ${canary.price_label} (amount ${canary.x402.amount}) for the canary`,
        description:
          'One USDC (or USDbC) transfer to the challenge payTo, then POST the transaction hash; one transfer unlocks one skill, once, and a replay returns the same pack.',
        endpoints: [s.challenge, `${l.pay} (POST, X-PAYMENT)`, `${l.recover} (POST)`],
      },
      prove: {
        cost: 'free',
        description: 'The public ledger of confirmed on-chain unlocks, the only source of success figures.',
        endpoints: [l.proof, s.proof],
        source_of_truth: l.proof,
      },
    },
    money_safety: moneySafety(ports),
    confirmed_activity: activity,
    canary: {
      skill_id: canary.id,
      price_usd: canary.price_usd,
      cycle: l.skill(canary.id).cycle,
      blurb: `The cheapest live path (${canary.price_label}): buy it first to prove your rails before larger purchases.`,
    },
    discovery: {
      shop: l.shop,
      catalog: l.catalog,
      intent: l.intent,
      intent_post: l.intent_post,
      intent_list: l.intent_list,
      judges: l.judges,
      mcp: l.mcp,
      agent_card: l.agent_card,
      openapi: l.openapi,
      llms: l.llms,
      ready: l.ready,
      esp_schema: l.esp_schema,
      esp_discovery: l.esp_discovery,
      bundles: l.bundles,
      trust: l.trust,
      security: l.security,
      security_sarif: l.security_sarif,
      eval: l.eval,
      signals: l.signals,
      revenue: l.revenue,
    },
    p1: {
      recursive_evaluators: l.judges,
      seed_judges: [...SEED_JUDGES],
      intent_bounty: {
        post: l.intent_post,
        list: l.intent_list,
        get: l.intent_get,
        required_fields: ['title or description', 'success_criteria'],
      },
    },
    roadmap: {
      p0: 'core ESP cycle and readiness',
      p1: 'recursive evaluator market and intent/bounty surface, live',
      p2: 'sealed capability graphs and memory as sealed packs',
    },
    agent_purchase_sequence: [
      `GET ${l.shop}`,
      `GET ${l.catalog}?q=<need>&max_price=<usd> and choose a skill id`,
      `GET ${s.outline} (free evaluation)`,
      `GET ${s.challenge} and expect 402`,
      `Transfer maxAmountRequired of USDC to payTo on ${chainLabel(ports.config.network)} (keep a little ETH for gas)`,
      `POST ${l.pay} with X-PAYMENT: {"txHash":"<TX_HASH>","skill":"<SKILL_ID>"}`,
    ],
  };
}

export async function getEsp(req: ApiRequest, ports: DiscoveryPorts): Promise<ApiResponse> {
  const phase = req.query['phase'];
  const tx = req.query['tx'];
  if (phase !== undefined && !(ESP_PHASES as readonly string[]).includes(phase)) {
    throw invalidRequest('phase', `Unknown phase "${phase.slice(0, 40)}".`, `Use one of: ${ESP_PHASES.join(', ')}.`);
  }
  if (req.query['skill'] === undefined) {
    if (phase !== undefined || tx !== undefined) throw skillRequired('query parameter `skill` (a phase needs a skill)');
    return json(200, await espRoot(ports, req.baseUrl));
  }
  const entry = requireSkill(ports.catalog, req.query['skill']);
  if (tx !== undefined) {
    if (phase !== 'prove') throw invalidRequest('tx', '`tx` goes with phase=prove.', `GET /api/esp?skill=${entry.id}&phase=prove&tx=0x…`);
    if (!TX_HASH.test(tx))
      throw invalidRequest('tx', '`tx` must be 0x followed by 64 hex digits.', 'Use the transaction hash of the transfer.');
    const row = await ports.ledger.get(ports.config.network.name, tx.toLowerCase());
    const recorded = row !== undefined && row.status === 'confirmed' && row.skill === entry.id;
    return json(200, {
      ok: true,
      skill_id: entry.id,
      phase: 'prove',
      tx: tx.toLowerCase(),
      recorded,
      row: recorded ? publicRow(row) : null,
      message: recorded
        ? 'Recorded on the proof ledger.'
        : `Not recorded: no confirmed unlock of ${entry.id} by this transaction is on the ledger.`,
      source_of_truth: links(req.baseUrl).skill(entry.id).proof,
    });
  }
  const cycle = await espCycle(entry, ports, req.baseUrl);
  if (phase === undefined || phase === 'cycle') return json(200, cycle);
  const slice = phase as 'evaluate' | 'settle' | 'prove';
  return json(200, {
    ok: true,
    protocol: 'ESP',
    protocol_version: ESP_PROTOCOL_VERSION,
    skill_id: entry.id,
    phase: slice,
    [slice]: cycle[slice],
  });
}
