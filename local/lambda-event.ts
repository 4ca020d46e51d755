/**
 * Turns a node:http request into an API Gateway HTTP API (payload v2) event and a Lambda
 * context, as API Gateway and Lambda would, so the local server can call the very
 * handlers the Lambdas export.
 */
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { addViewerAddress, ORIGIN_VERIFY_HEADER } from '../lambdas/contract/edge-identity';
import { DEFAULT_MEMORY_MB } from '../lambdas/contract/infra';

/** Content types API Gateway passes as text; every other body arrives base64-encoded. */
const TEXT_TYPE = /^(text\/|application\/(json|[\w.+-]+\+json|x-www-form-urlencoded|javascript|xml))/i;

/** The request target's path and query string (without `?`), as API Gateway reports them. */
export interface RequestTarget {
  path: string;
  rawQueryString: string;
}

/** Splits a request target as the WHATWG URL parser reads it; undefined when it is no URL at all (the edge answers 400). */
export function parseTarget(url: string | undefined): RequestTarget | undefined {
  try {
    const parsed = new URL(url ?? '/', 'http://localhost');
    return { path: parsed.pathname, rawQueryString: parsed.search.slice(1) };
  } catch {
    return undefined;
  }
}

/**
 * Builds the event API Gateway would pass for `req` once CloudFront forwarded it: the edge does
 * what CloudFront does on the way (the viewer-request function's viewer address, the origin
 * secret as an origin custom header, each overwriting what the viewer sent), and API Gateway's
 * peer is the edge itself, as it is CloudFront's edge host in AWS, so the handlers can tell
 * callers apart only through the same headers as in AWS. `route.domainName` is the API's own
 * host name, supplied by the server: like API Gateway, never taken from the client's Host header.
 * Without `originSecret` a viewer's header of that name is dropped all the same.
 */
export function toLambdaEvent(
  req: IncomingMessage,
  body: Buffer,
  route: { routeKey: string; pathParameters: Record<string, string>; domainName: string },
  target: RequestTarget | undefined = parseTarget(req.url),
  originSecret?: string,
): APIGatewayProxyEventV2 {
  const { path, rawQueryString } = target ?? { path: '/', rawQueryString: '' };
  const headers: Record<string, string> = {};
  // Node joins repeated headers with ", " except set-cookie/cookie; API Gateway joins with ",".
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === 'cookie') continue;
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  const viewer = req.socket.remoteAddress ?? '127.0.0.1';
  // What API Gateway sees as its peer: the edge's own address, not the viewer's.
  const edge = req.socket.localAddress ?? '127.0.0.1';
  // CloudFront's viewer-request function: the viewer's address, whatever the viewer sent under that name.
  addViewerAddress(headers, viewer);
  // CloudFront's origin custom header: the origin secret, overwriting a viewer's header of that name.
  if (originSecret) headers[ORIGIN_VERIFY_HEADER] = originSecret;
  else delete headers[ORIGIN_VERIFY_HEADER];
  // API Gateway adds these; x-forwarded-proto tells handlers which scheme the client used.
  headers['x-forwarded-proto'] = 'http';
  // CloudFront appends the viewer to what the viewer sent, API Gateway its peer (nothing trusts this header).
  const forwardedFor = headers['x-forwarded-for'];
  headers['x-forwarded-for'] = `${forwardedFor ? `${forwardedFor}, ` : ''}${viewer}, ${edge}`;

  const queryStringParameters: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawQueryString))
    queryStringParameters[k] = k in queryStringParameters ? `${queryStringParameters[k]},${v}` : v;

  const cookies = req.headers.cookie ? req.headers.cookie.split(/;\s*/).filter(Boolean) : undefined;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || TEXT_TYPE.test(contentType);
  const now = new Date();

  // Optional fields are set only when present, as API Gateway omits them.
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: path,
    rawQueryString,
    headers,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: route.domainName,
      domainPrefix: route.domainName.split('.')[0] ?? route.domainName,
      http: {
        method: (req.method ?? 'GET').toUpperCase(),
        path,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: edge,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: !isText,
  };
  if (cookies) event.cookies = cookies;
  if (Object.keys(queryStringParameters).length > 0) event.queryStringParameters = queryStringParameters;
  if (Object.keys(route.pathParameters).length > 0) event.pathParameters = route.pathParameters;
  if (body.length > 0) event.body = isText ? body.toString('utf8') : body.toString('base64');
  return event;
}

/** A Lambda context whose remaining time counts down from `timeoutMs`, as Lambda's does. */
export function lambdaContext(functionName: string, requestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(DEFAULT_MEMORY_MB),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
