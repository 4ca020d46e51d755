/**
 * llms.txt, generated from the catalog, the price source and the links module, so no
 * price or path in it can disagree with the API. Paths are relative: the file is static.
 *
 * It teaches the ways to buy in the order an agent should try them: a stock x402 v2 client (no
 * ETH needed: the service submits the transfer), then getting a pack again (license, wallet
 * sign-in, the purchases list; an owner is never charged twice), then the transfer-and-txHash
 * flow (the buyer's wallet sends the transfer and pays gas), then MCP and A2A.
 */
import type { CatalogEntry } from '../lambdas/contract/catalog-data';
import { links } from '../lambdas/contract/links';

/** The section headings, in the order the file teaches them (tests hold the order). */
export const LLMS_SECTIONS = {
  easiest: '## 1. Easiest: a stock x402 v2 client (no ETH needed)',
  again: '## 2. Get a pack again, never pay twice',
  txHash: '## 3. Pay by transfer, then POST the txHash',
  agents: '## 4. MCP and A2A',
} as const;

/** `x402-fetch` 1.x's default `maxValue`: 0.1 USDC in atomic units (its source: `BigInt(0.1 * 10 ** 6)`). */
export const X402_FETCH_V1_DEFAULT_CAP = 100_000n;
/** `@x402/fetch` 2.x's default `spendControls.maxAmountPerPayment`: $1, in USDC's atomic units. */
export const X402_FETCH_V2_DEFAULT_CAP = 1_000_000n;

/** The MCP tools llms.txt names: each one is listed by GET /api/mcp (an integration test checks). */
export const LLMS_MCP_TOOLS = [
  'search_skills',
  'get_outline',
  'get_sample',
  'get_payment_challenge',
  'unlock_skill',
  'check_access',
  'get_proof',
] as const;

export function renderLlmsTxt(entries: readonly CatalogEntry[], canaryId: string, featured: readonly string[]): string {
  const l = links('');
  const byId = new Map(entries.map((e) => [e.id, e]));
  const canary = byId.get(canaryId)!;
  const s = l.skill('<id>');
  const categories = [...new Set(entries.map((e) => e.category))].sort();
  // The stock clients' default caps, and the skills above each: what an agent with that client must raise.
  const amount = (e: CatalogEntry) => BigInt(e.x402.amount);
  const overV1Cap = entries.filter((e) => amount(e) > X402_FETCH_V1_DEFAULT_CAP);
  const overV2Cap = entries.filter((e) => amount(e) > X402_FETCH_V2_DEFAULT_CAP);
  const capExample = overV1Cap.reduce((a, b) => (amount(b) < amount(a) ? b : a), overV1Cap[0] ?? canary);
  const dearest = entries.reduce((a, b) => (amount(b) > amount(a) ? b : a));
  return [
    '# Agent Skill Marketplace',
    '',
    `> Sealed capability packs (${entries.length} skills) for software agents, paid in USDC on Base (chain 8453, CAIP-2 eip155:8453) over x402. Evaluation is free; one payment unlocks one skill, once; every unlock is on the public proof ledger.`,
    '',
    `Every path below is relative to this site. The 402 challenge from GET ${s.challenge} is authoritative for the amount, the receiver (payTo) and the asset. Never pay a legacy treasury address: only the payTo of the live challenge unlocks.`,
    '',
    'Choose and evaluate first (free, no wallet):',
    '',
    `- GET ${l.shop} (where an agent starts), or GET ${l.catalog}?q=<need>&max_price=<usd>, and choose a skill id`,
    `- GET ${s.outline} and ${s.sample}; ${s.packs} gives the pack's files and seal`,
    '',
    `Start with the canary, ${canary.name} (${canary.id}): ${canary.price_label}, amount ${canary.x402.amount} (list price $${canary.regular_price_usd}).`,
    '',
    LLMS_SECTIONS.easiest,
    '',
    `GET ${s.challenge} answers 402 with PAYMENT-REQUIRED (x402 v2, scheme exact on eip155:8453, USDC or USDbC). A stock x402 v2 client signs an EIP-3009 authorization for it and sends the same GET again with PAYMENT-SIGNATURE; the service submits the transfer and pays the gas, so the wallet needs USDC and no ETH. The answer is the pack (200), with PAYMENT-RESPONSE naming the transaction.`,
    '',
    '```ts',
    "import { wrapFetchWithPayment, x402Client } from '@x402/fetch';",
    "import { registerExactEvmScheme } from '@x402/evm/exact/client';",
    'const client = new x402Client();',
    'registerExactEvmScheme(client, { signer: account }); // a viem account holding USDC on Base; no ETH needed',
    `const res = await wrapFetchWithPayment(fetch, client)(new URL('${l.skill(canary.id).challenge}', SITE));`,
    'const unlock = await res.json(); // sealed_pack.files, seal, license.token, receipt',
    '```',
    '',
    `Save sealed_pack.files under ./packs/<id>/ and check the seal against ${s.packs}. Keep license.token: it is your key to the pack. The 402 also declares x402's Bazaar discovery extension (how to call the endpoint, the answer's schema) and its sign-in-with-x extension (section 2).`,
    '',
    "x402 v1 clients pay the same way from the 402's body (x402Version 1, accepts[] naming the token contract): x402-fetch 1.x `wrapFetchWithPayment(fetch, account)`, or x402-axios `withPaymentInterceptor(axios.create({ baseURL: SITE }), account)`.",
    '',
    `Spend caps: a stock client refuses a price above its cap before it signs, so nothing is charged, and throws its own message (not the 402's, which names the price in USDC and atomic units). x402-fetch 1.x caps at 0.1 USDC (maxValue, default ${X402_FETCH_V1_DEFAULT_CAP} atomic; it throws "Payment amount exceeds maximum allowed"), and ${overV1Cap.length} of the ${entries.length} skills cost more: pass the skill's amount (maxAmountRequired in the 402, x402.amount in the catalog) as its third argument, \`wrapFetchWithPayment(fetch, account, ${capExample.x402.amount}n)\` for ${capExample.id} (${capExample.price_label}). @x402/fetch 2.x caps at $1 (its error names spendControls.maxAmountPerPayment), and so does @x402/core's x402Client, which MCP and A2A clients sign with; ${overV2Cap.length} skills cost more (up to ${dearest.price_label}): \`client.setSpendControls({ maxAmountPerPayment: '${dearest.price_label}' })\` on either. x402-axios 0.7.2 has no cap: it pays what the 402 asks.`,
    '',
    LLMS_SECTIONS.again,
    '',
    'The chain and the proof ledger are public, so a txHash alone never gets a pack. The buyer gets it again with any of:',
    '',
    `- the license: POST ${l.pay} (or ${l.recover}) with header X-LICENSE: <license.token>; no payment, no chain lookup`,
    `- the paying wallet's signature: GET or POST ${s.challenge} with SIGN-IN-WITH-X (x402's sign-in-with-x, EIP-4361 over EIP-191; the 402's extensions say what to sign: this host, the resource as uri, a fresh nonce). A wallet that owns the skill (a purchase, a subscription, a meter draw) gets the pack; x402's own sign-in client (wrapFetchWithSIWx from @x402/extensions) does this before it would pay`,
    `- everything a wallet bought: GET ${l.purchases} with SIGN-IN-WITH-X whose uri is that URL and statement "See my purchases"; the answer lists each purchase with its license and signed receipt, and a session token: send Authorization: Bearer <token> for 15 minutes. A card buyer sends X-LICENSE instead. People use ${l.purchases_page}; a lost unlock is recovered at ${l.recover_page}`,
    '',
    'An owner paying again is not charged: when a stock x402 client signs a payment with a wallet that already owns the skill, the service answers with the pack and never settles the authorization.',
    '',
    LLMS_SECTIONS.txHash,
    '',
    'This path is for a wallet that sends its own transfer, so it needs a little ETH on Base for gas beside the USDC.',
    '',
    `1. GET ${s.challenge}: expect HTTP 402; read maxAmountRequired, payTo and assetContract (top level or accepts[0])`,
    '2. Transfer maxAmountRequired of USDC (or USDbC) to payTo on chain 8453; wait for 1 confirmation',
    `3. POST ${l.pay} with header X-PAYMENT: {"txHash":"0x…","skill":"<id>"} (the body may repeat it); on 402 with retry true, back off 2 s, 4 s, 8 s`,
    `4. Save sealed_pack.files, payment.txHash and license.token; GET ${s.proof} shows your row`,
    '',
    'One transfer unlocks one skill, once; POSTing the same txHash again returns the same pack to its buyer (license, wallet signature, or the same caller within 10 minutes) and charges nothing.',
    '',
    LLMS_SECTIONS.agents,
    '',
    `- MCP (Streamable HTTP, stateless): POST ${l.mcp}; GET ${l.mcp} lists the tools with their input schemas. ${LLMS_MCP_TOOLS.map((t) => `\`${t}\``).join(', ')}. unlock_skill is paid through x402's MCP transport: called with skill_id alone it answers x402's PaymentRequired as a tool error; call it again with the signed PaymentPayload in params._meta["x402/payment"] (no ETH) and the settlement comes back in _meta["x402/payment-response"]. It also takes payment_signature (the same payment base64-encoded), tx_hash, license_token or sign_in_with_x.`,
    `- MCP's Skills extension (io.modelcontextprotocol/skills, SEP-2640) on the same endpoint: skills/list gives every pack's skill:// URI, SKILL.md frontmatter and each file's sha256; skills/get of a pack answers x402's PaymentRequired (JSON-RPC error 402) until called with params._meta["x402/payment"] (or an owner's sign-in), then returns the files, whose digests equal the listing.`,
    `- Agent Skills discovery: ${l.agent_skills_index} lists every pack as a ZIP archive with the sha256 of its bytes; the archive is paid like ${l.skill('<id>').challenge}.`,
    `- Versions and provenance: a pack's versions are write-once; ${l.skill('<id>').packs} names the current one and lists earlier ones; ${l.skill('<id>').provenance()} is the version's SLSA provenance and checks, Sigstore bundles signed by the key at ${l.jwks} (add &version=<n> for an earlier one). A license re-downloads any version it covers with ?version=<n>.`,
    `- A2A 1.0 (JSON-RPC; a stock @a2a-js/sdk 1.x client connects with its defaults, and a v0.3 client sending no A2A-Version header speaks v0.3 on the same endpoint): POST ${l.a2a}; signed agent card at ${l.agent_card_a2a} (and ${l.agent_card}), key at ${l.jwks}. Send a message (SendMessage, or v0.3's message/send) with a data part {"skill":"<id>","buy":true} to get the payment requirements (x402's A2A extension), then the signed payment in the same task, or {"skill":"<id>","txHash":"0x…"} after a transfer; a text part searches.`,
    '',
    '## Featured x402 resources',
    '',
    ...featured.map((id) => {
      const e = byId.get(id)!;
      return `- [${e.name}](${l.skill(e.id).outline}): ${e.price_label} (amount ${e.x402.amount}, list $${e.regular_price_usd}) via ${l.skill(e.id).challenge}`;
    }),
    '',
    '## Endpoints',
    '',
    `- [ESP root](${l.esp}): Evaluate, Settle, Prove; the skill cycle at ${l.esp}?skill=<id>`,
    `- [OpenAPI 3.1](${l.openapi}): every route; the spec's ten x402 resources under x-x402-resources`,
    `- [x402 discovery](${l.x402_discovery}): every skill as an x402 resource (x402 Bazaar's list: items, pagination; ?limit=&offset=)`,
    `- [Catalog](${l.catalog_json}) and [search](${l.catalog}): ?q=&category=&max_price=&limit= (at most 100 a page); follow next_cursor with ?cursor= for the next page`,
    `- [Intent search and bounties](${l.intent_post})`,
    `- [Judges, verifiers and critics](${l.judges})`,
    `- [Proof ledger](${l.proof})`,
    `- [Readiness](${l.ready})`,
    '',
    '## Categories',
    '',
    ...categories.map((c) => `- ${c}: ${entries.filter((e) => e.category === c).length} skills (${l.catalog}?category=${c})`),
    '',
  ].join('\n');
}
