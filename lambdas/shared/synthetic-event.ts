import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** A payload v2 event for an in-process call of a handler (readiness drives a real GET through it). */
export function syntheticEvent(routeKey: string, rawQueryString: string, baseUrl: string): APIGatewayProxyEventV2 {
  const url = new URL(baseUrl);
  const [method, path] = routeKey.split(' ') as [string, string];
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString,
    headers: { host: url.host, 'x-forwarded-proto': url.protocol.replace(':', '') },
    requestContext: {
      accountId: 'self',
      apiId: 'self',
      domainName: url.host,
      domainPrefix: url.host.split('.')[0] ?? url.host,
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'skill-market-readiness' },
      requestId: `ready-${randomUUID()}`,
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
}

export const syntheticContext = (name: string): Context =>
  ({ awsRequestId: randomUUID(), functionName: name, getRemainingTimeInMillis: () => 10_000, callbackWaitsForEmptyEventLoop: false }) as unknown as Context;
