import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface DynaliteHandle {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop: () => Promise<void>;
}

/** Starts dynalite in a child process on 127.0.0.1; port 0 picks a free port; no path keeps data in memory. */
export async function startDynalite(opts: { port: number; path?: string | undefined }): Promise<DynaliteHandle> {
  const entry = fileURLToPath(new URL('./dynalite-process.mjs', import.meta.url));
  const child = fork(entry, [String(opts.port), ...(opts.path ? [opts.path] : [])], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    execArgv: [],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (!out.includes('\n') || !line) return;
      const msg = JSON.parse(line) as { port?: number; error?: string };
      if (msg.port) resolve(msg.port);
      else reject(new Error(msg.error === 'EADDRINUSE' ? `port ${opts.port} is busy` : `dynalite failed: ${msg.error}`));
    });
    child.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('exit', (code) => reject(new Error(`dynalite exited with code ${code}: ${out.slice(-500)}`)));
  });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      // Gone already: ended by itself (exitCode) or by a signal (signalCode); 'exit' will not come again.
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
    });
  return { endpoint: `http://127.0.0.1:${port}`, port, process: child, stop };
}
