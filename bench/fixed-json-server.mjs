// Baseline for HTTP benchmarks: a plain node:http server that answers every request with
// the same bytes (argv[3], a file) and status (argv[4]), on port argv[2], with the headers of
// argv[5] (a JSON file, or "-") if given, else a JSON content type and the length. Prints {"port":N}.
//
// With argv[6] = "lambda-framework", each answer goes through what every domain handler runs
// around its route (lambdas/platform/domain-handler.ts): middy, with a Lambda-style context (so
// middy arms its timeout as in Lambda), and the invocation handed to the logger as
// InvocationLogger.bindInvocation does (kept, applied only when a line is written). Nothing of
// the project's own code: the ceiling any server calling the Lambda handler path can reach
// against the plain one (bench/edge.ts).
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.argv[3]);
const status = Number(process.argv[4] ?? '200');
const headers =
  process.argv[5] && process.argv[5] !== '-'
    ? JSON.parse(readFileSync(process.argv[5], 'utf8'))
    : { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
const framework = process.argv[6] === 'lambda-framework';

// The plain baseline loads neither library: only the floor needs them.
const answer = framework ? await frameworkAnswer() : undefined;
async function frameworkAnswer() {
  const [{ default: middy }, { Logger }] = await Promise.all([import('@middy/core'), import('@aws-lambda-powertools/logger')]);
  const logger = new Logger({ serviceName: 'bench', logLevel: 'WARN' });
  const text = body.toString('utf8');
  return middy(async (event, context) => {
    // What InvocationLogger.bindInvocation does per request (lambdas/platform/logger.ts).
    logger.pending = { context, correlationId: event.requestContext.requestId, coldStart: logger.coldStart };
    logger.coldStart = false;
    return { statusCode: status, headers, body: text };
  });
}
let n = 0;

const server = createServer((req, res) => {
  req.resume();
  if (!answer) {
    res.writeHead(status, headers);
    return void res.end(body);
  }
  const requestId = `r-${++n}`;
  const deadline = Date.now() + 30_000;
  const event = { rawPath: req.url, headers: req.headers, requestContext: { requestId } };
  const context = {
    functionName: 'bench',
    awsRequestId: requestId,
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bench',
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
  void answer(event, context).then((r) => {
    res.writeHead(r.statusCode, r.headers);
    res.end(r.body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2] ?? '0'), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
