/**
 * The A2A agent card (protocol v0.3.0), signed: a JWS (ES256) over the RFC 8785 canonical
 * form of the card without `signatures`, with the payload detached, as A2A v0.3's
 * AgentCardSignature carries it ({protected, signature}). The key is the service key (the
 * ledger's, which signs receipts too), published at /.well-known/jwks.json and named by `kid`
 * (its RFC 7638 thumbprint) in the header.
 */
import type { AgentCard } from '@a2a-js/sdk';
import { canonicalize } from 'json-canonicalize';
import { links } from '../contract/links';
import { serviceJws, type ServiceSigner } from '../ledger';

export const A2A_PROTOCOL_VERSION = '0.3.0';
export const AGENT_VERSION = '1.0.0';

/** The x402 Payments Extension for A2A (v0.2, standalone flow) that a buy follows. */
export const A2A_X402_EXTENSION = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';

/** The agent card before signing: what this agent does and where, with the skills A2A clients can ask for. */
export function unsignedCard(baseUrl: string): AgentCard {
  const l = links(baseUrl);
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: 'Agent Skill Marketplace',
    description:
      'Sealed capability packs (skills) for software agents, paid in USDC on Base (chain 8453) over x402. Evaluation is free; one transfer unlocks one skill once; every unlock is on the public proof ledger.',
    url: l.a2a,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: l.a2a, transport: 'JSONRPC' }],
    version: AGENT_VERSION,
    provider: { organization: 'Agent Skill Marketplace', url: baseUrl },
    documentationUrl: `${l.site}/`,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      stateTransitionHistory: false,
      extensions: [
        {
          uri: A2A_X402_EXTENSION,
          description:
            'Buy a skill in the task: {"skill","buy":true} answers input-required with x402 v2 payment requirements; the signed payment (exact, EIP-3009) comes back in the same task and the service settles it.',
          required: false,
        },
      ],
    },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [
      {
        id: 'find-skills',
        name: 'Find skills',
        description: 'Describe a need in plain words; get ranked skills with prices and the next HTTP calls.',
        tags: ['search', 'catalog'],
        examples: ['I need to clean a messy CSV export'],
      },
      {
        id: 'evaluate',
        name: 'Evaluate a skill for free',
        description: 'Send a data part {"skill":"<id>"}: outline, sample, pack metadata and seal, and the payment challenge.',
        tags: ['esp', 'evaluate'],
      },
      {
        id: 'get-challenge',
        name: 'Get the payment challenge',
        description: 'The x402 challenge for a skill: amount in atomic USDC, payTo, asset contract on Base.',
        tags: ['x402', 'payment'],
      },
      {
        id: 'unlock',
        name: 'Unlock a paid skill',
        description:
          'After the USDC transfer, POST /api/pay with X-PAYMENT {"txHash","skill"} (or use the MCP unlock_skill tool) to receive the sealed pack; add X-AP2-MANDATE (a mnd_… id or the signed mandate) to buy under an AP2 mandate, signed by its agent. A wallet that already has access (a purchase, a subscription, a meter draw) gets the pack by signing SIGN-IN-WITH-X alone, without paying again.',
        tags: ['x402', 'unlock', 'ap2'],
      },
      {
        id: 'buy',
        name: 'Buy a skill in this task',
        description:
          'Send a data part {"skill":"<id>","buy":true}: the task asks for payment (input-required, x402 Payments Extension metadata x402.payment.required); send the signed x402 v2 payment in the same task (metadata x402.payment.status "payment-submitted" and x402.payment.payload) and the service settles it; the pack comes back as artifact "sealed-pack". Or send {"skill","txHash"} after your own transfer.',
        tags: ['x402', 'a2a-x402', 'payment', 'unlock'],
      },
      {
        id: 'check-access',
        name: "Check a wallet's access",
        description:
          'Send a data part {"wallet":"0x…","skill":"<id>"}: whether the wallet may use the skill and via what (one-time purchase, subscription, meter), as GET /api/access; when not, the next steps.',
        tags: ['access', 'subscription', 'meter'],
      },
      {
        id: 'list-mandates',
        name: "List a wallet's AP2 mandates",
        description: 'Send a data part {"wallet":"0x…"}: the wallet\'s AP2 mandates with status and spend, as GET /api/mandates.',
        tags: ['ap2', 'mandate'],
      },
      {
        id: 'prove',
        name: 'Prove unlocks',
        description: 'The public proof ledger of confirmed on-chain unlocks, per skill or overall.',
        tags: ['esp', 'proof'],
      },
    ],
  };
}

/** Signs a card; the signature covers everything in it except `signatures`. */
export async function signCard(card: AgentCard, signer: ServiceSigner, jwksUrl: string): Promise<AgentCard> {
  const { signatures: _ignored, ...unsigned } = card;
  const jws = await serviceJws(signer, { typ: 'JOSE', jku: jwksUrl }, canonicalize(unsigned));
  return { ...unsigned, signatures: [{ protected: jws.protected, signature: jws.signature }] };
}
