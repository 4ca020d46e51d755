/**
 * `npm run guard-operator`: makes the escrow operator's account delegate to EscrowOperatorGuard
 * (EIP-7702), the step that turns x402 `auth-capture` on for a deployment (docs/OPERATIONS.md, "The
 * escrow operator key"; why: docs/SECURITY.md, I2). It places the guard through the chain's CREATE2
 * deployer when the chain lacks it, then sends the operator's own type-4 transaction; a delegated
 * operator sends nothing. The operator's ETH pays both.
 *
 * Against the running local stack by default (`npm start` delegates its operator already: this
 * reports it and sends nothing); against a deployment with RPC_URLS (its network's RPC) and
 * ESCROW_OPERATOR_KMS_KEY_ID (the stack's EscrowOperatorKey: kms:GetPublicKey and kms:Sign on it)
 * with your own AWS credentials. The deployment's functions see it within a minute, without a
 * deploy. Prints JSON; exits 0 when the operator delegates to the guard, 1 when it could not (the
 * message says why: an unfunded operator, above all), 2 when it could not run.
 */
import { createPublicClient, formatEther, http } from 'viem';
import { INFRA_ENV } from '../lambdas/contract/env';
import { SETTINGS } from '../lambdas/contract/settings';
import { handler as operatorAccount } from '../lambdas/facilitator/operator-account-handler';
import { testAccount } from './anvil';
import { chainToolEnv, rpcOnThisMachine } from './chain-tool-env';
import { ESCROW_OPERATOR_INDEX, guardEscrowOperator } from './escrow';

const env = process.env;
if (process.argv.length > 2) {
  console.error('usage: npm run guard-operator   (RPC_URLS and ESCROW_OPERATOR_KMS_KEY_ID name a deployment; none: the local stack)');
  process.exit(2);
}
// The key's own region when it is named by its ARN (the stack's EscrowOperatorKeyArn output).
const keyRegion = /^arn:aws[a-z-]*:kms:([a-z0-9-]+):/.exec(env[INFRA_ENV.escrowOperatorKmsKeyId] ?? '')?.[1];
if (keyRegion) env['AWS_REGION'] ??= keyRegion;
chainToolEnv(env);
const rpcUrl = env[SETTINGS.rpcUrls.env]!.split(',')[0]!.trim();
if (rpcOnThisMachine([rpcUrl]) && env[INFRA_ENV.escrowOperatorKmsKeyId] === undefined)
  env[INFRA_ENV.escrowOperatorPrivateKey] ??= testAccount(ESCROW_OPERATOR_INDEX).privateKey;

try {
  const operator = await operatorAccount();
  if (!operator) {
    console.log(
      JSON.stringify({
        ok: false,
        reason: 'no_operator',
        message: `Set ${INFRA_ENV.escrowOperatorKmsKeyId} to the stack's EscrowOperatorKey.`,
      }),
    );
    process.exit(1);
  }
  const balance = await createPublicClient({ transport: http(rpcUrl) }).getBalance({ address: operator.address });
  if (balance === 0n) {
    console.log(
      JSON.stringify({
        ok: false,
        reason: 'operator_unfunded',
        operator: operator.address,
        message: `The escrow operator ${operator.address} holds no ETH to pay for its delegation: send it at least relayerMinBalanceEth, then run this again.`,
      }),
    );
    process.exit(1);
  }
  const done = await guardEscrowOperator(rpcUrl, operator);
  console.log(JSON.stringify({ ok: true, ...done, balance: formatEther(balance) }));
  process.exit(0);
} catch (e) {
  console.log(JSON.stringify({ ok: false, reason: 'failed', message: (e as Error).message?.split('\n')[0] ?? String(e) }));
  process.exit(1);
}
