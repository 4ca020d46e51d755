/**
 * The local stand-in for CloudFront: one HTTP server that sends /api/* and /.well-known/*
 * to the domain handlers through API Gateway-shaped events (the same routing API Gateway
 * does from the route table) and serves everything else from the public static tree as
 * S3 behind CloudFront would, with ETag and If-None-Match.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { failureBody, internalError, payloadTooLarge, AppError } from '../lambdas/platform/errors';
import { BASE_HEADERS } from '../lambdas/platform/http';
import { FALLBACK_DOMAIN, matchRoute, routeKey, type Domain } from '../lambdas/contract/routes';
import type { LambdaHandler } from '../lambdas/platform/domain-handler';
import { PUBLIC_DIR } from '../lambdas/contract/data-dirs';
import { cacheControlFor, contentTypeFor, indexRewrite } from '../lambdas/contract/static-assets';
import { lambdaContext, toLambdaEvent } from './lambda-event';

/** API Gateway's own limits: 10 MB payloads, 30 s integration timeout. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;
const GATEWAY_TIMEOUT_MS = 30_000;

const handlers = new Map<Domain, Promise<LambdaHandler>>();
/** Loads a domain's Lambda entry module, the same file CDK bundles (`lambdas/<domain>/handler.ts`). */
function handlerFor(domain: Domain): Promise<LambdaHandler> {
  let h = handlers.get(domain);
  if (!h) {
    h = import(`../lambdas/${domain}/handler.ts`).then((m: { handler: LambdaHandler }) => m.handler);
    handlers.set(domain, h);
  }
  return h;
}

function sendFailure(res: ServerResponse, err: AppError): void {
  res.writeHead(err.status, { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(failureBody(err)));
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > GATEWAY_MAX_BODY) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function writeLambdaResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2 | string): void {
  // API Gateway treats a bare string or object as a 200 JSON body.
  if (typeof result === 'string' || !('statusCode' in result)) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body =
    result.body === undefined ? undefined : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
  // API Gateway answers with a Content-Length, not chunked; one buffer also means one write.
  headers['content-length'] = String(body?.byteLength ?? 0);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

async function serveApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) return sendFailure(res, payloadTooLarge(GATEWAY_MAX_BODY));
  const { match } = matchRoute((req.method ?? 'GET').toUpperCase(), path);
  const domain = match ? match.route.domain : FALLBACK_DOMAIN;
  const event = toLambdaEvent(req, body, {
    routeKey: match ? routeKey(match.route) : '$default',
    pathParameters: match?.pathParameters ?? {},
  });
  const handler = await handlerFor(domain);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(internalError('The function did not answer within 30 s.')), GATEWAY_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([
      handler(event, lambdaContext(`skill-market-${domain}`, event.requestContext.requestId, GATEWAY_TIMEOUT_MS)),
      timeout,
    ]);
    writeLambdaResult(res, result);
  } finally {
    clearTimeout(timer);
  }
}

async function serveStatic(req: IncomingMessage, res: ServerResponse, path: string, root: string): Promise<void> {
  const notFound = (status = 404, text = 'Not Found'): void => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return notFound(405, 'Method Not Allowed');
  let decoded: string;
  try {
    decoded = decodeURIComponent(indexRewrite(path === '/' ? '/index.html' : path));
  } catch {
    return notFound(400, 'Bad Request');
  }
  // S3 keys never contain "..": refuse traversal before touching the file system.
  const relative = normalize(decoded).replace(/^[/\\]+/, '');
  if (decoded.includes('\0') || relative.split(/[/\\]/).includes('..')) return notFound();
  const file = join(root, relative);
  if (!file.startsWith(root + sep)) return notFound();
  let content: Buffer;
  try {
    if (!(await stat(file)).isFile()) return notFound();
    content = await readFile(file);
  } catch {
    return notFound();
  }
  // S3's ETag for a single-part object is the quoted MD5 of its bytes: a strong validator.
  const etag = `"${createHash('md5').update(content).digest('hex')}"`;
  const key = relative.split(sep).join('/');
  const headers = { etag, 'cache-control': cacheControlFor(key), 'content-type': contentTypeFor(key) };
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) {
    res.writeHead(304, headers);
    return void res.end();
  }
  res.writeHead(200, { ...headers, 'content-length': String(content.length) });
  res.end(req.method === 'HEAD' ? undefined : content);
}

/** Paths CloudFront sends to the API origin; everything else goes to the S3 origin. */
export const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/') || path.startsWith('/.well-known/');

export interface EdgeServerOptions {
  port: number;
  host?: string;
  publicDir?: string;
}

/** Starts the edge server; resolves once listening, rejects with EADDRINUSE when the port is busy. */
export function startEdgeServer(opts: EdgeServerOptions): Promise<Server> {
  const root = opts.publicDir ?? PUBLIC_DIR;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const work = isApiPath(path) ? serveApi(req, res, path) : serveStatic(req, res, path, root);
    work.catch((err: unknown) => {
      // The handlers answer their own errors; reaching here means the adapter itself failed.
      if (!res.headersSent) sendFailure(res, err instanceof AppError ? err : internalError());
      else res.end();
    });
  });
  // Keep-alive longer than typical client pools so benchmarks measure requests, not reconnects.
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
