/**
 * Starts the real local parts once for the whole run: dynalite (in memory), anvil with the
 * test tokens, and the edge server, all on free ports. Tests reach them through inject().
 */
import type { TestProject } from 'vitest/node';
import { buildSite } from '../../catalog/build';
import { startStack, type RunningStack } from '../../local/stack';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    rpcUrl: string;
    dynamoEndpoint: string;
    usdc: string;
    usdbc: string;
    treasury: string;
    legacyTreasury: string;
    /** The local ERC-8004 registry's test agent: its id and owner. */
    testAgentId: string;
    testAgentOwner: string;
  }
}

let stack: RunningStack | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  buildSite();
  stack = await startStack({ port: 0, anvilPort: 0, dynalitePort: 0, dataDir: undefined, env: {} });
  project.provide('baseUrl', stack.baseUrl);
  project.provide('rpcUrl', stack.rpcUrls[0]!);
  project.provide('dynamoEndpoint', stack.dynamoEndpoint);
  project.provide('usdc', stack.tokens.USDC!);
  project.provide('usdbc', stack.tokens.USDbC!);
  project.provide('treasury', stack.treasury!);
  project.provide('legacyTreasury', stack.legacyTreasury!);
  project.provide('testAgentId', stack.identity!.testAgent.agentId.toString());
  project.provide('testAgentOwner', stack.identity!.testAgent.owner);
  return async () => {
    await stack?.stop();
  };
}
