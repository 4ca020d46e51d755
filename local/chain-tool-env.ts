/**
 * The environment an operator's chain tool (`npm run unmatched`, `npm run refund`) runs its ledger
 * entry with: the running `npm start`'s chain, DynamoDB and settings (its endpoints file,
 * local/endpoints.ts; with none, anvil and DynamoDB Local on their ports and `npm start`'s local
 * settings: treasury, legacy treasury, no explorer), each only where the environment names nothing
 * else. With RPC_URLS set, the payment settings are the environment's own (another deployment's chain).
 *
 * `deployedTables`: with no DYNAMODB_ENDPOINT and every one of these tables named in the
 * environment, the tool reaches that deployment's DynamoDB with the caller's AWS credentials
 * instead of DynamoDB Local. Empty: always a DynamoDB endpoint (DynamoDB Local by default).
 */
import { INFRA_ENV } from '../lambdas/contract/env';
import { SETTINGS } from '../lambdas/contract/settings';
import type { TableDefinition } from '../lambdas/contract/tables';
import { LOCAL_LEGACY_TREASURY, TREASURY_ACCOUNT_INDEX, testAccount } from './anvil';
import { toolEndpoints } from './endpoints';

export function chainToolEnv(env: NodeJS.ProcessEnv, deployedTables: readonly TableDefinition[] = []): void {
  const local = env[SETTINGS.rpcUrls.env] === undefined;
  const aws =
    deployedTables.length > 0 && env[INFRA_ENV.dynamodbEndpoint] === undefined && deployedTables.every((t) => env[t.env] !== undefined);
  const running = toolEndpoints(env);
  if (!aws) env[INFRA_ENV.dynamodbEndpoint] ??= running.dynamodbEndpoint;
  env[SETTINGS.rpcUrls.env] ??= running.rpcUrls.join(',');
  if (local) {
    // The settings the running start's functions have, then npm start's own for its anvil (local/stack.ts).
    for (const [name, value] of Object.entries(running.settings)) env[name] ??= value;
    env[SETTINGS.treasury.env] ??= testAccount(TREASURY_ACCOUNT_INDEX).address;
    env[SETTINGS.legacyTreasury.env] ??= LOCAL_LEGACY_TREASURY;
    env[SETTINGS.explorerUrl.env] ??= '';
  }
  env['AWS_REGION'] ??= 'us-east-1';
  if (!aws) {
    // DynamoDB Local accepts any credentials (-sharedDb); the SDK still wants some.
    env['AWS_ACCESS_KEY_ID'] ??= 'local';
    env['AWS_SECRET_ACCESS_KEY'] ??= 'local';
  }
  env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  env['POWERTOOLS_LOG_LEVEL'] ??= 'ERROR';
  env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';
}

/** Whether every RPC URL is on this machine (`npm start`'s anvil, whose test accounts' keys the tools may use). */
export function rpcOnThisMachine(urls: readonly string[]): boolean {
  return urls.every((url) => {
    try {
      const host = new URL(url).hostname;
      return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
    } catch {
      return false;
    }
  });
}
