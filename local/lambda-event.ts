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

/**
 * A request target that WHATWG URL parsing would return unchanged: origin-form, no dot segment,
 * no percent sign (`%2e` counts as a dot), no character URL would percent-encode, no `//` at the
 * start (a scheme-relative URL). Most requests are such; they skip the URL parser.
 */
const PLAIN_TARGET = /^\/(?!\/)[\w\-.~!$&'()*+,;=:@/]*(?:\?[\w\-.~!$&()*+,;=:@/?%]*)?$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

/** The request target's path and query string (without `?`), as API Gateway reports them. */
export interface RequestTarget {
  path: string;
  rawQueryString: string;
}

/** Splits a request target; undefined when it is no URL at all (the edge answers 400). */
export function parseTarget(url: string | undefined): RequestTarget | undefined {
  const target = url ?? '/';
  if (PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target)) {
    const q = target.indexOf('?');
    return q < 0 ? { path: target, rawQueryString: '' } : { path: target.slice(0, q), rawQueryString: target.slice(q + 1) };
  }
  try {
    const parsed = new URL(target, 'http://localhost');
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
  const given = req.headers;
  for (const k in given) {
    const v = given[k];
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

  let queryStringParameters: Record<string, string> | undefined;
  if (rawQueryString !== '') {
    queryStringParameters = {};
    for (const [k, v] of new URLSearchParams(rawQueryString))
      queryStringParameters[k] = k in queryStringParameters ? `${queryStringParameters[k]},${v}` : v;
  }

  const cookies = req.headers.cookie ? req.headers.cookie.split(/;\s*/).filter(Boolean) : undefined;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || TEXT_TYPE.test(contentType);
  const now = Date.now();
  const requestId = randomUUID();

  // Optional fields are set only when present, as API Gateway omits them (assigned, not spread:
  // this runs on every request of the local server).
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
      domainPrefix: domainPrefixOf(route.domainName),
      http: {
        method: (req.method ?? 'GET').toUpperCase(),
        path,
        protocol: req.httpVersion === '1.1' ? 'HTTP/1.1' : `HTTP/${req.httpVersion}`,
        sourceIp: edge,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route.routeKey,
      stage: '$default',
      time: utcTime(now),
      timeEpoch: now,
    },
    isBase64Encoded: !isText,
  };
  if (cookies) event.cookies = cookies;
  if (queryStringParameters && hasKeys(queryStringParameters)) event.queryStringParameters = queryStringParameters;
  if (hasKeys(route.pathParameters)) event.pathParameters = route.pathParameters;
  if (body.length > 0) event.body = isText ? body.toString('utf8') : body.toString('base64');
  return event;
}

/** The first label of the API's host name; the host is the same for every request, so split once. */
let lastDomain = '';
let lastPrefix = '';
function domainPrefixOf(domainName: string): string {
  if (domainName !== lastDomain) {
    lastDomain = domainName;
    lastPrefix = domainName.split('.')[0] ?? domainName;
  }
  return lastPrefix;
}

/** Whether an object has any key, without listing them all (`Object.keys(o).length` builds an array). */
function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/** The event's `time` is to the second: formatted once per second, not once per request. */
let lastSecond = -1;
let lastTime = '';
function utcTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTime = new Date(second * 1000).toUTCString();
  }
  return lastTime;
}

/** A function's ARN and log group, built once per function name rather than per request. */
const functionNames = new Map<string, { arn: string; logGroup: string }>();
function namesOf(functionName: string): { arn: string; logGroup: string } {
  let names = functionNames.get(functionName);
  if (!names) {
    names = { arn: `arn:aws:lambda:local:000000000000:function:${functionName}`, logGroup: `/aws/lambda/${functionName}` };
    functionNames.set(functionName, names);
  }
  return names;
}

/**
 * A Lambda context whose remaining time counts down from the timeout, as Lambda's does. A class,
 * so a request creates one object, not four closures and three names.
 */
class LocalContext implements Context {
  readonly callbackWaitsForEmptyEventLoop = false;
  readonly functionVersion = '$LATEST';
  readonly memoryLimitInMB = String(DEFAULT_MEMORY_MB);
  readonly logStreamName = 'local';
  readonly invokedFunctionArn: string;
  readonly logGroupName: string;

  constructor(
    readonly functionName: string,
    readonly awsRequestId: string,
    private readonly deadline: number,
  ) {
    const names = namesOf(functionName);
    this.invokedFunctionArn = names.arn;
    this.logGroupName = names.logGroup;
  }

  getRemainingTimeInMillis(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  done(): void {}
  fail(): void {}
  succeed(): void {}
}

/** A Lambda context whose remaining time counts down from `timeoutMs`, as Lambda's does. */
export function lambdaContext(functionName: string, requestId: string, timeoutMs: number): Context {
  return new LocalContext(functionName, requestId, Date.now() + timeoutMs);
}
