/**
 * `npm run refund -- <sale tx hash> <refund tx hash>`: records an operator's refund of USDC (or
 * USDbC) against a proof-ledger sale, once the refund transfer (treasury → the sale's payer, in
 * the sale's asset) is confirmed on chain. Against the running local stack (`npm start`: its
 * anvil, DynamoDB Local and treasury) by default; or the chain at RPC_URLS with the payment
 * settings in the environment (TREASURY_ADDRESS, …) and the DynamoDB at DYNAMODB_ENDPOINT, or, with
 * the deployment's table names (LEDGER_TABLE, REFUNDS_TABLE) and no endpoint, AWS DynamoDB with
 * your own AWS credentials. Prints JSON; exits 0 when the refund was recorded, 1 when it was
 * refused (not a refund of that sale, unconfirmed, already recorded: `reason` says which; nothing
 * was written), 2 when it could not run.
 */
import { INFRA_ENV } from '../lambdas/contract/env';
import { SETTINGS } from '../lambdas/contract/settings';
import { LEDGER_TABLE, REFUNDS_TABLE } from '../lambdas/contract/tables';
import { TX_HASH } from '../lambdas/contract/chain';
import { LOCAL_LEGACY_TREASURY, TREASURY_ACCOUNT_INDEX, testAccount } from './anvil';
import { DEFAULT_DYNAMODB_PORT } from './dynamodb-local';

const env = process.env;
const local = env[SETTINGS.rpcUrls.env] === undefined;
// A deployment named by its tables is reached with the caller's AWS credentials; otherwise DynamoDB Local.
const aws = env[INFRA_ENV.dynamodbEndpoint] === undefined && env[LEDGER_TABLE.env] !== undefined && env[REFUNDS_TABLE.env] !== undefined;
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

const [saleTx, refundTx, ...rest] = process.argv.slice(2);
if (saleTx === undefined || refundTx === undefined || rest.length > 0 || !TX_HASH.test(saleTx) || !TX_HASH.test(refundTx)) {
  console.error('usage: npm run refund -- <sale tx hash> <refund tx hash>   (each 0x followed by 64 hex digits)');
  process.exit(2);
}

try {
  const { handler } = await import('../lambdas/ledger/refund-handler.ts');
  const outcome = await handler({ saleTx, refundTx });
  console.log(JSON.stringify(outcome, null, 2));
  process.exit(outcome.outcome === 'recorded' ? 0 : 1);
} catch (e) {
  console.error(
    `refund could not run (chain ${env[SETTINGS.rpcUrls.env]}, DynamoDB ${env[INFRA_ENV.dynamodbEndpoint] ?? 'AWS'}): ${(e as Error).message}`,
  );
  console.error('Is `npm start` running? Set RPC_URLS and DYNAMODB_ENDPOINT (and the payment settings) to reach another deployment.');
  process.exit(2);
}
