/**
 * The one logger. Powertools writes structured JSON; API handlers add the Lambda context and the
 * request id as correlation id through its `injectLambdaContext` middleware (domain-handler.ts),
 * task handlers with `addContext`. Bodies and secrets are never passed to it; log level comes from
 * POWERTOOLS_LOG_LEVEL.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: process.env['POWERTOOLS_SERVICE_NAME'] ?? 'skill-market' });
