/**
 * The environment an operator's chain tool (`npm run unmatched`, `npm run refund`) runs its ledger
 * entry with: `npm start`'s anvil, DynamoDB Local and local settings (treasury, legacy treasury, no
 * explorer), each only where the environment names nothing else. With RPC_URLS set, the payment
 * settings are the environment's own (another deployment's chain).
 *
 * `deployedTables`: with no DYNAMODB_ENDPOINT and every one of these tables named in the
 * environment, the tool reaches that deployment's DynamoDB with the caller's AWS credentials
 * instead of DynamoDB Local. Empty: always a DynamoDB endpoint (DynamoDB Local by default).
 */
import { INFRA_ENV } from '../lambdas/contract/env';
import { SETTINGS } from '../lambdas/contract/settings';
import type { TableDefinition } from '../lambdas/contract/tables';
import { LOCAL_LEGACY_TREASURY, TREASURY_ACCOUNT_INDEX, testAccount } from './anvil';
import { DEFAULT_DYNAMODB_PORT } from './dynamodb-local';

export function chainToolEnv(env: NodeJS.ProcessEnv, deployedTables: readonly TableDefinition[] = []): void {
  const local = env[SETTINGS.rpcUrls.env] === undefined;
  const aws =
    deployedTables.length > 0 && env[INFRA_ENV.dynamodbEndpoint] === undefined && deployedTables.every((t) => env[t.env] !== undefined);
  if (!aws) env[INFRA_ENV.dynamodbEndpoint] ??= `http://127.0.0.1:${env['DYNAMODB_PORT'] ?? DEFAULT_DYNAMODB_PORT}`;
  env[SETTINGS.rpcUrls.env] ??= `http://127.0.0.1:${env['ANVIL_PORT'] ?? 8545}`;
  if (local) {
    // npm start's own settings for its anvil (local/stack.ts), unless the environment says otherwise.
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
