/**
 * The local stand-in for CloudFront: one HTTP server that sends /api/* and /.well-known/*
 * to the domain handlers through API Gateway-shaped events (the same routing API Gateway
 * does from the route table) and serves everything else from the public static tree as
 * S3 behind CloudFront would, with ETag and If-None-Match.
 */
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { failureBody, internalError, invalidRequest, payloadTooLarge, PLATFORM_ERRORS, AppError } from '../lambdas/platform/errors';
import { BASE_HEADERS } from '../lambdas/platform/http';
import { FALLBACK_DOMAIN, type Domain } from '../lambdas/contract/routes';
import { matchRoute, type RouteMatch } from '../lambdas/platform/route-matcher';
import type { LambdaHandler } from '../lambdas/platform/domain-handler';
import { PUBLIC_DIR } from '../lambdas/contract/data-dirs';
import { cacheControlFor, contentTypeFor, indexRewrite } from '../lambdas/contract/static-assets';
import { API_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from '../lambdas/contract/security-headers';
import { SETTINGS } from '../lambdas/contract/settings';
import { lambdaContext, parseTarget, toLambdaEvent, type RequestTarget } from './lambda-event';

/** API Gateway's own limits: 10 MB payloads, 30 s integration timeout. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;
const GATEWAY_TIMEOUT_MS = 30_000;
/**
 * How long a refused connection keeps reading (and discarding) what the client still sends
 * before it closes: closing a socket with unread bytes makes the kernel send a reset, and the
 * client would lose the JSON answer it was sent.
 */
const LINGER_MS = 5_000;

const handlers = new Map<Domain, Promise<LambdaHandler>>();
/** Loads a domain's Lambda entry module, the same file CDK bundles (`lambdas/<domain>/handler.ts`). */
function handlerFor(domain: Domain): Promise<LambdaHandler> {
  let h = handlers.get(domain);
  if (!h) {
    h = import(`../lambdas/${domain}/handler.ts`).then((m: { handler: LambdaHandler }) => m.handler);
    // A failed import is retried on the next request rather than remembered.
    h.catch(() => handlers.delete(domain));
    handlers.set(domain, h);
  }
  return h;
}

/**
 * API Gateway's integration timeout: `work`'s outcome, or, once `timeoutMs` have passed without
 * one, a 503 `INTERNAL_ERROR` with retry true, as API Gateway gives up on a hung function. The
 * timer is cleared as soon as the work settles, and never keeps a stopped server's process alive.
 */
export async function withinGatewayTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(internalError(`The function did not answer within ${timeoutMs / 1000} s.`)), timeoutMs).unref();
  });
  try {
    // Promise.race subscribes to both: a handler that fails after the timeout won is handled, not unhandled.
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const failureHeaders = (err: AppError, body: string): Record<string, string> => ({
  ...BASE_HEADERS,
  ...(err.headers ?? {}),
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'content-length': String(Buffer.byteLength(body)),
  // What CloudFront's API response headers policy adds to every answer, the edge's own included.
  ...API_SECURITY_HEADERS,
});

function sendFailure(res: ServerResponse, err: AppError): void {
  if (res.writableEnded || res.destroyed) return;
  // A response already under way cannot turn into a failure: cut it so the client sees it incomplete.
  if (res.headersSent) return void res.destroy();
  const body = JSON.stringify(failureBody(err));
  res.writeHead(err.status, failureHeaders(err, body));
  res.end(body);
}

/**
 * Answers at once, then keeps draining the request until it ends (or {@link LINGER_MS}) before
 * closing, so the client reads the answer instead of a reset.
 */
function refuseAndClose(req: IncomingMessage, res: ServerResponse, err: AppError): void {
  const body = JSON.stringify(failureBody(err));
  res.writeHead(err.status, { ...failureHeaders(err, body), connection: 'close' });
  res.write(body);
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    res.end();
  };
  const timer = setTimeout(finish, LINGER_MS).unref();
  req.once('end', finish);
  req.once('close', finish);
  if (req.complete) finish();
  else req.resume();
}

/** Reads the whole body; undefined once it is over API Gateway's limit (the rest is left unread). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > GATEWAY_MAX_BODY) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > GATEWAY_MAX_BODY) {
        req.off('data', onData);
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function writeLambdaResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2 | string): void {
  // API Gateway treats a bare string or object as a 200 JSON body.
  if (typeof result === 'string' || !('statusCode' in result)) {
    res.writeHead(200, { 'content-type': 'application/json', ...API_SECURITY_HEADERS });
    res.end(typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  // CloudFront's response headers policy for the API behaviours overrides what the origin sent.
  Object.assign(headers, API_SECURITY_HEADERS);
  const body = result.body === undefined ? undefined : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  // API Gateway answers with a Content-Length, not chunked.
  headers['content-length'] = String(body === undefined ? 0 : Buffer.byteLength(body));
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

/**
 * Answers a failure of the edge itself or of a handler: an {@link AppError} as itself, anything
 * else as 503 INTERNAL_ERROR (logged: the handlers answer their own errors, so reaching here
 * means the adapter, or a handler's promise, failed).
 */
function answerFault(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  const appError = err instanceof AppError ? err : internalError();
  // A client that went away (aborted upload) is no fault of ours: nothing to log or answer.
  if (appError.status >= 500 && !res.destroyed)
    console.error(`edge: ${req.method} ${req.url}: ${err instanceof Error ? err.message : String(err)}`);
  sendFailure(res, appError);
}

/** What the edge adds to every API request, as CloudFront does: the API's host name and the origin secret. */
interface Origin {
  domainName: string;
  secret: string | undefined;
}

/** Reads the body, then hands the request to its handler and answers with its result. */
async function serveApi(req: IncomingMessage, res: ServerResponse, target: RequestTarget, origin: Origin): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) return refuseAndClose(req, res, payloadTooLarge(GATEWAY_MAX_BODY));
  let match: RouteMatch | undefined;
  try {
    ({ match } = matchRoute((req.method ?? 'GET').toUpperCase(), target.path));
  } catch (err) {
    // A path parameter is percent-decoded as API Gateway does; one that cannot be is the caller's error, not a fault to retry.
    if (!(err instanceof URIError)) throw err;
    return sendFailure(
      res,
      invalidRequest(
        'path',
        'A path segment is not valid percent-encoding.',
        'Encode reserved characters as %XX: UTF-8 bytes, two hex digits each.',
      ),
    );
  }
  const domain = match ? match.route.domain : FALLBACK_DOMAIN;
  const event = toLambdaEvent(
    req,
    body,
    { routeKey: match ? match.routeKey : '$default', pathParameters: match?.pathParameters ?? {}, domainName: origin.domainName },
    target,
    origin.secret,
  );
  const handler = await handlerFor(domain);
  const context = lambdaContext(`skill-market-${domain}`, event.requestContext.requestId, GATEWAY_TIMEOUT_MS);
  const result = await withinGatewayTimeout(handler(event, context), GATEWAY_TIMEOUT_MS);
  // The client may have gone while the handler ran: nothing to answer then.
  if (res.destroyed || res.writableEnded) return;
  writeLambdaResult(res, result);
}

/**
 * Serves a file of the static tree as S3 behind CloudFront does. Every answer (200, 304 and the
 * refusals) carries the security headers of CloudFront's response headers policy for the S3
 * behaviour (lambdas/contract/security-headers.ts).
 */
async function serveStatic(req: IncomingMessage, res: ServerResponse, path: string, root: string): Promise<void> {
  const notFound = (status = 404, text = 'Not Found'): void => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...PAGE_SECURITY_HEADERS });
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
  const headers = { etag, 'cache-control': cacheControlFor(key), 'content-type': contentTypeFor(key), ...PAGE_SECURITY_HEADERS };
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

/**
 * How long the edge waits for a viewer's request, as a CDN edge does: a viewer that trickles its
 * header block (slowloris) or its body is answered 408 REQUEST_TIMEOUT and closed, instead of
 * holding a connection open for node's defaults (headers 60 s, whole request 300 s, checked every
 * 30 s). CloudFront publishes no viewer-side read timeout (its documented timeouts are the
 * origin's: 30 s for a response, 5 s keep-alive) and no per-viewer connection limit, so the
 * values are ours, chosen for the requests this service takes:
 * - `headersMs` 10 s for the whole header block (at most CloudFront's 20,480 bytes): a real
 *   client sends it in one write, so 10 s is generous (CIS's Apache benchmark asks for 40 s at most).
 * - `requestMs` 30 s for the whole request, body included: API Gateway's bodies stop at 10 MB and
 *   its integration at 30 s, so a request still arriving after 30 s could not be answered in time.
 * - `checkEveryMs` 1 s: node enforces both in a sweep; its default 30 s would let a 10 s limit
 *   run to 40 s.
 * No per-address cap on connections: each one now lives at most 10 s without a complete header
 * block (and 65 s idle between requests), the edge listens on loopback unless told otherwise, and
 * in AWS the WAF's rate rule is what limits one address.
 */
export interface ViewerTimeouts {
  headersMs: number;
  requestMs: number;
  checkEveryMs: number;
}
export const VIEWER_TIMEOUTS: ViewerTimeouts = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 };

export interface EdgeServerOptions {
  port: number;
  host?: string;
  publicDir?: string;
  /** The viewer-side timeouts; {@link VIEWER_TIMEOUTS} unless a test needs shorter ones. */
  viewerTimeouts?: ViewerTimeouts;
  /**
   * Called with the bound port once listening, before any request can be served: the stack
   * sets the advertised base URL there, as it is known only then when `port` is 0.
   */
  onListening?: (port: number) => void;
  /**
   * The origin secret the edge adds to every API request, as CloudFront adds it in AWS
   * (local/stack.ts always gives one; the handlers refuse a request without it).
   */
  originSecret?: string | undefined;
}

/** The host API Gateway would report as `requestContext.domainName`: the advertised one, never the Host header. */
function domainNameOf(server: Server): string {
  const configured = process.env[SETTINGS.publicBaseUrl.env];
  try {
    if (configured) return new URL(configured).hostname;
  } catch {
    // An invalid setting is reported by the handlers (public-base-url.ts); fall back to the socket.
  }
  const address = server.address();
  return typeof address === 'object' && address ? address.address : '127.0.0.1';
}

/** Status and error code for a request node:http could not parse (its 'clientError' event). */
function clientErrorFor(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return PLATFORM_ERRORS.HEADERS_TOO_LARGE();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return PLATFORM_ERRORS.REQUEST_TIMEOUT();
    default:
      return invalidRequest(
        'request',
        `The request is not valid HTTP/1.1${code ? ` (${code})` : ''}.`,
        'Send one Content-Length or Transfer-Encoding: chunked, never both, and well-formed headers.',
      );
  }
}

/** A complete HTTP/1.1 response with the failure body, written straight to a socket. */
function rawFailure(err: AppError): string {
  const body = JSON.stringify(failureBody(err));
  const headers = { ...failureHeaders(err, body), connection: 'close' };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** A listener for errors nobody can be told of. */
const ignore = (): void => undefined;

/** Last resort for a failure while answering: log one line and drop the connection, never throw. */
function dropConnection(res: ServerResponse, err: unknown): void {
  console.error(`edge: could not answer a request: ${err instanceof Error ? err.message : String(err)}`);
  res.destroy();
}

/** Answers a failure while serving; if even that throws, drops the connection. */
function fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  try {
    answerFault(req, res, err);
  } catch (e) {
    dropConnection(res, e);
  }
}

/** Starts the edge server; resolves once listening, rejects with EADDRINUSE when the port is busy. */
export function startEdgeServer(opts: EdgeServerOptions): Promise<Server> {
  const root = opts.publicDir ?? PUBLIC_DIR;
  // The latest response on each connection: a parse error must not write into one under way.
  const inFlight = new WeakMap<Duplex, ServerResponse>();
  const answered = new WeakSet<Duplex>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = parseTarget(req.url);
    if (target === undefined) {
      return sendFailure(res, invalidRequest('url', 'The request target is not a valid URL.', 'Send a path such as /api/health.'));
    }
    if (isApiPath(target.path)) await serveApi(req, res, target, { domainName: domainNameOf(server), secret: opts.originSecret });
    else await serveStatic(req, res, target.path, root);
  };

  const timeouts = opts.viewerTimeouts ?? VIEWER_TIMEOUTS;
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    (req, res) => {
      // The latest response on this connection; once finished it no longer counts as under way.
      inFlight.set(req.socket, res);
      // Errors on a request or response whose client went away have nobody to tell.
      req.on('error', ignore);
      res.on('error', ignore);
      handle(req, res).catch((err: unknown) => fail(req, res, err));
    },
  );

  // node:http's own answer to a request it cannot parse (or that timed out) is a bare status line; API clients get JSON.
  server.on('clientError', (err: Error, socket: Duplex) => {
    try {
      const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
      if (answered.has(socket)) return;
      answered.add(socket);
      const current = inFlight.get(socket);
      if (code === 'ECONNRESET' || !socket.writable || (current?.headersSent && !current.writableFinished)) return void socket.destroy();
      socket.end(rawFailure(clientErrorFor(code)));
      // Half-open until the client closes its side; then the socket closes itself. Bounded wait.
      const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
      socket.once('close', () => clearTimeout(timer));
    } catch {
      socket.destroy();
    }
  });

  // An idle kept-alive connection stays open 65 s (node's default is 5 s): longer than clients'
  // usual pool idle times, so a client seldom sends on a connection the edge is closing.
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      // A listening server's later errors (e.g. EMFILE on accept) are logged, not thrown.
      server.on('error', (e) => console.error(`edge: server error: ${e.message}`));
      const address = server.address();
      opts.onListening?.(typeof address === 'object' && address ? address.port : opts.port);
      resolve(server);
    });
  });
}
