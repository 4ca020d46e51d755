/**
 * The A2A agent card (protocol 1.0), signed, and its v0.3 rendering for clients that have not
 * moved yet. Both are signed with the service key (the ledger's, which signs receipts too),
 * published at /.well-known/jwks.json and named by `kid` (its RFC 7638 thumbprint) in the
 * header: a JWS (ES256) with the payload detached, as AgentCardSignature carries it
 * ({protected, signature}). The 1.0 card's payload is the SDK's `canonicalizeAgentCard` (A2A
 * 1.0 §8.4.1: RFC 8785 over the card as 1.0's schema reads it, without `signatures`), so a stock
 * 1.x verifier checks it; the v0.3 card's is RFC 8785 over the whole card without `signatures`,
 * as v0.3 signed it.
 *
 * One endpoint speaks both versions (JSON-RPC at /api/a2a): the 1.0 card lists it twice,
 * `protocolVersion` 1.0 and 0.3 (the SDK's `duplicateInterfacesForLegacy`), and the v0.3 card is
 * the SDK's translation of the 1.0 one (`url`, `preferredTransport`, `additionalInterfaces`),
 * which also embeds the 1.0 interfaces, as the SDK's legacy card route serves it.
 */
import { canonicalizeAgentCard, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { canonicalize } from 'json-canonicalize';
import { links } from '../contract/links';
import { serviceJws, type ServiceSigner } from '../ledger';

/** The A2A protocol version this agent speaks first; 0.3 is served beside it on the same endpoint. */
export const A2A_PROTOCOL_VERSION = '1.0';
/** The version a v0.3 card states (v0.3 wrote it with a patch number). */
export const A2A_LEGACY_CARD_VERSION = '0.3.0';
export const AGENT_VERSION = '1.1.0';

/** The x402 Payments Extension for A2A (v0.2, standalone flow, its latest) that a buy follows. */
export const A2A_X402_EXTENSION = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';

/** A skill as the card lists it: what 1.0 requires beyond id, name, description and tags is empty. */
const skill = (s: Pick<AgentSkill, 'id' | 'name' | 'description' | 'tags'> & { examples?: string[] }): AgentSkill => ({
  examples: [],
  inputModes: [],
  outputModes: [],
  securityRequirements: [],
  ...s,
});

/** The agent card before signing: what this agent does and where, with the skills A2A clients can ask for. */
export function unsignedCard(baseUrl: string): AgentCard {
  const l = links(baseUrl);
  return {
    name: 'Agent Skill Marketplace',
    description:
      'Sealed capability packs (skills) for software agents, paid in USDC on Base (chain 8453) over x402. Evaluation is free; one transfer unlocks one skill once; every unlock is on the public proof ledger.',
    // JSON-RPC is the binding a stock 1.x client tries first (its factory walks the card's interfaces in order).
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url: l.a2a, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
      ['JSONRPC'],
    ),
    version: AGENT_VERSION,
    provider: { organization: 'Agent Skill Marketplace', url: baseUrl },
    documentationUrl: `${l.site}/`,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: A2A_X402_EXTENSION,
          description:
            'Buy a skill in the task: {"skill","buy":true} answers input-required with x402 v2 payment requirements; the signed payment (exact, EIP-3009) comes back in the same task and the service settles it.',
          required: false,
          params: undefined,
        },
      ],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [
      skill({
        id: 'find-skills',
        name: 'Find skills',
        description: 'Describe a need in plain words; get ranked skills with prices and the next HTTP calls.',
        tags: ['search', 'catalog'],
        examples: ['I need to clean a messy CSV export'],
      }),
      skill({
        id: 'evaluate',
        name: 'Evaluate a skill for free',
        description: 'Send a data part {"skill":"<id>"}: outline, sample, pack metadata and seal, and the payment challenge.',
        tags: ['esp', 'evaluate'],
      }),
      skill({
        id: 'get-challenge',
        name: 'Get the payment challenge',
        description: 'The x402 challenge for a skill: amount in atomic USDC, payTo, asset contract on Base.',
        tags: ['x402', 'payment'],
      }),
      skill({
        id: 'unlock',
        name: 'Unlock a paid skill',
        description:
          'After the USDC transfer, POST /api/pay with X-PAYMENT {"txHash","skill"} (or use the MCP unlock_skill tool) to receive the sealed pack; add X-AP2-MANDATE (a mnd_… id or the signed mandate) to buy under an AP2 mandate, signed by its agent. A wallet that already has access (a purchase, a subscription, a meter draw) gets the pack by signing SIGN-IN-WITH-X alone, without paying again.',
        tags: ['x402', 'unlock', 'ap2'],
      }),
      skill({
        id: 'buy',
        name: 'Buy a skill in this task',
        description:
          'Send a data part {"skill":"<id>","buy":true}: the task asks for payment (input-required, x402 Payments Extension metadata x402.payment.required); send the signed x402 v2 payment in the same task (metadata x402.payment.status "payment-submitted" and x402.payment.payload) and the service settles it; the pack comes back as artifact "sealed-pack". Or send {"skill","txHash"} after your own transfer.',
        tags: ['x402', 'a2a-x402', 'payment', 'unlock'],
      }),
      skill({
        id: 'check-access',
        name: "Check a wallet's access",
        description:
          'Send a data part {"wallet":"0x…","skill":"<id>"}: whether the wallet may use the skill and via what (one-time purchase, subscription, meter), as GET /api/access; when not, the next steps.',
        tags: ['access', 'subscription', 'meter'],
      }),
      skill({
        id: 'list-mandates',
        name: "List a wallet's AP2 mandates",
        description: 'Send a data part {"wallet":"0x…"}: the wallet\'s AP2 mandates with status and spend, as GET /api/mandates.',
        tags: ['ap2', 'mandate'],
      }),
      skill({
        id: 'prove',
        name: 'Prove unlocks',
        description: 'The public proof ledger of confirmed on-chain unlocks, per skill or overall.',
        tags: ['esp', 'proof'],
      }),
    ],
    signatures: [],
  };
}

/** Signs a 1.0 card; the signature covers what `canonicalizeAgentCard` keeps (everything but `signatures`). */
export async function signCard(card: AgentCard, signer: ServiceSigner, jwksUrl: string): Promise<AgentCard> {
  const jws = await serviceJws(signer, { typ: 'JOSE', jku: jwksUrl }, canonicalizeAgentCard(card));
  return { ...card, signatures: [{ protected: jws.protected, signature: jws.signature, header: undefined }] };
}

/** An A2A v0.3 agent card, as v0.3 clients read it (the SDK's own v0.3 type is not public). */
export type LegacyAgentCard = Record<string, unknown> & { url: string; protocolVersion: string; signatures?: unknown[] };

/**
 * The v0.3 rendering of a 1.0 card, as the SDK's legacy card route translates it: the first
 * v0.3 interface as `url` and `preferredTransport`, the others as `additionalInterfaces`, skills
 * without 1.0's empty lists, and the 1.0 interfaces embedded so a 1.x client reading it still
 * finds them. Unsigned: {@link signLegacyCard} signs what it says.
 */
export function legacyCard(card: AgentCard): LegacyAgentCard {
  const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith('0.3'));
  const [primary, ...others] = legacy;
  if (!primary) throw new Error('The card lists no v0.3 interface.');
  const { extendedAgentCard: _extended, ...capabilities } = card.capabilities ?? { extensions: [] };
  return {
    protocolVersion: A2A_LEGACY_CARD_VERSION,
    name: card.name,
    description: card.description,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    ...(others.length > 0 ? { additionalInterfaces: others.map((i) => ({ url: i.url, transport: i.protocolBinding })) } : {}),
    version: card.version,
    ...(card.provider ? { provider: card.provider } : {}),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    capabilities: {
      ...capabilities,
      extensions: capabilities.extensions.map(({ params: _params, ...e }) => e),
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ id, name, description, tags, examples }) => ({
      id,
      name,
      description,
      tags,
      ...(examples.length > 0 ? { examples } : {}),
    })),
    supportedInterfaces: card.supportedInterfaces,
  };
}

/** Signs a v0.3 card as v0.3 did: RFC 8785 over everything but `signatures`. */
export async function signLegacyCard(card: LegacyAgentCard, signer: ServiceSigner, jwksUrl: string): Promise<LegacyAgentCard> {
  const { signatures: _ignored, ...unsigned } = card;
  const jws = await serviceJws(signer, { typ: 'JOSE', jku: jwksUrl }, canonicalize(unsigned));
  return { ...unsigned, signatures: [{ protected: jws.protected, signature: jws.signature }] } as LegacyAgentCard;
}
