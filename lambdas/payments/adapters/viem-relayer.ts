import {
  BaseError,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  ExecutionRevertedError,
  getAddress,
  keccak256,
  NonceTooLowError,
  parseAbi,
  parseAbiItem,
  parseErc6492Signature,
  parseSignature,
  WaitForTransactionReceiptTimeoutError,
  type Account,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Relayer, SignedPayment } from '../ports';
import { basePublicClient, baseTransport, viemChainOf } from './viem-base-transport';
import { receiptView } from './viem-receipt-view';
import type { Network } from '../../contract/networks';
import type { RpcUrls } from '../../platform/rpc-urls';

/** EIP-3009 as USDC implements it: the v/r/s form for an EOA's 65-byte signature, the bytes form otherwise (ERC-1271). */
export const EIP3009_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

/** EIP-3009's record of a used authorization, whoever sent the call that used it. */
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
/**
 * How far back a used authorization is looked for: about 33 minutes of Base blocks, well past
 * an x402 authorization's life (`maxTimeoutSeconds`: 60) and inside what providers serve in one
 * `eth_getLogs` (the token and both topics narrow it to one log).
 */
const AUTHORIZATION_SEARCH_BLOCKS = 1_000n;

/** A relayer account from a private key: the local run's anvil test account (in AWS the key is in KMS). */
export const privateKeyRelayerAccount = (key: string): (() => Promise<Account>) => {
  const account = privateKeyToAccount(key as Hex);
  return async () => account;
};

/** Whether a node refused a transaction only because it already has it. */
const alreadyKnown = (e: unknown): boolean => /already known|already imported|known transaction/i.test(String((e as Error)?.message ?? e));
/** Whether a node refused a transaction because another one of the same sender has its nonce. */
const nonceTaken = (e: unknown): boolean =>
  (e instanceof BaseError && e.walk((err) => err instanceof NonceTooLowError) !== null) ||
  /nonce too low|nonce.*(already|lower than)|replacement transaction underpriced|already used/i.test(String((e as Error)?.message ?? e));
/** Signing again after a taken nonce: at most this many times, then the request fails (503) and a retry resumes it. */
const NONCE_ATTEMPTS = 3;
/** Whether the node refused to estimate the call because it reverts (the authorization cannot run now), not because it failed. */
const reverts = (e: unknown): string | undefined =>
  e instanceof BaseError && e.walk((err) => err instanceof ExecutionRevertedError) !== null ? e.shortMessage : undefined;

/** The calldata of `transferWithAuthorization` for a signed payment, as x402's facilitator builds it. */
export function transferWithAuthorizationData(payment: SignedPayment): Hex {
  const a = payment.payload.authorization;
  const head = [
    getAddress(a.from),
    getAddress(a.to),
    BigInt(a.value),
    BigInt(a.validAfter),
    BigInt(a.validBefore),
    a.nonce as Hex,
  ] as const;
  // An ERC-6492 wrapper is for a wallet not deployed yet; the token checks the inner signature.
  const { signature } = parseErc6492Signature(payment.payload.signature as Hex);
  if (signature.length === 132) {
    const { r, s, v, yParity } = parseSignature(signature);
    return encodeFunctionData({
      abi: EIP3009_ABI,
      functionName: 'transferWithAuthorization',
      args: [...head, Number(v ?? BigInt(yParity + 27)), r, s],
    });
  }
  return encodeFunctionData({ abi: EIP3009_ABI, functionName: 'transferWithAuthorization', args: [...head, signature] });
}

/**
 * The relayer on viem: any account that can sign a transaction (a local key, or a KMS key as a
 * custom account), providers in order as the chain reader uses them. Within a process,
 * submissions run one at a time so each takes the next nonce the node reports as pending.
 */
export function viemRelayer(
  rpcUrls: RpcUrls,
  relayerAccount: () => Promise<Account>,
  network: Network,
  opts: { pollingIntervalMs?: number } = {},
): Relayer {
  const chain = viemChainOf(network);
  const pub = basePublicClient(rpcUrls, network, opts.pollingIntervalMs ?? 500);
  // The reads just before a broadcast go in one batch: one round trip on the purchase's path.
  const reads = basePublicClient(rpcUrls, network, undefined, { batch: true });
  const wallet = createWalletClient({ chain, transport: baseTransport(rpcUrls) });
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };
  const send = async (raw: string): Promise<'sent' | 'nonce_taken'> => {
    try {
      await pub.sendRawTransaction({ serializedTransaction: raw as Hex });
      return 'sent';
    } catch (e) {
      if (alreadyKnown(e)) return 'sent';
      if (nonceTaken(e)) return 'nonce_taken';
      throw e;
    }
  };
  return {
    address: async () => (await relayerAccount()).address,
    submit: (token, payment, record) =>
      serially(async () => {
        const account = await relayerAccount();
        if (!account.signTransaction) throw new Error('the relayer account cannot sign transactions');
        let replaces: string | undefined;
        for (let attempt = 1; attempt <= NONCE_ATTEMPTS; attempt++) {
          let request;
          try {
            request = await wallet.prepareTransactionRequest({
              account,
              chain,
              to: getAddress(token),
              data: transferWithAuthorizationData(payment),
              nonce: await pub.getTransactionCount({ address: account.address, blockTag: 'pending' }),
            });
          } catch (e) {
            // The gas estimate says the call reverts: nothing is signed, stored or sent for it.
            const message = reverts(e);
            if (message !== undefined) return { kind: 'would_revert' as const, message };
            throw e;
          }
          const raw = await account.signTransaction(request as never);
          const tx = { txHash: keccak256(raw), raw };
          if (!(await record(tx, replaces))) return { kind: 'declined' as const };
          if ((await send(raw)) === 'sent') return { kind: 'sent' as const, ...tx };
          replaces = tx.txHash;
        }
        throw new Error(`the relayer's nonce was taken ${NONCE_ATTEMPTS} times in a row`);
      }),
    rebroadcast: send,
    async receipt(txHash, timeoutMs) {
      try {
        const r = await pub.waitForTransactionReceipt({ hash: txHash as Hex, timeout: timeoutMs });
        return { ...receiptView(r), gasUsed: r.gasUsed, effectiveGasPrice: r.effectiveGasPrice };
      } catch (e) {
        if (e instanceof WaitForTransactionReceiptTimeoutError) return undefined;
        throw e;
      }
    },
    async authorizationUsed(token, authorizer, nonce) {
      return pub.readContract({
        address: getAddress(token),
        abi: EIP3009_ABI,
        functionName: 'authorizationState',
        args: [getAddress(authorizer), nonce as Hex],
      });
    },
    async fundsAhead(token, payer, nonce) {
      const address = getAddress(token);
      const owner = getAddress(payer);
      // The head and the pending block: a transfer of the payer's already waiting in the node's pool shows in the second.
      const [balance, pendingBalance, authorizationUsed] = await Promise.all([
        reads.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
        reads.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [owner], blockTag: 'pending' }),
        reads.readContract({
          address,
          abi: EIP3009_ABI,
          functionName: 'authorizationState',
          args: [owner, nonce as Hex],
          blockTag: 'pending',
        }),
      ]);
      return { balance, pendingBalance, authorizationUsed };
    },
    async authorizationTransfer(token, authorizer, nonce, toBlock) {
      const to = toBlock ?? (await pub.getBlockNumber({ cacheTime: 0 }));
      const logs = await pub.getLogs({
        address: getAddress(token),
        event: AUTHORIZATION_USED,
        args: { authorizer: getAddress(authorizer), nonce: nonce as Hex },
        fromBlock: to > AUTHORIZATION_SEARCH_BLOCKS ? to - AUTHORIZATION_SEARCH_BLOCKS : 0n,
        toBlock: to,
      });
      return logs[0]?.transactionHash ?? undefined;
    },
    balance: async () => pub.getBalance({ address: (await relayerAccount()).address }),
  };
}
