/**
 * A JSON-RPC proxy in front of anvil that estimates gas against the head, as Base's providers do
 * for a sequencer whose mempool is private: anvil estimates (`eth_estimateGas`,
 * `eth_fillTransaction`) against its own pending block, which holds the relayer's transactions not
 * mined yet, so a second transfer from an emptied balance fails estimation there but not on
 * Base. `eth_estimateGas` is asked at `latest`; `eth_fillTransaction` is answered as a provider
 * without it answers (-32601), so viem falls back to estimating. Everything else passes through.
 */
import { rpcProxy, type RpcCall } from './rpc-proxy';

const atHead = (call: RpcCall): RpcCall =>
  call.method === 'eth_estimateGas' ? { ...call, params: [(call.params ?? [])[0], 'latest'] } : call;
const unsupported = (call: RpcCall) => ({
  jsonrpc: '2.0',
  id: call.id,
  error: { code: -32601, message: `the method ${call.method} does not exist/is not available` },
});

export const headEstimatingRpc = (target: string): Promise<{ url: string; close: () => Promise<void> }> =>
  rpcProxy(target, async (calls, forward) => {
    const passed = calls.filter((c) => c.method !== 'eth_fillTransaction').map(atHead);
    const answers = passed.length > 0 ? await forward(passed) : [];
    return calls.map((c) => (c.method === 'eth_fillTransaction' ? unsupported(c) : answers.find((a) => a.id === c.id)));
  });
