/**
 * `npm run reconcile`: recounts every ledger row and card sale and compares the figures the fold
 * keeps, against the running local stack's DynamoDB Local (`npm start`'s, from its endpoints file,
 * local/endpoints.ts), or the DynamoDB at DYNAMODB_ENDPOINT (or DynamoDB Local on DYNAMODB_PORT). Prints the report as JSON; exits 0 when every figure equals the recount, 1
 * when one differs, 2 when the records kept changing or the database is unreachable. In AWS the
 * same function runs daily on a schedule (and on demand: invoke the ledger's reconcile function).
 */
import { INFRA_ENV } from '../lambdas/contract/env';
import { toolEndpoints } from './endpoints';

const env = process.env;
env[INFRA_ENV.dynamodbEndpoint] ??= toolEndpoints(env).dynamodbEndpoint;
env['AWS_REGION'] ??= 'us-east-1';
// DynamoDB Local accepts any credentials (-sharedDb); the SDK still wants some.
env['AWS_ACCESS_KEY_ID'] ??= 'local';
env['AWS_SECRET_ACCESS_KEY'] ??= 'local';
env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
env['POWERTOOLS_LOG_LEVEL'] ??= 'ERROR';

try {
  const { handler } = await import('../lambdas/ledger/reconcile-handler.ts');
  const report = await handler();
  console.log(JSON.stringify(report, null, 2));
  process.exit('state' in report && report.state === 'equal' ? 0 : 'state' in report && report.state === 'different' ? 1 : 2);
} catch (e) {
  console.error(`reconcile could not run against ${env[INFRA_ENV.dynamodbEndpoint]}: ${(e as Error).message}`);
  console.error('Is `npm start` running? Set DYNAMODB_ENDPOINT (or DYNAMODB_PORT) to reach another database.');
  process.exit(2);
}
