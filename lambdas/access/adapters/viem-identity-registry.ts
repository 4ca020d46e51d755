import { ContractFunctionRevertedError, BaseError, createPublicClient, getAddress, parseAbi, zeroAddress } from 'viem';
import { rpcTransport } from '../../platform/adapters/viem-rpc-transport';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { AgentRegistration, IdentityRegistry, RegistryLookup } from '../ports';

/** Only what a lookup reads, so any ERC-8004 Identity Registry (the Base one, the local stand-in) fits. */
const ABI = parseAbi([
  'function ownerOf(uint256 agentId) view returns (address)',
  'function tokenURI(uint256 agentId) view returns (string)',
  'function getAgentWallet(uint256 agentId) view returns (address)',
]);

/** A registration file is small JSON; anything larger is not read. */
const MAX_REGISTRATION_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 2_000;
const RPC_TIMEOUT_MS = 3_000;

/** The UTF-8 body of an https response, or undefined past `max` bytes: read in chunks so a huge body is never held whole. */
async function readCapped(res: Response, max: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) return undefined;
  if (!res.body) return undefined;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON object of a registration file, or undefined when it cannot be read. */
async function readRegistration(uri: string): Promise<Record<string, unknown> | undefined> {
  let text: string | undefined;
  try {
    if (uri.startsWith('data:')) {
      const comma = uri.indexOf(',');
      if (comma < 0) return undefined;
      const meta = uri.slice(5, comma);
      const payload = uri.slice(comma + 1);
      // Bound the encoded form before decoding: base64 is 4/3 of the bytes, %-escapes at most 3x.
      if (payload.length > MAX_REGISTRATION_BYTES * 3) return undefined;
      text = meta.endsWith(';base64') ? Buffer.from(payload, 'base64').toString('utf8') : decodeURIComponent(payload);
    } else if (uri.startsWith('https://')) {
      // Only https, bounded in time and size, no redirects (one could lead to http: or a private host):
      // the URI is whatever the agent's owner wrote on chain.
      const res = await fetch(uri, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
      if (!res.ok) return undefined;
      text = await readCapped(res, MAX_REGISTRATION_BYTES);
    } else {
      // ipfs:, http:, file: and the rest are never fetched.
      return undefined;
    }
    if (text === undefined || Buffer.byteLength(text, 'utf8') > MAX_REGISTRATION_BYTES) return undefined;
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a viem error is the contract reverting (an answer), not the RPC failing to give one. */
const isRevert = (e: unknown): boolean => e instanceof BaseError && e.walk((err) => err instanceof ContractFunctionRevertedError) !== null;
const unavailable = (e: unknown): RegistryLookup => ({
  kind: 'unavailable',
  error: e instanceof BaseError ? e.shortMessage : 'the registry did not answer',
});

/**
 * The ERC-8004 Identity Registry read with viem over the configured RPC providers (one after
 * another, ~3 s each): `ownerOf` (a revert means no such agent), `getAgentWallet` and `tokenURI`,
 * then the registration file. An address without code answers nothing, so it is `unavailable`.
 */
export function viemIdentityRegistry(rpcUrls: RpcUrls, registry: `0x${string}`): IdentityRegistry {
  const client = createPublicClient({ transport: rpcTransport(rpcUrls, { timeout: RPC_TIMEOUT_MS }) });
  const ownerOf = (agentId: bigint) => client.readContract({ address: registry, abi: ABI, functionName: 'ownerOf', args: [agentId] });
  const walletOf = (agentId: bigint) =>
    client.readContract({ address: registry, abi: ABI, functionName: 'getAgentWallet', args: [agentId] });
  const uriOf = (agentId: bigint) => client.readContract({ address: registry, abi: ABI, functionName: 'tokenURI', args: [agentId] });
  return {
    address: getAddress(registry),
    async lookup(agentId) {
      let owner: string;
      try {
        owner = await ownerOf(agentId);
      } catch (e) {
        return isRevert(e) ? { kind: 'not_found' } : unavailable(e);
      }
      // ERC-721 says ownerOf throws for a token that does not exist; a zero owner means the same.
      if (owner === zeroAddress) return { kind: 'not_found' };
      try {
        const [wallet, tokenURI] = await Promise.all([walletOf(agentId), uriOf(agentId)]);
        const agent: AgentRegistration = {
          agentId: agentId.toString(),
          owner: getAddress(owner),
          agentWallet: wallet === zeroAddress ? undefined : getAddress(wallet),
          tokenURI,
          registration: await readRegistration(tokenURI),
        };
        return { kind: 'found', agent };
      } catch (e) {
        return unavailable(e);
      }
    },
  };
}
