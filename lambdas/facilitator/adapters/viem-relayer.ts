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
import type { PreparedCall, Relayer, RelayerCall, RelayerKeyChain, RelayerLeases, SignedPayment, Submission } from '../ports';
import { relayerPool, type LeaseEvent, type RelayerPool, type RelayerPoolOptions } from '../core/relayer-pool';
import { basePublicClient, baseTransport, viemChainOf } from '../../platform/adapters/viem-base-transport';
import { receiptView } from '../../platform/adapters/viem-receipt-view';
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
/** How long a call's gas and fees read ahead of its submission (`prepare`) are signed with: one Base block. */
const FILL_FRESH_MS = 2_000;
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
 * The relayer on viem: a pool of accounts that can sign a transaction (local keys, or KMS keys as
 * custom accounts), providers in order as the chain reader uses them. Which key signs and with
 * which nonce is the pool's (core/relayer-pool.ts): a key leased to this instance, its nonce
 * counted here while the lease holds, so no pending-nonce read per purchase and no race with
 * other instances. A taken nonce (the count was wrong) is read again and the transaction signed
 * again, as before the pool.
 */
export function viemRelayer(
  rpcUrls: RpcUrls,
  relayerAccounts: readonly (() => Promise<Account>)[],
  network: Network,
  pool: {
    leases: RelayerLeases;
    holder: string;
    minBalanceWei: bigint;
    onLease?: (event: LeaseEvent) => void;
    options?: Partial<RelayerPoolOptions>;
  },
  opts: {
    pollingIntervalMs?: number;
    /** The tip offered per gas, in wei; the node's suggestion without it (the fee cap is always the node's fill). */
    priorityFeeWei?: bigint | undefined;
    /**
     * The call that settles a payment: `transferWithAuthorization` on the token (x402's `exact`)
     * by default; the escrow's `authorize` for `auth-capture`, whose relayer is the operator alone
     * (through its guard when it has one, which may take a read to know).
     */
    callOf?: (token: string, payment: SignedPayment) => RelayerCall | Promise<RelayerCall>;
    /**
     * Gas added to every estimate of this relayer's transactions, for state the estimate cannot
     * see yet: the escrow's token store emptied by another payment's capture between an
     * authorize's estimate and its block costs that authorize 17,100 gas more. Unused gas is not paid.
     */
    gasHeadroom?: bigint | undefined;
  } = {},
): Relayer {
  const callOf = opts.callOf ?? ((token: string, payment: SignedPayment) => ({ to: token, data: transferWithAuthorizationData(payment) }));
  const chain = viemChainOf(network);
  const pub = basePublicClient(rpcUrls, network, opts.pollingIntervalMs ?? 500);
  // The reads just before a broadcast go in one batch: one round trip on the purchase's path.
  const reads = basePublicClient(rpcUrls, network, undefined, { batch: true });
  const wallet = createWalletClient({ chain, transport: baseTransport(rpcUrls) });
  const tip = opts.priorityFeeWei === undefined ? {} : { maxPriorityFeePerGas: opts.priorityFeeWei };
  const headroom = opts.gasHeadroom ?? 0n;
  const withHeadroom = <T extends { gas?: bigint | undefined }>(request: T): T =>
    headroom > 0n && request.gas !== undefined ? { ...request, gas: request.gas + headroom } : request;
  let loaded: Promise<{ accounts: Map<string, Account>; keys: RelayerPool }> | undefined;
  const load = () =>
    (loaded ??= (async () => {
      const list = await Promise.all(relayerAccounts.map((a) => a()));
      const accounts = new Map(list.map((a) => [a.address.toLowerCase(), a]));
      const keyChain: RelayerKeyChain = {
        async state(address) {
          const [nonce, balanceWei] = await Promise.all([
            reads.getTransactionCount({ address: getAddress(address), blockTag: 'pending' }),
            reads.getBalance({ address: getAddress(address) }),
          ]);
          return { nonce, balanceWei };
        },
        nonce: (address) => pub.getTransactionCount({ address: getAddress(address), blockTag: 'pending' }),
        balance: (address) => pub.getBalance({ address: getAddress(address) }),
      };
      const keys = relayerPool([...accounts.keys()], pool.leases, keyChain, {
        ...pool.options,
        holder: pool.holder,
        minBalanceWei: pool.minBalanceWei,
        ...(pool.onLease ? { onLease: pool.onLease } : {}),
      });
      return { accounts, keys };
    })().catch((e: unknown) => {
      loaded = undefined;
      throw e;
    }));
  /** A call's gas and fees as the node filled them ahead of its submission; `again` when they are read under the key instead. */
  type Fill =
    | { kind: 'filled'; request: Awaited<ReturnType<typeof fillAhead>>; at: number }
    | { kind: 'would_revert'; message: string }
    | { kind: 'again' };
  /**
   * The node fills gas, fees and type (eth_fillTransaction, or the separate reads where a provider
   * lacks it); not the nonce, which is the pool's. Any key of the pool may be named as the sender:
   * `transferWithAuthorization` checks the authorization's signature and never its caller, so its
   * gas is the same whoever sends it. The key this holder leases idle is named first (it had the
   * ETH when leased); a key short of ETH for the estimate makes it fail, and it is read again.
   */
  const fillAhead = async (account: Account, call: RelayerCall) =>
    withHeadroom(
      await wallet.prepareTransactionRequest({
        account,
        chain,
        to: getAddress(call.to),
        data: call.data as Hex,
        ...tip,
        parameters: ['chainId', 'fees', 'gas', 'type'],
      }),
    );
  const prepared = new WeakMap<PreparedCall, Promise<Fill>>();
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
  /**
   * Signs `call` with a key of the pool under its lease, hands it to `record` (which stores it) and
   * sends it only if `record` answers true; a taken nonce is signed again as a replacement.
   */
  const submitCall = async (
    call: RelayerCall,
    record: (tx: { txHash: string; raw: string; from: string }, replaces?: string) => Promise<boolean>,
    early: Fill | undefined,
  ): Promise<Submission> => {
    const { accounts, keys } = await load();
    return keys.withKey(async (key) => {
      const account = accounts.get(key.address)!;
      if (!account.signTransaction) throw new Error('the relayer account cannot sign transactions');
      let replaces: string | undefined;
      for (let attempt = 1; attempt <= NONCE_ATTEMPTS; attempt++) {
        let request;
        // Fees move block by block: a fill older than FILL_FRESH_MS (a long wait for a key) is read again.
        if (attempt === 1 && early?.kind === 'filled' && Date.now() - early.at <= FILL_FRESH_MS) {
          // Filled ahead, perhaps naming another key of the pool: this key signs it, with its nonce.
          request = { ...early.request, account, from: account.address, nonce: await key.nonce() };
        } else {
          try {
            request = withHeadroom(
              await wallet.prepareTransactionRequest({
                account,
                chain,
                to: getAddress(call.to),
                data: call.data as Hex,
                ...tip,
                nonce: await key.nonce(),
              }),
            );
          } catch (e) {
            const message = reverts(e);
            if (message !== undefined) return { kind: 'would_revert' as const, message };
            throw e;
          }
        }
        // Only while the lease is still ours: another instance may hold the key after it runs out.
        key.check();
        const raw = await account.signTransaction(request as never);
        const tx = { txHash: keccak256(raw), raw, from: account.address };
        if (!(await record(tx, replaces))) return { kind: 'declined' as const };
        let sent: 'sent' | 'nonce_taken';
        try {
          sent = await send(raw);
        } catch (e) {
          // Whether the node took it is unknown: the nonce is read again next time (the stored transaction is rebroadcast by a retry).
          key.gap();
          throw e;
        }
        if (sent === 'sent') {
          key.sent();
          return { kind: 'sent' as const, txHash: tx.txHash, raw };
        }
        // The count was wrong (a transaction of this key not counted here): read the nonce again.
        key.gap();
        replaces = tx.txHash;
      }
      throw new Error(`the relayer's nonce was taken ${NONCE_ATTEMPTS} times in a row`);
    });
  };
  return {
    isRelayer: async (address) => (await load()).accounts.has(address.toLowerCase()),
    prepare(token, payment) {
      const { from, nonce } = payment.payload.authorization;
      const call: PreparedCall = { from, nonce };
      const fill = (async (): Promise<Fill> => {
        try {
          const { accounts, keys } = await load();
          const account = accounts.get(keys.idle() ?? [...accounts.keys()][0]!)!;
          return { kind: 'filled', request: await fillAhead(account, await callOf(token, payment)), at: Date.now() };
        } catch (e) {
          // Anything but a revert (a provider's failure, a key short of ETH) is read again under the key, as without `prepare`.
          const message = reverts(e);
          return message !== undefined ? { kind: 'would_revert', message } : { kind: 'again' };
        }
      })();
      prepared.set(call, fill);
      return call;
    },
    async submit(token, payment, record, ahead) {
      // What `prepare` read is awaited before a key is taken: a key is held only to sign, store and send.
      const a = payment.payload.authorization;
      const early = ahead && ahead.from === a.from && ahead.nonce === a.nonce ? await prepared.get(ahead) : undefined;
      // The gas estimate says the call reverts: nothing is signed, stored or sent for it.
      if (early?.kind === 'would_revert') return { kind: 'would_revert' as const, message: early.message };
      return submitCall(await callOf(token, payment), record, early);
    },
    send: (call, record) => submitCall(call, record, undefined),
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
    async balances() {
      const { accounts } = await load();
      return Promise.all(
        [...accounts.values()].map(async ({ address }) => {
          try {
            return { address, balanceWei: await pub.getBalance({ address }) };
          } catch (e) {
            return { address, error: (e as Error).message };
          }
        }),
      );
    },
  };
}
