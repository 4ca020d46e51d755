import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { optionalInteger } from '../platform/query';
import { ESP_PROTOCOL_VERSION } from './esp-cycle';
import { ESP_PHASES, ESP_SCHEMA_ID } from './esp';
import { links } from '../contract/links';
import type { DiscoveryPorts } from './ports';
import { x402Discovery } from './x402-resources';

/** GET /.well-known/x402: every purchasable skill in x402 Bazaar's list shape, a page at a time (`limit`, `offset`). */
export async function getX402Discovery(req: ApiRequest, ports: DiscoveryPorts): Promise<ApiResponse> {
  const limit = optionalInteger(req, 'limit', { min: 1, max: 100, fallback: 100 });
  const offset = optionalInteger(req, 'offset', { min: 0, max: 10_000, fallback: 0 });
  // Each item's accepts are its 402's, the escrow's terms those of this minute's challenge.
  const operator = await ports.escrowOperator().catch(() => undefined);
  const escrow = operator ? { operator, nowSeconds: Math.floor(ports.now().getTime() / 1000) } : undefined;
  return json(200, x402Discovery(ports.catalog, ports.config, req.baseUrl, limit, offset, escrow));
}

/** GET /.well-known/esp.json: where every ESP document of this deployment is. */
export function getEspDiscovery(req: ApiRequest): ApiResponse {
  const l = links(req.baseUrl);
  return json(200, {
    ok: true,
    schema: ESP_SCHEMA_ID,
    protocol: 'ESP',
    protocol_version: ESP_PROTOCOL_VERSION,
    root: l.esp,
    cycle: `${l.esp}?skill=<SKILL_ID>`,
    phases: [...ESP_PHASES],
    cycle_schema: l.esp_schema,
    proof: l.proof,
    shop: l.shop,
    judges: l.judges,
    openapi: l.openapi,
    llms: l.llms,
    x402_discovery: l.x402_discovery,
    agent_card: l.agent_card,
    mcp: l.mcp,
    insights: { bundles: l.bundles, trust: l.trust, security: l.security, eval: l.eval, signals: l.signals, revenue: l.revenue },
  });
}
