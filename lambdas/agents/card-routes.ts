import type { AgentCard } from '@a2a-js/sdk';
import { links } from '../contract/links';
import { A2A_VERSION_HEADER } from '../contract/routes';
import { lruPerOwner } from '../platform/memo';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { jwks } from '../ledger';
import { legacyCard, signCard, signLegacyCard, unsignedCard, type LegacyAgentCard } from './agent-card';
import { speaksLegacy } from './a2a-version';
import type { AgentsPorts } from './ports';

interface SignedCards {
  /** The A2A 1.0 card. */
  card: AgentCard;
  /** Its v0.3 rendering, for callers that ask for 0.3 or name no version. */
  legacy: LegacyAgentCard;
}

const cards = lruPerOwner<AgentsPorts, Promise<SignedCards>>(20);

async function signBoth(ports: AgentsPorts, baseUrl: string): Promise<SignedCards> {
  const jwksUrl = links(baseUrl).jwks;
  const unsigned = unsignedCard(baseUrl);
  const [card, legacy] = await Promise.all([
    signCard(unsigned, ports.serviceSigner, jwksUrl),
    signLegacyCard(legacyCard(unsigned), ports.serviceSigner, jwksUrl),
  ]);
  return { card, legacy };
}

/** The signed cards for a base URL, signed once per instance and base URL (two KMS calls in AWS). */
export function signedCards(ports: AgentsPorts, baseUrl: string): Promise<SignedCards> {
  const cache = cards(ports);
  let signed = cache.get(baseUrl);
  if (!signed) {
    signed = signBoth(ports, baseUrl);
    signed.catch(() => cache.delete(baseUrl));
    cache.set(baseUrl, signed);
  }
  return signed;
}

/** The signed A2A 1.0 card for a base URL. */
export const signedCard = async (ports: AgentsPorts, baseUrl: string): Promise<AgentCard> => (await signedCards(ports, baseUrl)).card;

/**
 * GET /.well-known/agent-card.json (A2A's path) and /.well-known/agent.json (the spec's): the
 * card in the version the caller asks for with A2A-Version, as A2A 1.0's version negotiation
 * (§3.6.2) and the SDK's card route answer it: 1.0 to a 1.x client (its resolver sends
 * `A2A-Version: 1.0`), the v0.3 card to a request naming 0.3 or no version (what v0.3 clients
 * send); that card embeds the 1.0 interfaces too. `Vary` tells caches, and the CDN keys on it.
 */
export async function getAgentCard(req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  const { card, legacy } = await signedCards(ports, req.baseUrl);
  return json(200, speaksLegacy(req.headers) ? legacy : card, { 'cache-control': 'public, max-age=300', vary: A2A_VERSION_HEADER });
}

/** GET /.well-known/jwks.json: the service key, which signs the agent card and every sale's receipt. */
export async function getJwks(_req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  return json(200, await jwks(ports.serviceSigner), { 'cache-control': 'public, max-age=300' });
}
