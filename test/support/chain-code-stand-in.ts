/**
 * A loopback JSON-RPC stand-in for a Base provider that knows one fact, for the bundle probes
 * (tests only): the escrow operator's account delegates to EscrowOperatorGuard (its code is
 * EIP-7702's designator), as after `npm run guard-operator`. It answers `eth_chainId` (Base) and
 * `eth_getCode`; any other method is an error, as an unreachable provider would be to the caller.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delegationCode, ESCROW_OPERATOR_GUARD } from '../../lambdas/contract/auth-capture';

export interface ChainCodeStandIn {
  base: string;
  /** `eth_getCode` calls seen at `path` (`/<name>`), or in all when no path is given. */
  codeReads(path?: string): number;
  close(): Promise<void>;
}

export async function startChainCodeStandIn(delegated: string): Promise<ChainCodeStandIn> {
  const reads = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').replace(/\/+$/, '') || '/';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      const one = (call: { id?: unknown; method?: string; params?: unknown[] }) => {
        if (call.method === 'eth_chainId') return { jsonrpc: '2.0', id: call.id, result: '0x2105' };
        if (call.method === 'eth_getCode') {
          reads.set(path, (reads.get(path) ?? 0) + 1);
          const address = String(call.params?.[0] ?? '').toLowerCase();
          return {
            jsonrpc: '2.0',
            id: call.id,
            result: address === delegated.toLowerCase() ? delegationCode(ESCROW_OPERATOR_GUARD) : '0x',
          };
        }
        return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `not served: ${call.method}` } };
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body as never)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    codeReads: (path) => [...reads].filter(([p]) => path === undefined || p === path).reduce((sum, [, n]) => sum + n, 0),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
