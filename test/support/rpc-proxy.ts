/**
 * A JSON-RPC proxy in front of a node, for tests that change or watch what a client asks of it:
 * each request's calls (a batch's, or the one) go to `answer`, which may forward any of them
 * upstream as one batch and answers each, in order. A failure answers 502.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcCall {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

/** Sends `calls` to the node as one batch: its answers, each with its call's id. */
export type Forward = (calls: RpcCall[]) => Promise<{ id?: unknown }[]>;

export async function rpcProxy(
  target: string,
  answer: (calls: RpcCall[], forward: Forward) => Promise<unknown[]>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const forward: Forward = (calls) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: upstream.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }[]);
            } catch (e) {
              reject(e as Error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(calls));
    });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void (async () => {
        try {
          const parsed = JSON.parse(body) as RpcCall | RpcCall[];
          const out = Array.isArray(parsed) ? await answer(parsed, forward) : (await answer([parsed], forward))[0];
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
        } catch {
          res.writeHead(502).end();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What passes through `rpcProxy` unchanged: each call forwarded, its answer matched by id. */
export const passThrough = async (calls: RpcCall[], forward: Forward): Promise<unknown[]> => {
  const answers = await forward(calls);
  return calls.map((c) => answers.find((a) => a.id === c.id));
};
