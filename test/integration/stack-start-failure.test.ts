/**
 * A failure of what the local stack waits for before its edge listens (the catalog build, run
 * beside the start: local/start.ts) leaves nothing behind: nothing listening, no child
 * running.
 */
import { describe, expect, it } from 'vitest';
import { StackStartError, startStack } from '../../local/stack';
import { childPids, exitsSoon, freePort } from '../support/processes';

// One stack per file: the DynamoDB client is one per process, as in a Lambda, and keeps the first
// stack's endpoint.
describe('the local stack before it listens', () => {
  it('stops what it started, and never listens, when that work fails', async () => {
    const port = await freePort();
    const before = new Set(childPids(process.pid));
    let fail: (e: Error) => void = () => undefined;
    const build = new Promise<void>((_, reject) => (fail = reject));
    const starting = startStack({ port, anvilPort: 0, dynalitePort: 0, dataDir: undefined, env: {}, beforeListening: build });
    // Fails once dynalite and anvil run: they are what must not be left behind.
    let spawned: number[] = [];
    for (let i = 0; i < 200 && spawned.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 25));
      spawned = childPids(process.pid).filter((pid) => !before.has(pid));
    }
    expect(spawned.length).toBeGreaterThanOrEqual(2);
    fail(new StackStartError('the catalog build failed'));
    await expect(starting).rejects.toThrow('the catalog build failed');
    for (const pid of spawned) expect(await exitsSoon(pid), `child ${pid} still running`).toBe(true);
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  });
});
