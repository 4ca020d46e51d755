/**
 * Every URL the marketplace advertises, built in one place: absolute for API answers,
 * relative ('' base) for static files such as llms.txt. Tests walk them all.
 */
export const SKILL_PLACEHOLDER = '<SKILL_ID>';

export function links(base: string) {
  return {
    site: base || '/',
    shop: `${base}/api/shop`,
    catalog: `${base}/api/catalog`,
    catalog_json: `${base}/catalog.json`,
    intent: `${base}/api/intent?q=`,
    intent_post: `${base}/api/intent`,
    intent_list: `${base}/api/intent?list=1`,
    intent_get: `${base}/api/intent?id=<intent_id>`,
    intent_by_id: (id: string) => `${base}/api/intent?id=${id}`,
    judges: `${base}/api/judges`,
    mcp: `${base}/api/mcp`,
    a2a: `${base}/api/a2a`,
    agent_card: `${base}/.well-known/agent.json`,
    agent_card_a2a: `${base}/.well-known/agent-card.json`,
    jwks: `${base}/.well-known/jwks.json`,
    openapi: `${base}/api/openapi.json`,
    llms: `${base}/llms.txt`,
    ready: `${base}/api/ready`,
    health: `${base}/api/health`,
    esp: `${base}/api/esp`,
    esp_schema: `${base}/esp/cycle.schema.json`,
    esp_discovery: `${base}/.well-known/esp.json`,
    x402_discovery: `${base}/.well-known/x402`,
    proof: `${base}/api/proof`,
    pay: `${base}/api/pay`,
    recover: `${base}/api/recover`,
    recover_page: `${base}/recover/`,
    mandates: `${base}/api/mandates`,
    mandates_of: (wallet: string) => `${base}/api/mandates?wallet=${wallet}`,
    agent_identity: `${base}/api/agent-identity`,
    access: `${base}/api/access`,
    access_of: (wallet: string, skill: string) => `${base}/api/access?wallet=${wallet}&skill=${skill}`,
    subscribe: `${base}/api/subscribe`,
    meter: `${base}/api/meter`,
    meter_of: (wallet: string) => `${base}/api/meter?wallet=${wallet}`,
    skill: (id: string) => ({
      cycle: `${base}/api/esp?skill=${id}`,
      evaluate: `${base}/api/esp?skill=${id}&phase=evaluate`,
      outline: `${base}/skills/${id}/outline.json`,
      sample: `${base}/skills/${id}/sample.md`,
      packs: `${base}/api/packs?skill=${id}`,
      challenge: `${base}/api/pay?skill=${id}`,
      proof: `${base}/api/proof?skill=${id}`,
    }),
  };
}
