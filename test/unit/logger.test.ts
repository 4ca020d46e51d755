import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The suite runs the logger silent; this file reads what it writes. Set before the logger is made:
// the middleware restores the configured level on every invocation (Powertools' debug sampling).
// POWERTOOLS_LOGGER_LOG_EVENT asks for every event to be logged: the handlers must not.
vi.hoisted(() => {
  process.env['POWERTOOLS_LOG_LEVEL'] = 'INFO';
  process.env['POWERTOOLS_LOGGER_LOG_EVENT'] = 'true';
});
import { createDomainHandler } from '../../lambdas/platform/domain-handler';
import { AppError } from '../../lambdas/platform/errors';
import { json } from '../../lambdas/platform/http';
import { Logger } from '@aws-lambda-powertools/logger';
import { logger } from '../../lambdas/platform/logger';
import { INFRA_ENV } from '../../lambdas/contract/env';

process.env['PUBLIC_BASE_URL'] ??= 'https://market.example';
// Hand-made events carry no origin secret: the origin check is off here, as with nothing configured
// (the test workers inherit the local stack's environment, which configures one).
delete process.env[INFRA_ENV.originSecretFile];
delete process.env[INFRA_ENV.originSecretArn];

const context = (awsRequestId: string): Context =>
  ({
    awsRequestId,
    functionName: 'skill-market-catalog',
    functionVersion: '7',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:skill-market-catalog',
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

const event = (routeKey: string, requestId: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: '/api/x',
    rawQueryString: '',
    headers: {},
    requestContext: { requestId, http: { method: 'GET', path: '/api/x', protocol: 'HTTP/1.1', sourceIp: '1', userAgent: '' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

let lines: Record<string, unknown>[];
beforeEach(() => {
  lines = [];
  // Powertools writes each line to stdout or stderr (warnings, errors) through a Console of its own.
  const capture = (chunk: string | Uint8Array): boolean => {
    const text = String(chunk);
    if (text.startsWith('{')) lines.push(JSON.parse(text) as Record<string, unknown>);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
});
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env['AWS_LAMBDA_INITIALIZATION_TYPE'];
});

describe('the logger', () => {
  it('starts when Lambda logs less than it would (Powertools warns from its constructor)', () => {
    process.env['AWS_LAMBDA_LOG_LEVEL'] = 'ERROR';
    try {
      const logger = new Logger({ serviceName: 'test', logLevel: 'DEBUG' });
      logger.addContext(context('aws-1'));
      logger.error('still logs');
    } finally {
      delete process.env['AWS_LAMBDA_LOG_LEVEL'];
    }
    expect(lines.at(-1)).toMatchObject({ message: 'still logs', function_request_id: 'aws-1' });
  });
});

describe('a domain handler', () => {
  it("gives every line the invocation's Lambda context and correlation id, and drops a route's keys after it", async () => {
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => {
          logger.appendKeys({ skill: 'agent-x402-first-buy' });
          logger.info('with key');
          return json(200, {});
        },
        getPackMetadata: () => {
          logger.info('without');
          return json(200, {});
        },
        getIntent: () => json(200, {}),
        postIntent: () => json(200, {}),
      },
      ports: () => ({}),
    });
    await handler(event('GET /api/catalog', 'api-1'), context('aws-1'));
    await handler(event('GET /api/packs', 'api-2'), context('aws-2'));
    expect(lines).toMatchObject([
      {
        message: 'with key',
        skill: 'agent-x402-first-buy',
        correlation_id: 'api-1',
        function_request_id: 'aws-1',
        function_name: 'skill-market-catalog',
        cold_start: expect.any(Boolean),
      },
      { message: 'without', correlation_id: 'api-2', function_request_id: 'aws-2', function_memory_size: '512', cold_start: false },
    ]);
    expect(lines[1]).not.toHaveProperty('skill');
  });

  it('never logs the event, though the environment asks for it (events carry payment signatures and license tokens)', async () => {
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => json(200, {}),
        getPackMetadata: () => json(200, {}),
        getIntent: () => json(200, {}),
        postIntent: () => json(200, {}),
      },
      ports: () => ({}),
    });
    await handler({ ...event('GET /api/catalog', 'api-1'), headers: { 'payment-signature': 'secret-signature' } }, context('aws-1'));
    expect(JSON.stringify(lines)).not.toContain('secret-signature');
  });

  it('logs a 5xx failure in one line that keeps its message', async () => {
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => {
          throw new AppError({ status: 503, code: 'PAYMENTS_DISABLED', message: 'payments are paused', tip: 'Retry later.', retry: true });
        },
        getPackMetadata: () => json(200, {}),
        getIntent: () => json(200, {}),
        postIntent: () => json(200, {}),
      },
      ports: () => ({}),
    });
    expect((await handler(event('GET /api/catalog', 'api-1'), context('aws-1'))).statusCode).toBe(503);
    // Powertools drops a reserved key such as `message` and warns in a line of its own.
    expect(lines).toMatchObject([
      { level: 'WARN', message: 'request failed', error_code: 'PAYMENTS_DISABLED', error_message: 'payments are paused' },
    ]);
  });

  it("logs a fault with the failing request's ids, not the previous request's", async () => {
    const handler = createDomainHandler('catalog', {
      routes: {
        listCatalog: () => json(200, {}),
        getPackMetadata: () => {
          throw new Error('disk on fire');
        },
        getIntent: () => json(200, {}),
        postIntent: () => json(200, {}),
      },
      ports: () => ({}),
    });
    await handler(event('GET /api/catalog', 'api-ok'), context('aws-ok'));
    expect((await handler(event('GET /api/packs', 'api-fault'), context('aws-fault'))).statusCode).toBe(503);
    expect(lines).toMatchObject([
      { level: 'ERROR', message: 'unexpected error', correlation_id: 'api-fault', function_request_id: 'aws-fault' },
    ]);
  });
});
