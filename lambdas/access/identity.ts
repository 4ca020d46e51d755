/**
 * GET /api/agent-identity?address=[&agent_id=]: who an address is here. Its local reputation
 * is read from its counters (folded from the ledger's stream: every claim and reorg of its proof-ledger rows) and its access items, nothing else; with `agent_id`,
 * its ERC-8004 registration is read from the configured Identity Registry and `verified` only
 * when the registry names the address as the agent's owner or agent wallet.
 */
import { formatAtomic } from '../contract/chain';
import { invalidRequest } from '../platform/errors';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { walletFigures } from '../ledger';
import { walletParam } from './params';
import type { AccessPorts } from './ports';

/** ERC-721 token ids are uint256: up to 78 decimal digits. */
const AGENT_ID = /^(0|[1-9][0-9]{0,77})$/;

async function erc8004(agentIdRaw: string | undefined, address: string, ports: AccessPorts) {
  if (agentIdRaw === undefined) return { checked: false, reason: 'Give agent_id to check an ERC-8004 registration.' };
  if (!AGENT_ID.test(agentIdRaw.trim())) {
    throw invalidRequest(
      'agent_id',
      '`agent_id` must be a decimal ERC-8004 agent id (uint256).',
      'Use the id `register` returned in the Identity Registry.',
    );
  }
  const agentId = BigInt(agentIdRaw.trim());
  if (agentId >= 2n ** 256n) throw invalidRequest('agent_id', '`agent_id` is larger than a uint256.', 'Use the id `register` returned.');
  const registry = ports.identity.address;
  if (!registry)
    return { checked: false, agent_id: agentId.toString(), reason: 'No Identity Registry is configured (IDENTITY_REGISTRY_ADDRESS).' };
  const lookup = await ports.identity.lookup(agentId);
  const where = { registry: `${ports.payments.config.network.caip2}:${registry}`, agent_id: agentId.toString() };
  if (lookup.kind === 'unavailable')
    return { checked: false, ...where, verified: null, reason: `The registry could not be read: ${lookup.error}` };
  if (lookup.kind === 'not_found') return { checked: true, ...where, verified: false, reason: 'The registry has no agent with this id.' };
  const { agent } = lookup;
  const lower = address.toLowerCase();
  const asOwner = agent.owner.toLowerCase() === lower;
  const asWallet = agent.agentWallet?.toLowerCase() === lower;
  return {
    checked: true,
    ...where,
    verified: asOwner || asWallet,
    matched: asOwner && asWallet ? 'owner_and_agent_wallet' : asOwner ? 'owner' : asWallet ? 'agent_wallet' : null,
    owner: agent.owner,
    agent_wallet: agent.agentWallet ?? null,
    token_uri: agent.tokenURI.length > 2048 ? `${agent.tokenURI.slice(0, 2048)}…` : agent.tokenURI,
    registration: agent.registration ?? null,
  };
}

export async function getAgentIdentity(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const address = walletParam(req, ['address']);
  const now = ports.now();
  const [tally, first, last, mandates, subscriptions, registration] = await Promise.all([
    ports.payments.figures.wallet(address),
    ports.ledger.payerEdge(address, 'first'),
    ports.ledger.payerEdge(address, 'last'),
    ports.mandates.list(address),
    ports.subscriptions.list(address),
    erc8004(req.query['agent_id'], address, ports),
  ]);
  const w = walletFigures(tally);
  return json(200, {
    ok: true,
    address,
    reputation: {
      confirmed_unlocks: w.unlocks,
      distinct_skills: w.distinctSkills,
      subscription_payments: w.subscriptions,
      meter_top_ups: w.meterTopUps,
      volume_atomic: w.volumeAtomic.toString(),
      volume_usdc: formatAtomic(w.volumeAtomic),
      first_purchase: first?.recordedAt ?? null,
      last_purchase: last?.recordedAt ?? null,
      reorged_claims: w.reorged,
      active_mandates: mandates.filter((m) => m.status === 'active').length,
      active_subscriptions: subscriptions.filter((s) => Date.parse(s.periodEnd) > now.getTime()).length,
      refused_claims: null,
      refused_claims_note:
        'Refused claims write nothing, by design: anyone can send a refused claim naming any transfer, so a refusal says nothing about this address.',
    },
    erc8004: registration,
    source:
      "Counts of the wallet's proof-ledger rows (its tally, checked against a recount by the reconcile job) and its access items; nothing is estimated.",
  });
}
