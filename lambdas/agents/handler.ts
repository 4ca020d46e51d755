/** Lambda entry of the agents domain: MCP, A2A and the signed agent card. */
import { createDomainHandler, loadedOnFirstRequest } from '../platform/domain-handler';
import { rpcRateLimited } from './json-rpc';

export const handler = createDomainHandler('agents', {
  routes: {
    // The MCP SDK (with ajv) and the A2A SDK load with the first request that speaks them: the card and JWKS routes never need them.
    getMcp: loadedOnFirstRequest(() => import('./mcp').then((m) => m.getMcp)),
    postMcp: loadedOnFirstRequest(() => import('./mcp').then((m) => m.postMcp)),
    getA2a: loadedOnFirstRequest(() => import('./a2a').then((m) => m.getA2a)),
    postA2a: loadedOnFirstRequest(() => import('./a2a').then((m) => m.postA2a)),
    // The card is signed over the A2A SDK's canonical form, so its routes load the SDK's core (not its server) on first use too.
    getAgentCard: loadedOnFirstRequest(() => import('./card-routes').then((m) => m.getAgentCard)),
    getAgentCardA2a: loadedOnFirstRequest(() => import('./card-routes').then((m) => m.getAgentCard)),
    getJwks: loadedOnFirstRequest(() => import('./card-routes').then((m) => m.getJwks)),
    // Agent Skills discovery: the index and the paid archives (fflate and the pack texts load with the first request).
    getAgentSkillsIndex: loadedOnFirstRequest(() => import('./agent-skills').then((m) => m.getAgentSkillsIndex)),
    getAgentSkillArchive: loadedOnFirstRequest(() => import('./agent-skills').then((m) => m.getAgentSkillArchive)),
  },
  ports: () => import('./wiring').then((m) => m.agentsPortsFromEnv()),
  // A2A and MCP clients read JSON-RPC errors: over the route table's limit they get -32029, not the REST failure body.
  rateLimited: rpcRateLimited,
});
