import { ContractFunctionRevertedError, BaseError, createPublicClient, fallback, getAddress, http, parseAbi, zeroAddress } from 'viem';
import type { AgentRegistration, RegistryLookup } from '../ports';

const ABI = parseAbi([
  'function ownerOf(uint256 agentId) view returns (address)',
  'function tokenURI(uint256 agentId) view returns (string)',
  'function getAgentWallet(uint256 agentId) view returns (address)',
]);

/** A registration file is small JSON; anything larger is not read. */
const MAX_REGISTRATION_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 2_000;

/** The JSON object of a registration file, or undefined when it cannot be read. */
async function readRegistration(uri: string): Promise<Record<string, unknown> | undefined> {
  let text: string | undefined;
  try {
    if (uri.startsWith('data:')) {
      const comma = uri.indexOf(',');
      if (comma < 0) return undefined;
      const meta = uri.slice(5, comma);
      const payload = uri.slice(comma + 1);
      if (payload.length > MAX_REGISTRATION_BYTES * 2) return undefined;
      text = meta.endsWith(';base64') ? Buffer.from(payload, 'base64').toString('utf8') : decodeURIComponent(payload);
    } else if (uri.startsWith('https://')) {
      // Only https, bounded in time and size: the URI is whatever the agent's owner wrote on chain.
      const res = await fetch(uri, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
      if (!res.ok) return undefined;
      const body = await res.arrayBuffer();
      if (body.byteLength > MAX_REGISTRATION_BYTES) return undefined;
      text = Buffer.from(body).toString('utf8');
    } else {
      return undefined;
    }
    if (text.length > MAX_REGISTRATION_BYTES) return undefined;
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ERC-8004 Identity Registry read with viem over the configured RPC providers: `ownerOf`
 * (a revert means no such agent), `getAgentWallet` and `tokenURI`, then the registration file.
 */
export function viemIdentityRegistry(
  rpcUrls: readonly string[],
  registry: `0x${string}`,
): { lookup(agentId: bigint): Promise<RegistryLookup> } {
  const client = createPublicClient({ transport: fallback(rpcUrls.map((url) => http(url, { timeout: 3_000, retryCount: 0 }))) });
  const ownerOf = (agentId: bigint) => client.readContract({ address: registry, abi: ABI, functionName: 'ownerOf', args: [agentId] });
  const walletOf = (agentId: bigint) =>
    client.readContract({ address: registry, abi: ABI, functionName: 'getAgentWallet', args: [agentId] });
  const uriOf = (agentId: bigint) => client.readContract({ address: registry, abi: ABI, functionName: 'tokenURI', args: [agentId] });
  return {
    async lookup(agentId) {
      let owner: string;
      try {
        owner = await ownerOf(agentId);
      } catch (e) {
        const reverted = e instanceof BaseError && e.walk((err) => err instanceof ContractFunctionRevertedError) !== null;
        if (reverted) return { kind: 'not_found' };
        return { kind: 'unavailable', error: e instanceof BaseError ? e.shortMessage : 'the registry did not answer' };
      }
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
        return { kind: 'unavailable', error: e instanceof BaseError ? e.shortMessage : 'the registry did not answer' };
      }
    },
  };
}
