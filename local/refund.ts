/**
 * The operator's USDC refunds of proof-ledger sales. Two forms:
 *
 * - `npm run refund -- <sale tx hash> <refund tx hash>` records a refund already sent (treasury →
 *   the sale's payer in the sale's asset, or the escrow's refund of an escrowed sale) against the
 *   sale, once it is confirmed on chain (lambdas/ledger/refund-handler.ts).
 * - `npm run refund -- <sale tx hash> [--amount <USDC>]` refunds the sale itself where it can, and
 *   records it: an escrowed sale (x402 `auth-capture`) within its refund deadline through the
 *   escrow's own `refund`, sent by the escrow operator (lambdas/payments/escrow-refund-handler.ts),
 *   all that is unrefunded unless `--amount` says less. The escrow takes the refund from the
 *   operator's balance, which the treasury funds: on this machine's chain, with the treasury the
 *   local test account, this tool sends the operator what it lacks from the treasury itself (as the
 *   operator does by hand against Base, where it holds no treasury key). Any other sale (paid by a
 *   transfer, or past its refund deadline) is refused with what to do instead: the treasury's
 *   transfer, recorded with the first form.
 *
 * Against the running local stack (`npm start`: its anvil, DynamoDB Local, treasury and escrow
 * operator) by default; or the chain at RPC_URLS with the payment settings in the environment
 * (TREASURY_ADDRESS, …) and the DynamoDB at DYNAMODB_ENDPOINT, or, with the deployment's table
 * names (LEDGER_TABLE, REFUNDS_TABLE; for the escrow also SETTLEMENTS_TABLE and
 * RELAYER_LEASES_TABLE, and ESCROW_OPERATOR_KMS_KEY_ID) and no endpoint, AWS with your own
 * credentials. Prints JSON; exits 0 when the refund was recorded, 1 when it was refused or is not
 * mined yet (`reason` or `message` says which; run again once it is), 2 when it could not run.
 */
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, type Address } from 'viem';
import { ATOMIC_PER_USD, TX_HASH, USD_DECIMALS } from '../lambdas/contract/chain';
import { INFRA_ENV } from '../lambdas/contract/env';
import { SETTINGS } from '../lambdas/contract/settings';
import { LEDGER_TABLE, REFUNDS_TABLE, RELAYER_LEASES_TABLE, SETTLEMENTS_TABLE } from '../lambdas/contract/tables';
import { TREASURY_ACCOUNT_INDEX, testAccount } from './anvil';
import { chainToolEnv, rpcOnThisMachine } from './chain-tool-env';
import { ESCROW_OPERATOR_INDEX } from './escrow';
import { localChain } from './local-chain';

const env = process.env;
const usage = (): never => {
  console.error(
    'usage: npm run refund -- <sale tx hash> <refund tx hash>   records a refund sent (each 0x followed by 64 hex digits)\n' +
      '       npm run refund -- <sale tx hash> [--amount <USDC>]  refunds an escrowed sale through the escrow, and records it',
  );
  return process.exit(2);
};

const args = process.argv.slice(2);
const saleTx = args[0];
if (saleTx === undefined || !TX_HASH.test(saleTx)) usage();
const recordOnly = args.length === 2 && TX_HASH.test(args[1]!);
let amount: string | undefined;
if (!recordOnly) {
  if (args.length === 3 && args[1] === '--amount' && new RegExp(`^\\d+(\\.\\d{1,${USD_DECIMALS}})?$`).test(args[2]!)) {
    const [whole, fraction = ''] = args[2]!.split('.');
    amount = (BigInt(whole!) * ATOMIC_PER_USD + BigInt(fraction.padEnd(USD_DECIMALS, '0'))).toString();
  } else if (args.length !== 1) usage();
}

chainToolEnv(env, recordOnly ? [LEDGER_TABLE, REFUNDS_TABLE] : [LEDGER_TABLE, REFUNDS_TABLE, SETTLEMENTS_TABLE, RELAYER_LEASES_TABLE]);
const rpcUrls = env[SETTINGS.rpcUrls.env]!.split(',').map((u) => u.trim());
/** A chain on this machine (`npm start`'s anvil): its test accounts' keys are the local treasury's and escrow operator's. */
const onThisMachine = rpcOnThisMachine(rpcUrls);
const localTreasury = testAccount(TREASURY_ACCOUNT_INDEX);
if (onThisMachine && env[INFRA_ENV.escrowOperatorKmsKeyId] === undefined)
  env[INFRA_ENV.escrowOperatorPrivateKey] ??= testAccount(ESCROW_OPERATOR_INDEX).privateKey;
const treasuryKeyHere = onThisMachine && env[SETTINGS.treasury.env]?.toLowerCase() === localTreasury.address.toLowerCase();

/** The local treasury's transfer of `amount` of `token` to `to`, mined (another tool's transfer may take a nonce first: tried again). */
async function fromLocalTreasury(token: Address, to: Address, value: bigint): Promise<string> {
  const chain = localChain(rpcUrls[0]!);
  const wallet = createWalletClient({ account: localTreasury, chain, transport: http(rpcUrls[0]) });
  const pub = createPublicClient({ chain, transport: http(rpcUrls[0]) });
  for (let attempt = 1; ; attempt++) {
    try {
      const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, value] });
      const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 100 });
      if (receipt.status !== 'success') throw new Error(`the treasury's transfer ${hash} reverted`);
      return hash;
    } catch (e) {
      if (attempt >= 3 || !/nonce/i.test((e as Error).message)) throw e;
    }
  }
}

try {
  if (recordOnly) {
    const { handler } = await import('../lambdas/ledger/refund-handler.ts');
    const outcome = await handler({ saleTx: saleTx!, refundTx: args[1]! });
    console.log(JSON.stringify(outcome, null, 2));
    process.exit(outcome.outcome === 'recorded' ? 0 : 1);
  }
  const { handler } = await import('../lambdas/payments/escrow-refund-handler.ts');
  let outcome = await handler({ saleTx: saleTx!, amount });
  if (outcome.outcome === 'refused' && outcome.reason === 'operator_unfunded' && treasuryKeyHere && 'token' in outcome) {
    // The treasury funds the escrow's refund: here, where its key is a test account's, this tool sends it.
    const funded = await fromLocalTreasury(getAddress(outcome.token!), getAddress(outcome.operator!), BigInt(outcome.shortfall!));
    console.error(`sent ${outcome.shortfall} atomic units from the treasury to the escrow operator ${outcome.operator} (${funded})`);
    outcome = await handler({ saleTx: saleTx!, amount });
  }
  console.log(JSON.stringify(outcome, null, 2));
  process.exit(outcome.outcome === 'recorded' ? 0 : 1);
} catch (e) {
  console.error(
    `refund could not run (chain ${env[SETTINGS.rpcUrls.env]}, DynamoDB ${env[INFRA_ENV.dynamodbEndpoint] ?? 'AWS'}): ${(e as Error).message}`,
  );
  console.error('Is `npm start` running? Set RPC_URLS and DYNAMODB_ENDPOINT (and the payment settings) to reach another deployment.');
  process.exit(2);
}
