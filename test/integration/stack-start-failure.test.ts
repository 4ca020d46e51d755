/**
 * A failure of what the local stack waits for before its edge listens (the catalog build, run
 * beside the start: local/start.ts) leaves nothing behind: nothing listening, no child
 * running.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
    const starting = startStack({ port, anvilPort: 0, dynamoPort: 0, dataDir: undefined, env: {}, beforeListening: build });
    // Fails once DynamoDB Local and anvil run: they are what must not be left behind.
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

describe('npm start without Java', () => {
  it('stops at once with one line that names Java 17', async () => {
    // PATH holds node alone (a directory of its own: node and java share /usr/bin on Debian). anvil and
    // esbuild are found by their paths in node_modules, so `java` is the one thing missing.
    const bin = mkdtempSync(join(tmpdir(), 'no-java-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const child = spawn(process.execPath, ['local/run.mjs'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: {
        ...process.env,
        PATH: bin,
        EPHEMERAL: '1',
        PORT: '0',
        ANVIL_PORT: '0',
        DYNAMODB_PORT: '0',
        BUILD_SITE: '0',
        DYNAMODB_ENDPOINT: '',
        RPC_URLS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(out).toContain('Cannot start: DynamoDB Local needs Java 17 or later');
    expect(out).not.toContain('    at ');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});
