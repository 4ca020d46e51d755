/**
 * The local ERC-8004 Identity Registry on its own anvil: deployed once and found again, its test
 * agent, the agent-wallet rules, and the viem adapter the access Lambda reads it with.
 */
import { fixedRpcUrls } from '../../lambdas/platform/rpc-urls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseEventLogs, zeroAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { viemIdentityRegistry } from '../../lambdas/access/adapters/viem-identity-registry';
import { startAnvil, testAccount, type AnvilHandle } from '../../local/anvil';
import { IDENTITY_REGISTRY_ABI, ensureIdentityRegistry, type LocalIdentityRegistry } from '../../local/identity-registry';
import { localChain } from '../../local/local-chain';

let anvil: AnvilHandle;
let first: LocalIdentityRegistry;
let second: LocalIdentityRegistry;

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  first = await ensureIdentityRegistry(anvil.rpcUrl);
  second = await ensureIdentityRegistry(anvil.rpcUrl);
});

afterAll(async () => {
  await anvil?.stop();
});

describe('ensureIdentityRegistry', () => {
  it('deploys the registry with agent 1 owned by buyer account 8, then finds them again', () => {
    const owner = testAccount(8).address;
    expect(first.reused).toBe(false);
    expect(first.testAgent).toMatchObject({ agentId: 1n, owner, agentWallet: owner });
    expect(first.testAgent.agentURI).toMatch(/^data:application\/json;base64,/);
    expect(second.reused).toBe(true);
    expect(second.registry).toBe(first.registry);
    expect(second.testAgent).toEqual(first.testAgent);
  });
});

describe('viemIdentityRegistry', () => {
  it('finds the test agent with its owner, agent wallet and decoded registration file', async () => {
    const lookup = await viemIdentityRegistry(fixedRpcUrls([anvil.rpcUrl]), first.registry).lookup(first.testAgent.agentId);
    expect(lookup.kind).toBe('found');
    if (lookup.kind !== 'found') return;
    const owner = testAccount(8).address;
    expect(lookup.agent).toMatchObject({ agentId: '1', owner, agentWallet: owner, tokenURI: first.testAgent.agentURI });
    expect(lookup.agent.registration).toMatchObject({
      type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1',
      name: 'Local test agent',
      registrations: [{ agentId: 1, agentRegistry: `eip155:8453:${first.registry}` }],
    });
  });

  it('says not_found for an id the registry has not minted', async () => {
    const registry = viemIdentityRegistry(fixedRpcUrls([anvil.rpcUrl]), first.registry);
    expect(await registry.lookup(999n)).toEqual({ kind: 'not_found' });
    expect(await registry.lookup(0n)).toEqual({ kind: 'not_found' });
  });

  it('is unavailable at an address without code or behind a dead RPC, and falls back to a live one', async () => {
    const noCode = await viemIdentityRegistry(fixedRpcUrls([anvil.rpcUrl]), '0x000000000000000000000000000000000000dEaD').lookup(1n);
    expect(noCode.kind).toBe('unavailable');
    const dead = await viemIdentityRegistry(fixedRpcUrls(['http://127.0.0.1:9']), first.registry).lookup(1n);
    expect(dead.kind).toBe('unavailable');
    const fallback = await viemIdentityRegistry(fixedRpcUrls(['http://127.0.0.1:9', anvil.rpcUrl]), first.registry).lookup(1n);
    expect(fallback.kind).toBe('found');
  });
});

describe('IdentityRegistry agent wallet', () => {
  it('changes only with an EIP-712 proof by the new wallet, and is cleared on transfer', async () => {
    const chain = localChain(anvil.rpcUrl);
    const pub = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    const owner = testAccount(7);
    const ownerWallet = createWalletClient({ account: owner, chain, transport: http(anvil.rpcUrl) });
    const registry = first.registry;
    const send = async (functionName: string, args: readonly unknown[]) => {
      const hash = await ownerWallet.writeContract({ address: registry, abi: IDENTITY_REGISTRY_ABI, functionName, args });
      return pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    };

    // register() with no URI: the agent wallet starts as the owner; the file is simply unreadable.
    const receipt = await send('register', []);
    const [registered] = parseEventLogs({ abi: IDENTITY_REGISTRY_ABI, eventName: 'Registered', logs: receipt.logs });
    const agentId = (registered?.args as { agentId?: bigint } | undefined)?.agentId ?? -1n;
    expect(agentId).toBe(2n);
    const adapter = viemIdentityRegistry(fixedRpcUrls([anvil.rpcUrl]), registry);
    expect(await adapter.lookup(agentId)).toMatchObject({
      kind: 'found',
      agent: { owner: owner.address, agentWallet: owner.address, tokenURI: '', registration: undefined },
    });

    const newWallet = privateKeyToAccount(generatePrivateKey());
    const block = await pub.getBlock();
    const deadline = block.timestamp + 60n;
    const signBy = (signer: typeof newWallet) =>
      signer.signTypedData({
        domain: { name: 'ERC8004IdentityRegistry', version: '1', chainId: 8453, verifyingContract: registry },
        types: {
          AgentWalletSet: [
            { name: 'agentId', type: 'uint256' },
            { name: 'newWallet', type: 'address' },
            { name: 'owner', type: 'address' },
            { name: 'deadline', type: 'uint256' },
          ],
        },
        primaryType: 'AgentWalletSet',
        message: { agentId, newWallet: newWallet.address, owner: owner.address, deadline },
      });

    // A proof signed by anyone but the new wallet is refused.
    const forged = await signBy(privateKeyToAccount(generatePrivateKey()));
    await expect(
      pub.simulateContract({
        account: owner,
        address: registry,
        abi: IDENTITY_REGISTRY_ABI,
        functionName: 'setAgentWallet',
        args: [agentId, newWallet.address, deadline, forged],
      }),
    ).rejects.toThrow(/InvalidWalletSignature/);

    await send('setAgentWallet', [agentId, newWallet.address, deadline, await signBy(newWallet)]);
    expect(await adapter.lookup(agentId)).toMatchObject({ kind: 'found', agent: { agentWallet: newWallet.address } });

    // A new owner must prove its own wallet: the registry returns zero, the adapter undefined.
    const to: Address = testAccount(6).address;
    await send('transferFrom', [owner.address, to, agentId]);
    const wallet = await pub.readContract({
      address: registry,
      abi: IDENTITY_REGISTRY_ABI,
      functionName: 'getAgentWallet',
      args: [agentId],
    });
    expect(wallet).toBe(zeroAddress);
    expect(await adapter.lookup(agentId)).toMatchObject({ kind: 'found', agent: { owner: to, agentWallet: undefined } });
  });
});
