import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BASE_HEADERS } from '../http';

const BASE_ENTRIES = Object.entries(BASE_HEADERS);

/**
 * The answer's headers under {@link BASE_HEADERS} and the request id (a route's own header wins).
 * Plain loops, not object spreads: spreading the many shapes of route headers made this the
 * costliest line of a warm request (issue 14's profile, 14 % of the handler's time).
 */
function withBaseHeaders(
  requestId: string,
  own: Record<string, string | number | boolean> | undefined,
): Record<string, string | number | boolean> {
  const headers: Record<string, string | number | boolean> = {};
  for (const [k, v] of BASE_ENTRIES) headers[k] = v;
  headers['x-request-id'] = requestId;
  if (own) for (const k of Object.keys(own)) headers[k] = own[k]!;
  return headers;
}

/** Adds the headers every API answer carries (CORS, nosniff, request id), to successes and failures alike. */
export function responseHeaders(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const apply = (request: { event: APIGatewayProxyEventV2; response: APIGatewayProxyStructuredResultV2 | undefined | null }): void => {
    const res = request.response;
    if (!res) return;
    // A new object: a route may answer with a memoised response, which must stay as it was.
    request.response = { ...res, headers: withBaseHeaders(request.event.requestContext.requestId, res.headers) };
  };
  return { after: apply, onError: apply };
}
