/**
 * X-Ray sees every AWS SDK call: each client an adapter builds is wrapped by the one tracer, which
 * in Lambda adds X-Ray's instrumentation to the client and outside Lambda leaves it alone. Outbound
 * fetch is not instrumented (a keyed RPC provider's URL path would be stored in the trace).
 */
import diagnostics from 'node:diagnostics_channel';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const XRAY_MIDDLEWARE = 'XRaySDKInstrumentation';
const root = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The names of the middlewares on an SDK client's stack. */
const middlewares = (client: { middlewareStack: { identify(): string[] } }): string[] => client.middlewareStack.identify();

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('tracing of AWS SDK calls', () => {
  it('in Lambda, the DynamoDB client every domain shares carries X-Ray instrumentation', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs22.x');
    vi.stubEnv('POWERTOOLS_TRACE_ENABLED', 'true');
    const { dynamoClient } = await import('../../lambdas/platform/adapters/dynamo-client');
    expect(middlewares(dynamoClient({})).some((m) => m.startsWith(XRAY_MIDDLEWARE))).toBe(true);
  });

  it('outside Lambda (npm start, tests) the client is left as it was', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', '');
    const { dynamoClient } = await import('../../lambdas/platform/adapters/dynamo-client');
    expect(middlewares(dynamoClient({})).some((m) => m.startsWith(XRAY_MIDDLEWARE))).toBe(false);
  });

  it('every AWS SDK client built under lambdas/ is wrapped by the tracer', () => {
    const unwrapped: string[] = [];
    for (const file of sources(join(root, 'lambdas'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/new (\w+Client)\(/g)) {
        if (!/@aws-sdk\/client-/.test(text)) continue;
        // `traced(new XClient(` on one line, or split by the formatter after `traced(`.
        if (!/traced\(\s*$/.test(text.slice(0, m.index))) unwrapped.push(`${relative(root, file)}: ${m[0]}`);
      }
    }
    expect(unwrapped).toEqual([]);
  });

  it('does not instrument outbound fetch, whose URLs may carry an RPC provider key', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs22.x');
    vi.stubEnv('POWERTOOLS_TRACE_ENABLED', 'true');
    const { tracer } = await import('../../lambdas/platform/tracer');
    expect(tracer.isTracingEnabled()).toBe(true);
    // Powertools instruments fetch by subscribing to undici's request channel.
    expect(diagnostics.hasSubscribers('undici:request:create')).toBe(false);
  });
});
