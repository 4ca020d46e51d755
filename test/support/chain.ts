/** Test-side chain actions on anvil: transfers from the test accounts, look-alike tokens, mining, snapshots. */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  erc20Abi,
  getAddress,
  http,
  keccak256,
  pad,
  parseEther,
  parseEventLogs,
  toHex,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { deployTestStablecoin, TEST_STABLECOIN_ABI, testAccount } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { setEthUsdAnswer } from '../../local/price-feed';

/** EIP-3009's typed data, as x402's exact scheme and USDC define it. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** TestStablecoin's storage slot of `balanceOf` (name, symbol, version, totalSupply and minter come first). */
const TEST_STABLECOIN_BALANCE_SLOT = 5n;

export function chainTools(rpcUrl: string) {
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const test = createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) });
  const wallet = (index: number) => createWalletClient({ account: testAccount(index), chain, transport: http(rpcUrl) });
  /**
   * Sets `who`'s balance of a test stablecoin by writing the token's storage (`balanceOf` is
   * slot 5 of TestStablecoin): a fresh buyer without a mint, so no account's nonce is used.
   */
  const setTokenBalance = (token: Address, who: Address, amount: bigint) =>
    test.setStorageAt({
      address: token,
      index: keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [who, TEST_STABLECOIN_BALANCE_SLOT])),
      value: pad(toHex(amount), { size: 32 }),
    });
  const mined = async (hash: Hex) => {
    await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return hash;
  };
  return {
    pub,
    test,
    address: (index: number): Address => testAccount(index).address,
    /** An ERC-20 transfer from test account `from`. */
    transfer: async (from: number, token: Address, to: Address, amount: bigint) =>
      mined(await wallet(from).writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] })),
    /** A transfer that reverts on chain (more than the balance), mined with a fixed gas limit. */
    revertedTransfer: async (from: number, token: Address, to: Address) =>
      mined(
        await wallet(from).writeContract({
          address: token,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [to, 10n ** 30n],
          gas: 100_000n,
        }),
      ),
    sendEth: async (from: number, to: Address, eth: string) => mined(await wallet(from).sendTransaction({ to, value: parseEther(eth) })),
    /** A token named USD Coin / USDC at another address, minted to its deployer. */
    lookalike: async (deployer: number, amount: bigint) => {
      const address = await deployTestStablecoin(rpcUrl, 'USD Coin', 'USDC', deployer, '2');
      await mined(
        await wallet(deployer).writeContract({
          address,
          abi: TEST_STABLECOIN_ABI,
          functionName: 'mint',
          args: [testAccount(deployer).address, amount],
        }),
      );
      return address;
    },
    mine: (blocks = 1) => test.mine({ blocks }),
    /** Sets `who`'s ETH for gas (anvil_setBalance: no sender, so no account's nonce is shared with other tests). */
    setEthBalance: (who: Address, wei: bigint) => test.setBalance({ address: who, value: wei }),
    /** The one ERC-20 Transfer a transaction made: who paid whom, how much, in which token. */
    transferOf: async (hash: Hex) => {
      const receipt = await pub.getTransactionReceipt({ hash });
      const logs = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs });
      if (logs.length !== 1) throw new Error(`${hash} made ${logs.length} transfers`);
      const [log] = logs as [(typeof logs)[number]];
      return { from: log.args.from, to: log.args.to, value: log.args.value, token: getAddress(log.address) };
    },
    setTokenBalance,
    /**
     * Starts a new round of the local ETH / USD test feed (at Chainlink's Base address) with
     * `answer` at 8 decimals, from the feed's own owner account; its round id and block once mined.
     */
    setEthUsdAnswer: (answer: bigint) => setEthUsdAnswer(rpcUrl, answer),
    /**
     * A fresh random wallet holding `tokens` of `token` (and `eth` for gas, none by default: an x402
     * buyer needs none), funded by writing balances, so no test account's nonce or funds are used.
     * No block need be mined first: the local chain makes one every 2 s (local/anvil.ts).
     */
    freshWallet: async (token: Address, tokens: bigint, eth = 0n): Promise<PrivateKeyAccount> => {
      const account = privateKeyToAccount(generatePrivateKey());
      await setTokenBalance(token, account.address, tokens);
      if (eth > 0n) await test.setBalance({ address: account.address, value: eth });
      return account;
    },
  };
}
