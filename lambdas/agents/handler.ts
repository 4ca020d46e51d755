/** Lambda entry of the agents domain: MCP, A2A and the signed agent card. */
import { createDomainHandler } from '../platform/domain-handler';
import { getA2a, postA2a } from './a2a';
import { getAgentCard, getJwks } from './card-routes';
import { rpcRateLimited } from './json-rpc';
import { getMcp, postMcp } from './mcp';
import { agentsPortsFromEnv } from './wiring';

export const handler = createDomainHandler('agents', {
  routes: { getMcp, postMcp, getA2a, postA2a, getAgentCard, getAgentCardA2a: getAgentCard, getJwks },
  ports: () => agentsPortsFromEnv(),
  // A2A and MCP clients read JSON-RPC errors: over the route table's limit they get -32029, not the REST failure body.
  rateLimited: rpcRateLimited,
});
