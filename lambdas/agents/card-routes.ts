import type { AgentCard } from '@a2a-js/sdk';
import { links } from '../contract/links';
import { lruPerOwner } from '../platform/memo';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { jwks } from '../ledger';
import { signCard, unsignedCard } from './agent-card';
import type { AgentsPorts } from './ports';

const cards = lruPerOwner<AgentsPorts, Promise<AgentCard>>(20);

/** The signed card for a base URL, signed once per instance and base URL (a KMS call in AWS). */
export function signedCard(ports: AgentsPorts, baseUrl: string): Promise<AgentCard> {
  const cache = cards(ports);
  let card = cache.get(baseUrl);
  if (!card) {
    card = signCard(unsignedCard(baseUrl), ports.serviceSigner, links(baseUrl).jwks);
    card.catch(() => cache.delete(baseUrl));
    cache.set(baseUrl, card);
  }
  return card;
}

/** GET /.well-known/agent.json (the spec's path) and /.well-known/agent-card.json (A2A's). */
export async function getAgentCard(req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  return json(200, await signedCard(ports, req.baseUrl), { 'cache-control': 'public, max-age=300' });
}

/** GET /.well-known/jwks.json: the service key, which signs the agent card and every sale's receipt. */
export async function getJwks(_req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  return json(200, await jwks(ports.serviceSigner), { 'cache-control': 'public, max-age=300' });
}
