/**
 * A JSON-RPC proxy in front of anvil that estimates gas against the head, as Base's providers do
 * for a sequencer whose mempool is private: anvil estimates (`eth_estimateGas`,
 * `eth_fillTransaction`) against its own pending block, which holds the relayer's transactions not
 * mined yet, so a second transfer from an emptied balance fails estimation there but not on
 * Base. `eth_estimateGas` is asked at `latest`; `eth_fillTransaction` is answered as a provider
 * without it answers (-32601), so viem falls back to estimating. Everything else passes through.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RpcCall {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

const atHead = (call: RpcCall): RpcCall =>
  call.method === 'eth_estimateGas' ? { ...call, params: [(call.params ?? [])[0], 'latest'] } : call;
const unsupported = (call: RpcCall) => ({
  jsonrpc: '2.0',
  id: call.id,
  error: { code: -32601, message: `the method ${call.method} does not exist/is not available` },
});

export async function headEstimatingRpc(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const forward = (body: string): Promise<string> =>
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
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const answer = async (calls: RpcCall[]): Promise<unknown[]> => {
    const passed = calls.filter((c) => c.method !== 'eth_fillTransaction').map(atHead);
    const answers = passed.length > 0 ? ((await JSON.parse(await forward(JSON.stringify(passed)))) as { id?: unknown }[]) : [];
    return calls.map((c) => (c.method === 'eth_fillTransaction' ? unsupported(c) : answers.find((a) => a.id === c.id)));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void (async () => {
        try {
          const parsed = JSON.parse(body) as RpcCall | RpcCall[];
          const out = Array.isArray(parsed) ? await answer(parsed) : (await answer([parsed]))[0];
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
