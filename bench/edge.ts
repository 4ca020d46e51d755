/**
 * Issue 14, goal 3: the local server's warm path as a ratio to a plain node:http server sending
 * the same status, headers and bytes (each in its own process, loopback, 10 keep-alive
 * connections), on GET /api/pay (the 402 challenge) and GET /api/catalog. The market runs as
 * `npm start` does; the plain server replays the market's own answer, minus the per-connection
 * headers node:http writes itself (date, connection, keep-alive).
 *
 * Either server's rate swings by up to 2× from one minute to the next on a small shared machine,
 * so the two are measured in alternating rounds (the order flipped each round) and each round
 * gives one ratio; the median of the rounds is reported, with their range. Beside the rates, the
 * CPU time each server process spent per request (/proc/<pid>/stat), which does not depend on
 * how the load generator shares the cores: the plain server's over the market's.
 *
 * A third server, the framework floor, answers the same bytes through middy and the logger's
 * per-invocation bind as every domain handler does, and nothing else (bench/fixed-json-server.mjs,
 * `lambda-framework`): its ratio is the most any server running the Lambda handler path could reach on this machine.
 * With `child` as the third argument, the load comes from autocannon's CLI in a process of its own
 * instead of this one (harness.ts, loadFromChild).
 * Usage: npx tsx bench/edge.ts [seconds per run=3] [rounds=5] [child]
 */
import { cpuTicks, load as loadHere, loadFromChild, startFixed, startMarket } from './harness';

/** User + system CPU time of a process so far, in clock ticks. */
const busyTicks = (pid: number): number => {
  const { user, system } = cpuTicks(pid);
  return user + system;
};

const seconds = Number(process.argv[2] ?? '3');
const rounds = Number(process.argv[3] ?? '5');
const load = process.argv[4] === 'child' ? loadFromChild : loadHere;
const PATHS = ['/api/pay?skill=agent-x402-first-buy', '/api/catalog'];
const OWN = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const rows: string[] = [];
const market = await startMarket();
try {
  for (const path of PATHS) {
    const res = await fetch(`${market.url}${path}`);
    const body = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (!OWN.has(key)) headers[key] = value;
    });
    const fixed = await startFixed(body, res.status, headers);
    const floor = await startFixed(body, res.status, headers, { lambdaFramework: true });
    const servers = [market, fixed, floor];
    try {
      for (const server of servers) await load(`${server.url}${path}`, { seconds: 2, connections: 10 }); // warm-up
      const runs = new Map(servers.map((server) => [server, { rps: [] as number[], us: [] as number[] }]));
      for (let round = 0; round < rounds; round++) {
        // Each server goes first, second and last in turn.
        for (let i = 0; i < servers.length; i++) {
          const server = servers[(round + i) % servers.length]!;
          const before = busyTicks(server.child.pid!);
          const r = await load(`${server.url}${path}`, { seconds, connections: 10 });
          runs.get(server)!.rps.push(r.rps);
          runs.get(server)!.us.push(((busyTicks(server.child.pid!) - before) * 10_000) / r.requests);
        }
      }
      const [m, f, fl] = servers.map((server) => runs.get(server)!);
      const per = (a: number[], b: number[], invert = false): number[] => a.map((x, i) => (invert ? b[i]! / x : x / b[i]!));
      const range = (xs: number[]): string => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
      rows.push(
        `| GET ${path} (${res.status}, ${Buffer.byteLength(body)} B, ${Object.keys(headers).length} headers) | ${range(per(m!.rps, f!.rps))} | ${range(per(m!.us, f!.us, true))} | ${range(per(fl!.rps, f!.rps))} | ${range(per(fl!.us, f!.us, true))} | ${range(per(m!.rps, fl!.rps))} | ${median(m!.us).toFixed(0)} / ${median(fl!.us).toFixed(0)} / ${median(f!.us).toFixed(0)} |`,
      );
    } finally {
      await fixed.stop();
      await floor.stop();
    }
  }
} finally {
  await market.stop();
}
console.log(
  `Medians of ${rounds} rounds (range), load generated ${load === loadFromChild ? 'by a process of its own' : 'in this process'}. Rates: req/s of a server ÷ the plain one's. CPU: the plain server's CPU per request ÷ the server's.\n\n` +
    `| request | local server, req/s | local server, CPU | framework floor, req/s | framework floor, CPU | local ÷ floor, req/s | CPU µs per request: local / floor / plain |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`,
);
