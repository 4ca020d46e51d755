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
import { chainToolEnv } from './chain-tool-env';

const env = process.env;
chainToolEnv(env, [LEDGER_TABLE, REFUNDS_TABLE]);

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
