/**
 * The server bench/edge-layers.ts runs, one layer of the local edge at a time (argv[2]):
 * F   node:http sending the route's answer, prebuilt (the floor);
 * HN  + a plain async Lambda-style handler;   HM  + middy;   HP  + Powertools' injectLambdaContext;
 * H   the domain's real handler with a prebuilt event;   HT  + the event built per request (toLambdaEvent);
 * E   the local edge server itself (local/edge-server.ts).
 * argv[3] is the path (/api/health or /api/catalog), argv[4] the port. Prints "up" once listening.
 */
import { createServer } from 'node:http';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { handler as catalogHandler } from '../lambdas/catalog/handler';
import { handler as discoveryHandler } from '../lambdas/discovery/handler';
import type { LambdaHandler } from '../lambdas/platform/domain-handler';
import { logger } from '../lambdas/platform/logger';
import { startEdgeServer } from '../local/edge-server';
import { lambdaContext, toLambdaEvent } from '../local/lambda-event';
import { apiEvent } from '../test/support/lambda-bundles';

const [mode = 'E', path = '/api/health', port = '18796'] = process.argv.slice(2);
const plain = async (): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: '{"ok":true}',
});
const real = (path.startsWith('/api/health') ? discoveryHandler : catalogHandler) as LambdaHandler;
const handler = (
  { HN: plain, HM: middy(plain), HP: middy(plain).use(injectLambdaContext(logger, { resetKeys: true })) } as Record<string, unknown>
)[mode] as LambdaHandler | undefined;
const routeKey = `GET ${path.split('?')[0]}`;
const event = apiEvent('GET', path.split('?')[0]!, path.split('?')[1] ?? '') as never;
const context = lambdaContext('bench', 'bench', 30_000);

if (mode === 'E') {
  await startEdgeServer({ port: Number(port) });
} else {
  const first = await real(event, context);
  const fixedBody = Buffer.from(first.body ?? '');
  const fixedHeaders = { ...(first.headers as Record<string, string>), 'content-length': String(fixedBody.length) };
  const server = createServer((req, res) => {
    req.resume();
    if (mode === 'F') return void (res.writeHead(200, fixedHeaders), res.end(fixedBody));
    const ev = mode === 'HT' ? toLambdaEvent(req, Buffer.alloc(0), { routeKey, pathParameters: {}, domainName: '127.0.0.1' }) : event;
    void (handler ?? real)(ev, context).then((r) => {
      // Written as the local edge writes a text body: the string, with its byte length.
      const body = r.body ?? '';
      res.writeHead(r.statusCode ?? 200, { ...(r.headers as Record<string, string>), 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(Number(port), '127.0.0.1', resolve));
}
console.log('up');
