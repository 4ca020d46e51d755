/**
 * Turns a node:http request into an API Gateway HTTP API (payload v2) event and a Lambda
 * context, as API Gateway and Lambda would, so the local server can call the very
 * handlers the Lambdas export.
 */
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** Content types API Gateway passes as text; every other body arrives base64-encoded. */
const TEXT_TYPE = /^(text\/|application\/(json|[\w.+-]+\+json|x-www-form-urlencoded|javascript|xml))/i;

/**
 * Builds the event API Gateway would pass for `req`. `route.domainName` is the API's own host
 * name, supplied by the server: like API Gateway, never taken from the client's Host header.
 */
export function toLambdaEvent(
  req: IncomingMessage,
  body: Buffer,
  route: { routeKey: string; pathParameters: Record<string, string>; domainName: string },
): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  // Node joins repeated headers with ", " except set-cookie/cookie; API Gateway joins with ",".
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === 'cookie') continue;
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  // API Gateway adds these; x-forwarded-proto tells handlers which scheme the client used.
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '127.0.0.1';

  const queryStringParameters: Record<string, string> = {};
  for (const [k, v] of url.searchParams) queryStringParameters[k] = k in queryStringParameters ? `${queryStringParameters[k]},${v}` : v;

  const cookies = req.headers.cookie ? req.headers.cookie.split(/;\s*/).filter(Boolean) : undefined;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || TEXT_TYPE.test(contentType);
  const now = new Date();
  const requestId = randomUUID();

  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    ...(cookies ? { cookies } : {}),
    headers,
    ...(Object.keys(queryStringParameters).length > 0 ? { queryStringParameters } : {}),
    ...(Object.keys(route.pathParameters).length > 0 ? { pathParameters: route.pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: route.domainName,
      domainPrefix: route.domainName.split('.')[0] ?? route.domainName,
      http: {
        method: (req.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: !isText,
  };
}

/** A Lambda context whose remaining time counts down from `timeoutMs`, as Lambda's does. */
export function lambdaContext(functionName: string, requestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
