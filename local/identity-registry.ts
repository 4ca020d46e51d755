/**
 * Puts the local stand-in of the ERC-8004 Identity Registry on anvil, with one test agent.
 * The registry is deployed by a dedicated key (test mnemonic index 10, outside the ten accounts
 * anvil funds) with its nonce 0, so its address is the same on every fresh chain whatever
 * account 0 has sent; with a persisted chain it is found there and reused.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  getAddress,
  getContractAddress,
  http,
  parseEventLogs,
  type Address,
} from 'viem';
import { CHAIN_ID } from '../lambdas/contract/chain';
import { contractArtifact, deployAtNonce, testAccount } from './anvil';
import { localChain } from './local-chain';

/** Test-mnemonic index of the registry's deployer: past anvil's `--accounts 10`, so nothing else ever sends from it. */
export const IDENTITY_REGISTRY_DEPLOYER_INDEX = 10;
/** The buyer account that owns the test agent (its agent wallet too). */
export const TEST_AGENT_OWNER_INDEX = 8;
export const TEST_AGENT_NAME = 'Local test agent';
/** The registry numbers agents from 1, and the test agent is the first one registered. */
const TEST_AGENT_ID = 1n;

const artifact = contractArtifact('identity-registry.artifact.json');
export const IDENTITY_REGISTRY_ABI = artifact.abi;
export const IDENTITY_REGISTRY_BYTECODE = artifact.bytecode;

/** The test agent as the registry records it. */
export interface TestAgent {
  agentId: bigint;
  owner: Address;
  agentWallet: Address;
  agentURI: string;
}

/** The registry and its test agent; `reused` when both were already on the (persisted) chain. */
export interface LocalIdentityRegistry {
  registry: Address;
  testAgent: TestAgent;
  reused: boolean;
}

/** The ERC-8004 registration file of the test agent: nothing in it points off this machine. */
export function testAgentRegistration(registry: Address, agentId: bigint, owner: Address): Record<string, unknown> {
  return {
    type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1',
    name: TEST_AGENT_NAME,
    description:
      'A test agent registered on the local anvil chain (id 8453) by npm start. Its owner and agent wallet is buyer account 8 of the public test mnemonic; never trust it anywhere else.',
    // Identifiers, not URLs: a DID and a CAIP-10 wallet resolve without any network request.
    services: [
      { name: 'DID', endpoint: `did:pkh:eip155:${CHAIN_ID}:${owner}`, version: 'v1' },
      { name: 'agentWallet', endpoint: `eip155:${CHAIN_ID}:${owner}` },
    ],
    x402Support: false,
    active: true,
    registrations: [{ agentId: Number(agentId), agentRegistry: `eip155:${CHAIN_ID}:${registry}` }],
  };
}

/** A registration file as a base64 `data:` URI, the ERC's form for a file stored wholly on chain. */
export function registrationDataUri(file: Record<string, unknown>): string {
  return `data:application/json;base64,${Buffer.from(JSON.stringify(file), 'utf8').toString('base64')}`;
}

/**
 * Ensures the Identity Registry is deployed and the test agent (owned by buyer account 8, agent
 * URI a data: registration file) is registered as agent 1. Idempotent over a persisted chain.
 */
export async function ensureIdentityRegistry(rpcUrl: string): Promise<LocalIdentityRegistry> {
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const deployer = testAccount(IDENTITY_REGISTRY_DEPLOYER_INDEX);
  const registry = getContractAddress({ from: deployer.address, nonce: 0n });

  let deployed = false;
  const code = await pub.getCode({ address: registry });
  if (!code || code === '0x') {
    await deployAtNonce(rpcUrl, { account: deployer, index: IDENTITY_REGISTRY_DEPLOYER_INDEX }, 0, {
      name: 'Identity Registry',
      abi: IDENTITY_REGISTRY_ABI,
      bytecode: IDENTITY_REGISTRY_BYTECODE,
    });
    deployed = true;
  }

  const read = async (functionName: 'ownerOf' | 'getAgentWallet' | 'tokenURI') =>
    pub.readContract({ address: registry, abi: IDENTITY_REGISTRY_ABI, functionName, args: [TEST_AGENT_ID] });
  let registered = false;
  if (!deployed) {
    try {
      await read('ownerOf');
    } catch (e) {
      // A registry left without its agent (a run stopped between the two steps): register it now.
      if (!(e instanceof BaseError && e.walk((err) => err instanceof ContractFunctionRevertedError))) throw e;
      await registerTestAgent(rpcUrl, registry);
      registered = true;
    }
  } else {
    await registerTestAgent(rpcUrl, registry);
    registered = true;
  }

  const [owner, agentWallet, agentURI] = await Promise.all([read('ownerOf'), read('getAgentWallet'), read('tokenURI')]);
  return {
    registry,
    testAgent: {
      agentId: TEST_AGENT_ID,
      owner: getAddress(owner as Address),
      agentWallet: getAddress(agentWallet as Address),
      agentURI: agentURI as string,
    },
    reused: !deployed && !registered,
  };
}

/**
 * Registers the test agent from buyer account 8. Ids are incremental from 1 and this runs only
 * when agent 1 does not exist, so the registration file can name id 1 before the transaction.
 */
async function registerTestAgent(rpcUrl: string, registry: Address): Promise<void> {
  const chain = localChain(rpcUrl);
  const owner = testAccount(TEST_AGENT_OWNER_INDEX);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ account: owner, chain, transport: http(rpcUrl) });
  const agentURI = registrationDataUri(testAgentRegistration(registry, TEST_AGENT_ID, owner.address));
  const hash = await wallet.writeContract({ address: registry, abi: IDENTITY_REGISTRY_ABI, functionName: 'register', args: [agentURI] });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const [event] = parseEventLogs({ abi: IDENTITY_REGISTRY_ABI, eventName: 'Registered', logs: receipt.logs });
  const agentId = (event?.args as { agentId?: bigint } | undefined)?.agentId;
  if (receipt.status !== 'success' || agentId !== TEST_AGENT_ID) {
    throw new Error(`registering the test agent failed (got agent id ${agentId ?? 'none'}, expected ${TEST_AGENT_ID})`);
  }
}
