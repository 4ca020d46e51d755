/**
 * MCP prompts: "find and buy a skill", the shortest path from a need to a pack a host can hand
 * its model: search, read the free sample, pay with x402, and get the pack again later without
 * paying twice. Every URL comes from `links`, every candidate from the catalog's own search.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { rankSkills, type Catalog } from '../catalog';
import { links } from '../contract/links';

export const FIND_AND_BUY = 'find_and_buy_skill';

/** How many of the catalog's best matches the prompt names. */
const CANDIDATES = 3;

/** The prompt's text for a need: the steps, with the catalog's best matches for it now. */
export function findAndBuyText(catalog: Catalog, baseUrl: string, need: string): string {
  const { results } = rankSkills(catalog, need, CANDIDATES, baseUrl);
  const top = results[0];
  const l = links(baseUrl);
  const example = l.skill(top?.skill_id ?? '<skill_id>');
  const candidates =
    results.length === 0
      ? 'The catalog search finds nothing for these words yet: try `search_skills` with other words.'
      : `The catalog ranks these first for it now:\n${results.map((r) => `- ${r.skill_id}: ${r.name} (${r.price_label})`).join('\n')}`;
  return [
    `I need: ${need}`,
    '',
    `Find a skill on ${baseUrl} that does this, and buy it for me only if its free sample fits.`,
    '',
    `1. Search: call the tool \`search_skills\` with my need as \`query\`. ${candidates}`,
    `2. Evaluate for free before paying: read the resources ${example.outline} (who it is for, its steps) and ${example.sample} (the opening of the skill), or call \`get_outline\` and \`get_sample\`; ${example.packs} lists the pack's files, sizes and seal. Drop a skill whose sample does not fit.`,
    `3. Pay with x402 (USDC on Base), and ask me before you do: it moves money. The amount, receiver and asset come from the service's challenge (\`get_payment_challenge\`, or GET ${example.challenge}), never from you. Call \`unlock_skill\` with the skill id alone: it answers x402's PaymentRequired (x402's MCP transport); sign an x402 v2 exact (EIP-3009) authorization for an entry of its \`accepts\` and call \`unlock_skill\` again with that PaymentPayload in \`_meta["x402/payment"]\` (or base64-encoded as \`payment_signature\`): the service submits the transfer, the wallet needs no ETH. Or point a stock x402 client at GET ${example.challenge}: it pays and receives the pack itself.`,
    "4. Keep the answer's `license.token`. To get the pack again later, call `unlock_skill` with `license_token`, or with `sign_in_with_x` signed by the paying wallet (over HTTP: the X-LICENSE or SIGN-IN-WITH-X header on /api/pay). Never pay twice for the same skill: a transfer unlocks one skill once.",
    '5. Check the pack against the seal in its pack metadata before using it.',
  ].join('\n');
}

/** Registers the prompts on a server before it connects (McpServer declares the prompts capability). */
export function servePrompts(server: McpServer, catalog: Catalog, baseUrl: string): void {
  server.registerPrompt(
    FIND_AND_BUY,
    {
      title: 'Find and buy a skill',
      description: 'Search the catalog for a need, evaluate the free sample, pay with x402 and keep the license to get the pack again.',
      argsSchema: { need: z.string().min(1).max(200).describe('What the skill should do, in your own words') },
    },
    ({ need }) => ({
      description: `Find and buy a skill for: ${need}`,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: findAndBuyText(catalog, baseUrl, need) } }],
    }),
  );
}
