/**
 * Measures the local stack as a user meets it: wall time from `npm start` to
 * /api/ready answering ready:true (fresh data dir, then a restart on the same data),
 * resident memory of the whole process tree (node, dynalite, anvil), and `cdk synth` time.
 * Usage: npx tsx bench/startup.ts   (prints a Markdown table)
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Sum of VmRSS over a process and all its descendants, from /proc. */
function treeRssMb(rootPid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* process ended while listing */
    }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += Number(m?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return kb / 1024;
}

async function startOnce(dataDir: string, port: number): Promise<{ readyMs: number; rssMb: number }> {
  const started = performance.now();
  const child = spawn(npm, ['start'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), ANVIL_PORT: '0', DYNALITE_PORT: '0' },
    stdio: 'ignore',
    detached: true,
  });
  const base = `http://127.0.0.1:${port}`;
  let readyMs = NaN;
  for (let i = 0; i < 1200; i++) {
    try {
      const body = (await (await fetch(`${base}/api/ready`)).json()) as { ready: boolean };
      if (body.ready) {
        readyMs = performance.now() - started;
        break;
      }
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // Let the processes settle after start-up before reading memory.
  await new Promise((r) => setTimeout(r, 1_000));
  const rssMb = treeRssMb(child.pid!);
  process.kill(-child.pid!, 'SIGINT');
  await new Promise((r) => child.once('exit', r));
  await new Promise((r) => setTimeout(r, 500));
  return { readyMs, rssMb };
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-start-'));
try {
  const port = 18787;
  const cold = await startOnce(dataDir, port);
  const warm = await startOnce(dataDir, port);
  const t = performance.now();
  execFileSync('npx', ['cdk', 'synth', '-q'], { stdio: 'ignore' });
  const synthMs = performance.now() - t;
  console.log('| measure | value |\n|---|---|');
  console.log(`| npm start → ready:true, fresh data | ${(cold.readyMs / 1000).toFixed(2)} s |`);
  console.log(`| npm start → ready:true, existing data | ${(warm.readyMs / 1000).toFixed(2)} s |`);
  console.log(
    `| resident memory, whole local stack (node + dynalite + anvil) | ${cold.rssMb.toFixed(0)} MB fresh, ${warm.rssMb.toFixed(0)} MB restarted |`,
  );
  console.log(`| npx cdk synth -q (bundles every Lambda with esbuild) | ${(synthMs / 1000).toFixed(2)} s |`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
