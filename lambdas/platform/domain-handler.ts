/**
 * Builds a domain's Lambda handler: middy wiring, routing by API Gateway route key, and the
 * per-caller rate limits the route table declares. Route implementations are plain functions
 * of (request, ports); they never see the raw event.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { internalError } from './errors';
import { toApiRequest, type ApiRequest, type ApiResponse } from './http';
import { logger } from './logger';
import { deadlineGuard } from './deadline';
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
  for (const route of ROUTES as readonly RouteDefinition[]) {
    const impl = (options.routes as Record<string, RouteHandler<Ports> | undefined>)[route.operationId];
    if (route.domain !== domain || !impl) continue;
    byRouteKey.set(routeKey(route), impl);
    if (route.rateLimit) limits.set(routeKey(route), route.rateLimit);
  }
  // Per function instance ("per isolate"): created with the handler, so each Lambda instance counts alone.
  const limiters = scopedRateLimiters();
  const clock = options.clock ?? Date.now;

  // Ports and the advertised base URL are built once per cold start; a failed build is retried on the next request.
  const getPorts = cacheUntilFailure(async () => options.ports());
  // The advertised base URL is resolved once per cold start, never from request headers in AWS.
  const getBase = cacheUntilFailure(() => resolvePublicBaseUrl());

  // A route still waiting when the function's time is nearly up is answered 503 before Lambda cuts it off.
  const deadline = deadlineGuard();
  // Only requests that came through the edge are served; the caller is the viewer it reports.
  const origin = 'origin' in options ? options.origin : originGuardFromEnv();

  /** The route's answer for a request once ports and base URL are built. */
  const answer = (
    event: APIGatewayProxyEventV2,
    ports: Ports,
    base: string | undefined,
    caller: string | undefined,
  ): ApiResponse | Promise<ApiResponse> => {
    const req = toApiRequest(event, base, caller);
    const rule = limits.get(event.routeKey);
    if (rule) {
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
    return impl(req, ports);
  };

  // Once both are built they never change: later requests take them without awaiting two promises.
  let built: { ports: Ports; base: string | undefined } | undefined;
  /** The answer once the caller is known: at once when the ports are built and the route answers at once. */
  const serve = (event: APIGatewayProxyEventV2, caller: string | undefined): ApiResponse | Promise<ApiResponse> => {
    if (built) return answer(event, built.ports, built.base, caller);
    return Promise.all([getPorts(), getBase()]).then(([ports, base]) => {
      built = { ports, base };
      return answer(event, ports, base, caller);
    });
  };
  /**
   * Not an async function: a route that answers at once (most reads) is returned as it is, with
   * no deadline to arm; only work still pending is guarded. A synchronous throw reaches middy's
   * error hooks as a rejection would.
   */
  const route = (event: APIGatewayProxyEventV2, context: Context): ApiResponse | Promise<ApiResponse> => {
    // The invocation's log context (Lambda context, correlation id), applied only if it writes a line.
    logger.bindInvocation(context, event.requestContext.requestId);
    // A request from around the edge is refused here, before any port is built or route runs.
    const caller = origin?.callerOf(event.headers);
    // A cold instance reads the origin secret for a request that carries one: its ports and base
    // URL are built meanwhile rather than after (one round trip, not two, before the first answer).
    if (isPromise(caller) && !built) for (const start of [getPorts, getBase]) start().catch(() => undefined);
    const out = isPromise(caller) ? caller.then((c) => serve(event, c)) : serve(event, caller);
    return isPromise(out) ? deadline.within(context, out) : out;
  };

  // Middlewares' onError and after hooks run in reverse order: errors are mapped first, then headers added.
  // middy's own early timeout (a timer per request) is off: the deadline guard above does its work.
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({ timeoutEarlyInMillis: 0 })
    .use(responseHeaders())
    .use(errorHandler())
    .handler(route as (event: APIGatewayProxyEventV2, context: Context) => Promise<ApiResponse>) as unknown as LambdaHandler;
}

/** Whether a route answered with a promise (or any thenable) rather than an answer. */
function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
