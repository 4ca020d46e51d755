/**
 * The local stack's edge listens only once the catalog build, run beside the start
 * (local/start.ts), is done.
 */
import { describe, expect, it } from 'vitest';
import { startStack } from '../../local/stack';
import { freePort } from '../support/processes';

// One stack per file: the DynamoDB client is one per process, as in a Lambda, and keeps the first
// stack's endpoint.
describe('the local stack before it listens', () => {
  it('listens only once the work it was given is done', async () => {
    const port = await freePort();
    const started = performance.now();
    let done = 0;
    const build = new Promise<void>((resolve) =>
      setTimeout(() => {
        done = performance.now() - started;
        resolve();
      }, 2_500),
    );
    const stack = await startStack({ port, anvilPort: 0, dynamoPort: 0, dataDir: undefined, env: {}, beforeListening: build });
    try {
      expect(done).toBeGreaterThan(0);
      expect(performance.now() - started).toBeGreaterThanOrEqual(done);
      expect((await fetch(`${stack.listenUrl}/api/health`)).status).toBe(200);
    } finally {
      await stack.stop();
    }
  });
});
