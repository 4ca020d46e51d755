/**
 * Puts x402 `auth-capture`'s escrow on anvil (issue 53): base/commerce-payments' v1.0
 * AuthCaptureEscrow, its ERC-3009 token collector and its operator refund collector
 * (local/contracts/commerce-payments/, compiled by local/contracts/compile.ts), at the addresses
 * of the published v1.0 deployment (the same on Base and Base Sepolia). Not at addresses of our
 * own: the stock x402 client
 * (`AuthCaptureEvmScheme`, @x402/evm/auth-capture/client) refuses any escrow its table of published
 * deployments does not hold (`resolveAuthCaptureDeployment`), signs the buyer's ERC-3009
 * ReceiveWithAuthorization to that deployment's collector, and hashes the PaymentInfo with that
 * deployment's escrow address, so a local escrow anywhere else could not take a single payment.
 *
 * The contracts are placed with anvil_setCode, as the test tokens are, but their immutables are
 * kept right without patching a byte, since each copied code is one made for the address it lands on:
 * - the escrow is deployed at a temporary address T (a dedicated key, test mnemonic index 31,
 *   nonce 0); its constructor makes the TokenStore implementation S, whose immutable names T;
 * - a TokenStore naming the canonical escrow E is deployed at nonce 1, the collector naming E
 *   and Multicall3 at nonce 2, and the operator refund collector naming E at nonce 3;
 * - T's code is copied to E (its one immutable, the implementation S, stays right), the second
 *   TokenStore's code to S (the implementation E's clones run then names E), the collector's
 *   code to the canonical collector C, and the refund collector's to the canonical refund collector R
 *   (the one an operator's `refund` names: it takes the amount from the operator's own balance).
 * None of them has storage set by its constructor (the escrow's reentrancy guard is transient), so
 * code is all there is to copy. With a persisted chain everything is found and reused; one kept
 * from before the refund collector was placed gets that one alone, at the deployer's next nonce.
 */
import { AUTH_CAPTURE_ESCROW_V1_0_ADDRESS, EIP3009_TOKEN_COLLECTOR_V1_0_ADDRESS, resolveAuthCaptureDeployment } from '@x402/evm';
import {
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  getContractAddress,
  http,
  defineChain,
  isAddressEqual,
  zeroHash,
  type Address,
  type Hex,
  type Account,
} from 'viem';
import { base } from 'viem/chains';
import { delegationCode, ESCROW_OPERATOR_GUARD } from '../lambdas/contract/auth-capture';
import { MULTICALL3 } from '../lambdas/contract/chain';
import { contractArtifact, deployAtNonce, RELAYER_LOCAL_BALANCE, testAccount } from './anvil';
import { localChain } from './local-chain';

/** Test-mnemonic index of the escrow's deployer: outside anvil's funded ten and every other role's index. */
export const ESCROW_DEPLOYER_INDEX = 31;

const escrowArtifact = contractArtifact('auth-capture-escrow.artifact.json');
const tokenStoreArtifact = contractArtifact('token-store.artifact.json');
const collectorArtifact = contractArtifact('erc3009-payment-collector.artifact.json');
const refundCollectorArtifact = contractArtifact('operator-refund-collector.artifact.json');
export const AUTH_CAPTURE_ESCROW_ABI = escrowArtifact.abi;
export const TOKEN_STORE_ABI = tokenStoreArtifact.abi;
export const ERC3009_PAYMENT_COLLECTOR_ABI = collectorArtifact.abi;
export const OPERATOR_REFUND_COLLECTOR_ABI = refundCollectorArtifact.abi;

const deployer = testAccount(ESCROW_DEPLOYER_INDEX);
/** Where the escrow is on every local chain: the published v1.0 escrow's address. */
export const LOCAL_AUTH_CAPTURE_ESCROW: Address = AUTH_CAPTURE_ESCROW_V1_0_ADDRESS;
/** Where the ERC-3009 token collector is on every local chain: the published v1.0 collector's address. */
export const LOCAL_ERC3009_PAYMENT_COLLECTOR: Address = EIP3009_TOKEN_COLLECTOR_V1_0_ADDRESS;
/** Where the operator refund collector is on every local chain: the published v1.0 one's address (the stock client's table names it). */
export const LOCAL_OPERATOR_REFUND_COLLECTOR: Address =
  resolveAuthCaptureDeployment(AUTH_CAPTURE_ESCROW_V1_0_ADDRESS)!.operatorRefundCollector;

export interface LocalEscrow {
  escrow: Address;
  collector: Address;
  refundCollector: Address;
  /** All were already on the (persisted) chain. */
  reused: boolean;
}

/** Ensures the escrow and its two collectors work at the published v1.0 addresses. Idempotent over a persisted chain. */
export async function ensureAuthCaptureEscrow(rpcUrl: string): Promise<LocalEscrow> {
  // The stock client's own table must pair this escrow with this collector, or nothing it signs lands here.
  const published = resolveAuthCaptureDeployment(LOCAL_AUTH_CAPTURE_ESCROW);
  if (!published || !isAddressEqual(published.eip3009Collector, LOCAL_ERC3009_PAYMENT_COLLECTOR)) {
    throw new Error(
      `@x402/evm no longer pairs the escrow ${LOCAL_AUTH_CAPTURE_ESCROW} with the collector ${LOCAL_ERC3009_PAYMENT_COLLECTOR}`,
    );
  }
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const hasCode = async (address: Address): Promise<boolean> => {
    const code = await pub.getCode({ address });
    return code !== undefined && code !== '0x';
  };
  const implementationOf = (escrow: Address) =>
    pub.readContract({ address: escrow, abi: AUTH_CAPTURE_ESCROW_ABI, functionName: 'tokenStoreImplementation' }) as Promise<Address>;
  const result = {
    escrow: LOCAL_AUTH_CAPTURE_ESCROW,
    collector: LOCAL_ERC3009_PAYMENT_COLLECTOR,
    refundCollector: LOCAL_OPERATOR_REFUND_COLLECTOR,
  };
  const escrowInPlace =
    (await hasCode(LOCAL_AUTH_CAPTURE_ESCROW)) &&
    (await hasCode(LOCAL_ERC3009_PAYMENT_COLLECTOR)) &&
    (await hasCode(await implementationOf(LOCAL_AUTH_CAPTURE_ESCROW)));
  if (escrowInPlace && (await hasCode(LOCAL_OPERATOR_REFUND_COLLECTOR))) return { ...result, reused: true };

  const contracts = [
    { name: 'AuthCaptureEscrow', ...escrowArtifact },
    { name: 'TokenStore', ...tokenStoreArtifact, args: [LOCAL_AUTH_CAPTURE_ESCROW] },
    { name: 'ERC3009PaymentCollector', ...collectorArtifact, args: [LOCAL_AUTH_CAPTURE_ESCROW, MULTICALL3] },
    { name: 'OperatorRefundCollector', ...refundCollectorArtifact, args: [LOCAL_AUTH_CAPTURE_ESCROW] },
  ];
  const deploy = (nonce: number) => deployAtNonce(rpcUrl, { account: deployer, index: ESCROW_DEPLOYER_INDEX }, nonce, contracts[nonce]!);
  const test = createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) });
  const copy = async (from: Address, to: Address): Promise<void> => {
    const code = await pub.getCode({ address: from });
    if (!code || code === '0x') throw new Error(`nothing deployed at ${from}`);
    await test.setCode({ address: to, bytecode: code });
  };
  if (escrowInPlace) {
    // A chain kept from before the refund collector was placed (its deployer sent three): that one alone, at the next nonce.
    await copy(await deploy(3), LOCAL_OPERATOR_REFUND_COLLECTOR);
    return { ...result, reused: false };
  }

  // Made where the deployer's nonces put them, each with the constructor arguments its final address needs.
  const made: Address[] = [];
  for (const nonce of contracts.keys()) made.push(await deploy(nonce));
  const [escrow, tokenStore, collector, refundCollector] = made as [Address, Address, Address, Address];

  await copy(escrow, LOCAL_AUTH_CAPTURE_ESCROW);
  // The implementation the escrow's immutable names (made by its constructor, naming the temporary address).
  await copy(tokenStore, await implementationOf(escrow));
  await copy(collector, LOCAL_ERC3009_PAYMENT_COLLECTOR);
  await copy(refundCollector, LOCAL_OPERATOR_REFUND_COLLECTOR);
  return { ...result, reused: false };
}

/** Test-mnemonic index of the local escrow operator (`captureAuthorizer`): a key of its own, outside the relayer pool. */
export const ESCROW_OPERATOR_INDEX = 32;

/**
 * The local escrow operator: a test account topped up with ETH for the gas of its authorize,
 * capture, void and refund calls, as a relayer key is, and delegating to the operator guard. Its
 * key goes to the handlers as ESCROW_OPERATOR_PRIVATE_KEY (in AWS it is a KMS key).
 */
export async function ensureEscrowOperator(rpcUrl: string): Promise<{ address: Address; privateKey: `0x${string}` }> {
  const chain = localChain(rpcUrl);
  const account = testAccount(ESCROW_OPERATOR_INDEX);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  if ((await pub.getBalance({ address: account.address })) < RELAYER_LOCAL_BALANCE / 10n)
    await createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) }).setBalance({
      address: account.address,
      value: RELAYER_LOCAL_BALANCE,
    });
  await guardEscrowOperator(rpcUrl, account);
  return { address: account.address, privateKey: account.privateKey };
}

/** The CREATE2 deployer anvil and every OP Stack chain carry (Arachnid's deterministic deployment proxy): salt, then init code. */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
const guardArtifact = contractArtifact('escrow-operator-guard.artifact.json');
export const ESCROW_OPERATOR_GUARD_ABI = guardArtifact.abi;
/** Where the CREATE2 deployer puts the operator guard's committed bytecode with a zero salt: ESCROW_OPERATOR_GUARD, on every chain. */
export const LOCAL_ESCROW_OPERATOR_GUARD: Address = getContractAddress({
  opcode: 'CREATE2',
  from: CREATE2_DEPLOYER,
  salt: zeroHash,
  bytecode: guardArtifact.bytecode,
});

/** What making an operator delegate to its guard did: the transactions it sent, in order (none when it was already done). */
export interface GuardedOperator {
  operator: Address;
  guard: Address;
  chainId: number;
  /** The CREATE2 deployer's placing of the guard, when the chain did not have it. */
  placedGuard?: Hex | undefined;
  /** The operator's own type-4 transaction that delegates its account, when it did not delegate yet. */
  delegated?: Hex | undefined;
}

/**
 * Makes `operator`'s account delegate to EscrowOperatorGuard (EIP-7702), so the service offers
 * auth-capture and sends its authorize through the guard (docs/SECURITY.md, I2): the guard placed
 * first if missing (through the CREATE2 deployer, sent by the operator), then one type-4
 * transaction of the operator's own. Any account that signs EIP-7702 authorizations: the local
 * test key (`npm start`), or the deployment's KMS key (`npm run guard-operator`). The chain is the
 * RPC's own (Base, Base Sepolia or the local anvil). Idempotent: a delegated operator sends nothing.
 */
export async function guardEscrowOperator(rpcUrl: string, operator: Account): Promise<GuardedOperator> {
  if (operator.type !== 'local' || !operator.signAuthorization)
    throw new Error(`the operator ${operator.address} cannot sign an EIP-7702 authorization here`);
  if (!isAddressEqual(LOCAL_ESCROW_OPERATOR_GUARD, ESCROW_OPERATOR_GUARD))
    throw new Error(
      `the operator guard's bytecode puts it at ${LOCAL_ESCROW_OPERATOR_GUARD}, not ESCROW_OPERATOR_GUARD ${ESCROW_OPERATOR_GUARD}`,
    );
  const chainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
  const chain = defineChain({ ...base, id: chainId, rpcUrls: { default: { http: [rpcUrl] } } });
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ account: operator, chain, transport: http(rpcUrl) });
  const done: GuardedOperator = { operator: operator.address, guard: getAddress(LOCAL_ESCROW_OPERATOR_GUARD), chainId };
  const mined = async (hash: Hex, what: string) => {
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 250 });
    if (receipt.status !== 'success') throw new Error(`${what} failed (transaction ${hash})`);
    return hash;
  };
  const code = async (address: Address) => ((await pub.getCode({ address })) ?? '0x').toLowerCase();
  if ((await code(LOCAL_ESCROW_OPERATOR_GUARD)) === '0x') {
    if ((await code(CREATE2_DEPLOYER)) === '0x') throw new Error(`chain ${chainId} has no CREATE2 deployer at ${CREATE2_DEPLOYER}`);
    done.placedGuard = await mined(
      await wallet.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([zeroHash, guardArtifact.bytecode]) }),
      'placing the operator guard',
    );
    if ((await code(LOCAL_ESCROW_OPERATOR_GUARD)) === '0x') throw new Error('the CREATE2 deployer did not place the operator guard');
  }
  if ((await code(operator.address)) === delegationCode(LOCAL_ESCROW_OPERATOR_GUARD)) return done;
  const authorization = await wallet.signAuthorization({
    account: operator,
    contractAddress: getAddress(LOCAL_ESCROW_OPERATOR_GUARD),
    executor: 'self',
  });
  done.delegated = await mined(
    await wallet.sendTransaction({ authorizationList: [authorization], to: operator.address, data: '0x' }),
    'delegating the escrow operator',
  );
  if ((await code(operator.address)) !== delegationCode(LOCAL_ESCROW_OPERATOR_GUARD))
    throw new Error('the escrow operator does not delegate to its guard');
  return done;
}
