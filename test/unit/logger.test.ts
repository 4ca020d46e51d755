import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDomainHandler } from '../../lambdas/platform/domain-handler';
import { AppError } from '../../lambdas/platform/errors';
import { json } from '../../lambdas/platform/http';
import { InvocationLogger, logger } from '../../lambdas/platform/logger';
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

/** A logger as Lambda creates it for an on-demand instance (cold start until the first invocation). */
const onDemandLogger = (): InvocationLogger => {
  process.env['AWS_LAMBDA_INITIALIZATION_TYPE'] = 'on-demand';
  return new InvocationLogger({ serviceName: 'test', logLevel: 'INFO' });
};

describe('InvocationLogger', () => {
  it('starts when Lambda logs less than it would (Powertools warns from its constructor)', () => {
    process.env['AWS_LAMBDA_LOG_LEVEL'] = 'ERROR';
    try {
      const logger = new InvocationLogger({ serviceName: 'test', logLevel: 'DEBUG' });
      logger.bindInvocation(context('aws-1'), 'api-1');
      logger.error('still logs');
    } finally {
      delete process.env['AWS_LAMBDA_LOG_LEVEL'];
    }
    expect(lines.at(-1)).toMatchObject({ message: 'still logs', correlation_id: 'api-1' });
  });

  it('gives a line the Lambda context and correlation id of the invocation that wrote it, cold only on the first', () => {
    const logger = onDemandLogger();
    logger.bindInvocation(context('aws-1'), 'api-1');
    logger.info('first');
    logger.bindInvocation(context('aws-2'), 'api-2');
    logger.info('second');
    expect(lines).toMatchObject([
      { message: 'first', function_request_id: 'aws-1', correlation_id: 'api-1', cold_start: true, function_name: 'skill-market-catalog' },
      { message: 'second', function_request_id: 'aws-2', correlation_id: 'api-2', cold_start: false, function_memory_size: '512' },
    ]);
  });

  it('counts the cold start by invocation, not by the first line written', () => {
    const logger = onDemandLogger();
    logger.bindInvocation(context('aws-1'), 'api-1'); // the cold invocation writes nothing
    logger.bindInvocation(context('aws-2'), 'api-2');
    logger.warn('later');
    expect(lines).toMatchObject([{ function_request_id: 'aws-2', cold_start: false }]);
  });

  it("keeps an invocation's own keys and drops them in the next invocation", () => {
    const logger = onDemandLogger();
    logger.bindInvocation(context('aws-1'), 'api-1');
    logger.appendKeys({ skill: 'agent-x402-first-buy' });
    logger.info('with key');
    logger.bindInvocation(context('aws-2'), 'api-2');
    logger.info('without');
    expect(lines[0]).toMatchObject({ skill: 'agent-x402-first-buy', correlation_id: 'api-1' });
    expect(lines[1]).not.toHaveProperty('skill');
    expect(lines[1]).toMatchObject({ correlation_id: 'api-2' });
  });

  it("lets a task handler's explicit context replace an invocation not yet applied", () => {
    const logger = onDemandLogger();
    logger.bindInvocation(context('aws-api'), 'api-1');
    logger.addContext(context('aws-task'));
    logger.info('task');
    expect(lines[0]).toMatchObject({ function_request_id: 'aws-task' });
    expect(lines[0]).not.toHaveProperty('correlation_id');
  });
});

describe('a domain handler', () => {
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
    logger.setLogLevel('INFO');
    try {
      expect((await handler(event('GET /api/catalog', 'api-1'), context('aws-1'))).statusCode).toBe(503);
    } finally {
      logger.setLogLevel('SILENT');
    }
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
    // The suite runs the shared logger silent; this test reads what it writes.
    logger.setLogLevel('INFO');
    try {
      await handler(event('GET /api/catalog', 'api-ok'), context('aws-ok'));
      expect((await handler(event('GET /api/packs', 'api-fault'), context('aws-fault'))).statusCode).toBe(503);
    } finally {
      logger.setLogLevel('SILENT');
    }
    expect(lines).toMatchObject([
      { level: 'ERROR', message: 'unexpected error', correlation_id: 'api-fault', function_request_id: 'aws-fault' },
    ]);
  });
});
