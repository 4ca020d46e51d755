import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BASE_HEADERS } from '../http';

/** Adds the headers every API answer carries (CORS, nosniff, request id), to successes and failures alike. */
export function responseHeaders(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const apply = (request: { event: APIGatewayProxyEventV2; response: APIGatewayProxyStructuredResultV2 | undefined | null }): void => {
    if (!request.response) return;
    request.response = {
      ...request.response,
      headers: { ...BASE_HEADERS, 'x-request-id': request.event.requestContext.requestId, ...request.response.headers },
    };
  };
  return { after: apply, onError: apply };
}
