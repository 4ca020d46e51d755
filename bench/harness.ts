/** Shared pieces of the benchmarks: the marketplace under test, and proxies that count what it asks of anvil and DynamoDB. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex, type LocalAccount } from 'viem';
import { localChain } from '../local/local-chain';

export interface Served {
  url: string;
  child: ChildProcess;
  stop: () => Promise<void>;
  /** Everything the process printed so far (the banner names the RPC, the tokens, the treasury). */
  output: () => string;
}

/** Resolves with the first group of `pattern` once the child printed it on stdout; rejects if the child exits first. */
export const waitFor = (child: ChildProcess, pattern: RegExp): Promise<string> =>
  new Promise((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer): void => {
      out += c.toString();
      const m = pattern.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });

/** Stops `child` with `signal` and resolves once it exited. */
export const stopper = (child: ChildProcess, signal: NodeJS.Signals) => (): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });

/** The whole local marketplace (`npm start`'s command, in memory) in its own process. */
export async function startMarket(env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, ['local/run.mjs'], {
    env: { ...process.env, EPHEMERAL: '1', PORT: '0', ANVIL_PORT: '0', DYNAMODB_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout?.on('data', (c: Buffer) => (printed += c.toString()));
  const url = await waitFor(child, /Base URL\s+(http:\/\/\S+)/);
  return { url, child, stop: stopper(child, 'SIGINT'), output: () => printed };
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * A JSON-RPC proxy in front of `target` that counts HTTP requests (a batch is one) and methods.
 * `delayMs` holds each request that long before it goes on: a provider's round trip (a keyed
 * Base provider answers in tens of milliseconds; anvil on the same machine in under one).
 */
export async function startRpcCounter(
  target: string,
  opts: { delayMs?: number } = {},
): Promise<{
  url: string;
  /** Counts since the last reset, and resets them. */
  take: () => { requests: number; methods: Record<string, number> };
  stop: () => Promise<void>;
}> {
  const upstream = new URL(target);
  let requests = 0;
  let methods = new Map<string, number>();
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests++;
      const parsed = JSON.parse(body.toString()) as { method: string } | { method: string }[];
      for (const m of [parsed].flat()) methods.set(m.method, (methods.get(m.method) ?? 0) + 1);
      setTimeout(() => forward(body, res), opts.delayMs ?? 0);
    });
  });
  const forward = (body: Buffer, res: ServerResponse): void => {
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.end(body);
  };
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    take: () => {
      const out = { requests, methods: Object.fromEntries(methods) };
      requests = 0;
      methods = new Map();
      return out;
    },
    stop: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}

/** One DynamoDB call as the proxy saw it: the operation, the request and the answer, both parsed. */
export interface DynamoExchange {
  op: string;
  input: Record<string, unknown>;
  status: number;
  output: Record<string, unknown>;
}

/** Calls that DynamoDB does not bill as read or write units. */
/**
 * Calls DynamoDB does not bill as reads or writes: table management, and the streams API (Lambda's
 * event source mapping reads a table's stream at no charge; locally the fold's poller reads it
 * through the same endpoint).
 */
const UNBILLED = new Set([
  'DescribeTable',
  'CreateTable',
  'ListTables',
  'UpdateTable',
  'UpdateTimeToLive',
  'DescribeTimeToLive',
  'DescribeStream',
  'GetShardIterator',
  'GetRecords',
  'ListStreams',
]);

/**
 * A proxy in front of a DynamoDB endpoint (DynamoDB Local) that asks for the consumed capacity of every
 * billed call (`ReturnConsumedCapacity: TOTAL`) and hands each exchange to `observe`.
 */
export async function startDynamoProxy(
  target: string,
  observe: (exchange: DynamoExchange) => void,
): Promise<{ url: string; stop: () => Promise<void>; quiet: (ms: number) => Promise<void> }> {
  const upstream = new URL(target);
  let lastCall = performance.now();
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const input = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
      if (!UNBILLED.has(op)) input['ReturnConsumedCapacity'] = 'TOTAL';
      const body = Buffer.from(JSON.stringify(input));
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (r) => {
        const out: Buffer[] = [];
        r.on('data', (c: Buffer) => out.push(c));
        r.on('end', () => {
          const raw = Buffer.concat(out);
          if (!UNBILLED.has(op)) {
            // Only billed calls are activity: the fold's poller reads the streams all the time.
            lastCall = performance.now();
            observe({ op, input, status: r.statusCode ?? 502, output: JSON.parse(raw.toString() || '{}') as Record<string, unknown> });
          }
          res.writeHead(r.statusCode ?? 502, r.headers);
          res.end(raw);
        });
      });
      up.on('error', (e) => {
        res.writeHead(502);
        res.end(e.message);
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((r) => proxy.close(() => r())),
    /** Resolves once DynamoDB has had no billed call for `ms`: the fold, off the purchase path, has caught up. */
    quiet: async (ms: number) => {
      while (performance.now() - lastCall < ms) await new Promise((r) => setTimeout(r, 100));
    },
  };
}

/**
 * An x402 v1 buyer's first two steps: the skill's 402 challenge, then a USDC transfer of its amount
 * to the treasury from `account`, mined. Answers the transaction hash the buyer's proof names.
 */
export async function transferForChallenge(opts: {
  marketUrl: string;
  rpcUrl: string;
  usdc: Address;
  treasury: Address;
  account: LocalAccount;
  skill: string;
  fetch?: typeof fetch;
}): Promise<Hex> {
  const res = await (opts.fetch ?? fetch)(`${opts.marketUrl}/api/pay?skill=${opts.skill}`);
  const { accepts } = (await res.json()) as { accepts: { amount?: string; maxAmountRequired?: string }[] };
  const amount = BigInt(accepts[0]!.amount ?? accepts[0]!.maxAmountRequired!);
  const wallet = createWalletClient({ account: opts.account, chain: localChain(opts.rpcUrl), transport: http(opts.rpcUrl) });
  const hash = await wallet.writeContract({ address: opts.usdc, abi: erc20Abi, functionName: 'transfer', args: [opts.treasury, amount] });
  await createPublicClient({ transport: http(opts.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return hash;
}
