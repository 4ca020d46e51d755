import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError, internalError } from '../errors';
import { errorResponse } from '../http';
import { logger } from '../logger';

/**
 * Maps any thrown error to the spec's failure body (after middy's http-error-handler).
 * An {@link AppError} answers as itself; anything else is a fault on our side: it is logged
 * with the request id and answered 503 INTERNAL_ERROR with retry true, never a stack trace.
 */
export function errorHandler(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: (request) => {
      const err = request.error;
      let appError: AppError;
      if (err instanceof AppError) {
        appError = err;
        if (err.status >= 500) logger.warn('request failed', { error_code: err.code, error_message: err.message });
      } else {
        logger.error('unexpected error', err as Error);
        appError = internalError();
      }
      request.response = errorResponse(appError);
    },
  };
}
