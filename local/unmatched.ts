/**
 * `npm run unmatched [-- --from-block N --to-block N --grace-seconds S]`: transfers of USDC or USDbC to the treasury
 * that no claim matches (money received, nothing delivered), with payer, amount, time and the
 * likely purchase, so support can deliver or refund. Against the running local stack (`npm start`:
 * its anvil, DynamoDB Local and treasury) by default, or the chain at RPC_URLS and the DynamoDB at
 * DYNAMODB_ENDPOINT with the payment settings in the environment (TREASURY_ADDRESS, …). Without
 * blocks, the daily window: two days of blocks up to the confirmed head; an unclaimed transfer
 * younger than `--grace-seconds` (600 by default: its buyer may still claim) is listed as too recent
 * to judge (`too_recent`), not as unmatched. Prints the report as JSON on stdout and one line for a
 * person on stderr (how many matched, unmatched and too recent, naming the grace); exits 0 when no
 * transfer past the grace is unmatched, 1 when some are, 2 when it could not run. In AWS the
 * ledger's scheduled function runs the same daily (task `unmatched`).
 */
import { INFRA_ENV } from '../lambdas/contract/env';
import { SETTINGS } from '../lambdas/contract/settings';
import type { UnmatchedReport } from '../lambdas/ledger/reconcile-handler';
import { chainToolEnv } from './chain-tool-env';

const env = process.env;
chainToolEnv(env);

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
for (const name of ['--from-block', '--to-block', '--grace-seconds']) {
  const value = flag(name);
  if (value !== undefined && !/^\d{1,20}$/.test(value)) {
    console.error(`${name} must be a whole number, not ${JSON.stringify(value)}`);
    process.exit(2);
  }
}

/** The report in one line for the person who ran it: every count, the too recent ones with their grace. */
function summary(r: UnmatchedReport): string {
  const n = (count: number, what: string): string => `${count} ${what}${count === 1 ? '' : 's'}`;
  return (
    `unmatched: ${n(r.transfers, 'transfer')} to the treasury in blocks ${r.from_block}..${r.to_block}: ${r.matched} matched, ` +
    `${r.unmatched.length} unmatched, ${r.too_recent.length} too recent to judge (younger than the ${r.grace_seconds} s grace` +
    `${r.too_recent.length > 0 ? '; run again later or with --grace-seconds 0' : ''}).`
  );
}

try {
  const { handler } = await import('../lambdas/ledger/reconcile-handler.ts');
  const from = flag('--from-block');
  const to = flag('--to-block');
  const grace = flag('--grace-seconds');
  const report = await handler({
    task: 'unmatched',
    ...(from ? { fromBlock: from } : {}),
    ...(to ? { toBlock: to } : {}),
    ...(grace ? { graceSeconds: Number(grace) } : {}),
  });
  console.log(JSON.stringify(report, null, 2));
  if ('unmatched' in report) console.error(summary(report));
  process.exit('unmatched' in report ? (report.unmatched.length === 0 ? 0 : 1) : 2);
} catch (e) {
  console.error(
    `unmatched could not run (chain ${env[SETTINGS.rpcUrls.env]}, DynamoDB ${env[INFRA_ENV.dynamodbEndpoint]}): ${(e as Error).message}`,
  );
  console.error('Is `npm start` running? Set RPC_URLS and DYNAMODB_ENDPOINT (and the payment settings) to reach another deployment.');
  process.exit(2);
}
