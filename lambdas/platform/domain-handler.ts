/**
 * Builds a domain's Lambda handler: middy wiring, routing by API Gateway route key, and the
 * per-caller rate limits the route table declares. Route implementations are plain functions
 * of (request, ports); they never see the raw event.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { internalError } from './errors';
import { toApiRequest, type ApiRequest, type ApiResponse } from './http';
import { logger } from './logger';
import { cacheUntilFailure } from './memo';
import { originGuardFromEnv, type OriginGuard } from './origin-verify';
import { resolvePublicBaseUrl } from './public-base-url';
import { errorHandler } from './middleware/error-handler';
import { responseHeaders } from './middleware/response-headers';
import { rateLimited, scopedRateLimiters } from './rate-limit';
import { ROUTES, routeKey, type Domain, type DomainOperationId, type RateLimitRule, type RouteDefinition } from '../contract/routes';

export type RouteHandler<Ports> = (req: ApiRequest, ports: Ports) => Promise<ApiResponse> | ApiResponse;

/** Shapes a domain's answer to a caller over a route's limit; the handler adds Retry-After to it. */
export type RateLimitedHandler = (req: ApiRequest, retryAfterSeconds: number, rule: RateLimitRule) => ApiResponse;

export interface DomainHandlerOptions<D extends Domain, Ports> {
  /** One implementation per route of the domain in the route table; the compiler checks none is missing. */
  routes: { [K in DomainOperationId<D>]: RouteHandler<Ports> };
  /** Builds the ports once per cold start (clients, config); called lazily on the first request. */
  ports: () => Ports | Promise<Ports>;
  /** Answers route keys no route claims (`$default`): only the fallback domain has one. */
  fallback?: RouteHandler<Ports>;
  /**
   * The answer to a caller over a route's `rateLimit` (e.g. a JSON-RPC error for a JSON-RPC
   * endpoint); without it, the spec's failure body with 429 RATE_LIMITED.
   */
  rateLimited?: RateLimitedHandler;
  /** Milliseconds since the epoch, for the rate limits; the system clock unless a test sets it. */
  clock?: () => number;
  /**
   * The check that a request came through the edge, and who its caller is (origin-verify.ts);
   * by default from the environment (the stack and the local run always configure one).
   */
  origin?: OriginGuard | undefined;
}

/**
 * A route whose module is loaded on its first request: esbuild puts that module, and what only
 * it uses, in a chunk of its own, so a cold start of the function's other routes does not parse
 * it. For routes that alone need a heavy library (the MCP SDK, zod's JSON Schema output); a
 * failed load is retried on the next request.
 */
export function loadedOnFirstRequest<Ports>(load: () => Promise<RouteHandler<Ports>>): RouteHandler<Ports> {
  const impl = cacheUntilFailure(load);
  return async (req, ports) => (await impl())(req, ports);
}

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Creates the Lambda handler of one domain. */
export function createDomainHandler<D extends Domain, Ports>(domain: D, options: DomainHandlerOptions<D, Ports>): LambdaHandler {
  const byRouteKey = new Map<string, RouteHandler<Ports>>();
  const limits = new Map<string, RateLimitRule>();
  const cacheable = new Map<string, number>();
  for (const route of ROUTES as readonly RouteDefinition[]) {
    const impl = (options.routes as Record<string, RouteHandler<Ports> | undefined>)[route.operationId];
    if (route.domain !== domain || !impl) continue;
    byRouteKey.set(routeKey(route), impl);
    if (route.rateLimit) limits.set(routeKey(route), route.rateLimit);
    if (route.cacheSeconds) cacheable.set(routeKey(route), route.cacheSeconds);
  }
  // Per function instance ("per isolate"): created with the handler, so each Lambda instance counts alone.
  const limiters = scopedRateLimiters();
  const clock = options.clock ?? Date.now;

  // Ports and the advertised base URL are built once per cold start; a failed build is retried on the next request.
  const getPorts = cacheUntilFailure(async () => options.ports());
  // The advertised base URL is resolved once per cold start, never from request headers in AWS.
  const getBase = cacheUntilFailure(() => resolvePublicBaseUrl());

  // Only requests that came through the edge are served; the caller is the viewer it reports.
  const origin = 'origin' in options ? options.origin : originGuardFromEnv();

  const route = async (event: APIGatewayProxyEventV2): Promise<ApiResponse> => {
    logger.setCorrelationId(event.requestContext.requestId);
    // A request from around the edge is refused here (a throw), before any port is built or route runs.
    const checked = origin?.callerOf(event.headers);
    // A cold instance may read the origin secret first: its ports and base URL are built meanwhile
    // rather than after (one round trip, not two, before the first answer).
    const [caller, ports, base] = await Promise.all([checked, getPorts(), getBase()]);
    const req = toApiRequest(event, base, caller);
    const rule = limits.get(event.routeKey);
    if (rule && (rule.onlyWith === undefined || rule.onlyWith.some((h) => req.headers[h] !== undefined))) {
      // Keyed by the caller: the viewer the edge reports, never X-Forwarded-For, which the caller writes.
      const wait = limiters.take(rule, req.sourceIp, clock());
      if (wait !== undefined) {
        if (!options.rateLimited) throw rateLimited(wait, rule);
        const res = options.rateLimited(req, wait, rule);
        return { ...res, headers: { ...res.headers, 'retry-after': String(wait) } };
      }
    }
    const impl = byRouteKey.get(event.routeKey) ?? options.fallback;
    if (!impl) throw internalError(`No handler for route ${event.routeKey} in the ${domain} function.`);
    const res = await impl(req, ports);
    // A figure the same for every caller may be served from CloudFront's cache a few seconds (the route table says which).
    const seconds = cacheable.get(event.routeKey);
    return seconds && res.statusCode === 200 ? { ...res, headers: { ...res.headers, 'cache-control': `public, max-age=${seconds}` } } : res;
  };

  // middy's early timeout: a route still pending 50 ms before the function's time runs out is
  // answered, through the error handler, with the spec's 503 and retry true rather than cut off by
  // Lambda (API Gateway would then answer a bare 500). Not middy's default 5 ms: mapping the error,
  // its log line and the return must fit in the margin on a 512 MB function's share of a vCPU.
  // Middlewares' onError and after hooks run in reverse order: errors are mapped first, then headers
  // added, then the logger's keys reset. The logger's `logEvent` stays off: events hold payment
  // signatures and license tokens.
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({
    timeoutEarlyInMillis: 50,
    timeoutEarlyResponse: () => {
      throw internalError('The request did not finish in time.');
    },
  })
    .use(injectLambdaContext(logger, { logEvent: false, resetKeys: true }))
    .use(responseHeaders())
    .use(errorHandler())
    .handler(route) as unknown as LambdaHandler;
}
