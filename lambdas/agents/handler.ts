/** Lambda entry of the agents domain: MCP, A2A and the signed agent card. */
import { createDomainHandler } from '../platform/domain-handler';
import { getA2a, postA2a } from './a2a';
import { getAgentCard, getJwks } from './card-routes';
import { getMcp, postMcp } from './mcp';
import { agentsPortsFromEnv } from './wiring';

export const handler = createDomainHandler('agents', {
  routes: { getMcp, postMcp, getA2a, postA2a, getAgentCard, getAgentCardA2a: getAgentCard, getJwks },
  ports: () => agentsPortsFromEnv(),
});
