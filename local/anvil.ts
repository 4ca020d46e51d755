/**
 * Starts anvil (chain id 8453) and puts the test USDC and USDbC contracts on it, at Base's own
 * token addresses (and Multicall3's entry points at its address); with a persisted state they
 * are found, not placed again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  getContractAddress,
  http,
  parseEther,
  parseUnits,
  toHex,
  type Abi,
  type Address,
  type Hex,
} from 'viem';
import { pbkdf2Sync } from 'node:crypto';
import { HDKey, hdKeyToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ASSET_EIP712, BASE_MAINNET_USDBC, BASE_MAINNET_USDC, CHAIN_ID, MULTICALL3 } from '../lambdas/contract/chain';
import { localChain } from './local-chain';
import { MAX_RELAYER_KEYS } from '../lambdas/contract/settings';

/** The standard test mnemonic every Ethereum dev tool uses; its keys are public, never use them on a real chain. */
export const TEST_MNEMONIC = 'test test test test test test test test test test test junk';
/** Default banned legacy treasury locally: a fixed address no test key controls. */
export const LOCAL_LEGACY_TREASURY: Address = '0xBaD000000000000000000000000000000000DeAD';
/** Whole tokens of each asset minted to every buyer account (1 to 8). */
export const BUYER_TOKEN_BALANCE = 1_000n;
export const BUYER_ACCOUNT_INDEXES = [1, 2, 3, 4, 5, 6, 7, 8] as const;
export const TREASURY_ACCOUNT_INDEX = 9;
/** The local relayer that submits x402 authorizations (account 11; anvil funds only 0-9, so it is funded here). */
export const RELAYER_ACCOUNT_INDEX = 11;
/** The local relayer pool's other keys: accounts 200, 201, ... (the first key is account 11, as before the pool). */
export const RELAYER_POOL_ACCOUNT_INDEX = 200;
/** The test account of the local relayer pool's key `i` (0-based). */
export const relayerAccountIndex = (i: number): number => (i === 0 ? RELAYER_ACCOUNT_INDEX : RELAYER_POOL_ACCOUNT_INDEX + i - 1);
/** ETH the local relayer is topped up to when it holds less. */
export const RELAYER_LOCAL_BALANCE = parseEther('10');

const here = dirname(fileURLToPath(import.meta.url));

/** This project's cache of things made once per machine (keys, the chain's set-up), and of each start's build; gone with node_modules. */
export const LOCAL_CACHE_DIR = join(here, '..', 'node_modules', '.cache', 'skill-market');

/** A test account: signs in JavaScript like any local account, and gives its (public, test-only) private key. */
export type TestAccount = PrivateKeyAccount & { privateKey: Hex };

/** Where the derived test keys are kept: path of every index, then address and key. */
export const KEY_CACHE = join(LOCAL_CACHE_DIR, 'test-accounts.json');
type KeyCache = Record<string, { address: Address; privateKey: Hex }>;
const pathOf = (index: number): string => `${TEST_MNEMONIC}/m/44'/60'/0'/0/${index}`;

/**
 * The test accounts of the mnemonic (BIP-44 path m/44'/60'/0'/0/index, as anvil and viem's
 * mnemonicToAccount derive them), one object per index. Deriving a key is elliptic-curve
 * arithmetic in JavaScript: the BIP-39 seed (node's native PBKDF2, once) and five child keys,
 * about 110 ms for the first account and 6 ms for each next, on every start. So each key is
 * derived once per machine and kept in `cacheFile` (they are the public test mnemonic's, secret
 * to no one). An account's signer (its public key: one more multiplication) is made on its first
 * signature and checked against the kept address, so that a start that only names accounts (an
 * existing chain, the treasury's payTo) does no curve arithmetic at all.
 */
export function testAccounts(cacheFile: string): (index: number) => TestAccount {
  let cache: KeyCache | undefined;
  let master: HDKey | undefined;
  const accounts = new Map<number, TestAccount>();

  const keyOf = (index: number): { address: Address; privateKey: Hex } => {
    if (!cache) {
      try {
        cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as KeyCache;
      } catch {
        cache = {};
      }
    }
    const kept = cache[pathOf(index)];
    if (kept) return kept;
    master ??= HDKey.fromMasterSeed(pbkdf2Sync(TEST_MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512'));
    const derived = hdKeyToAccount(master, { addressIndex: index });
    const key = { address: derived.address, privateKey: toHex(derived.getHdKey().privateKey!) };
    cache[pathOf(index)] = key;
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      // Replaced whole, so that a concurrent start (the test workers) never reads half a file.
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(cache));
      renameSync(tmp, cacheFile);
    } catch {
      // Only a cache: the next process derives the key again.
    }
    return key;
  };

  return (index) => {
    let account = accounts.get(index);
    if (account) return account;
    const { address, privateKey } = keyOf(index);
    let made: PrivateKeyAccount | undefined;
    const signer = (): PrivateKeyAccount => {
      if (made) return made;
      const candidate = privateKeyToAccount(privateKey);
      if (candidate.address !== address) throw new Error(`${cacheFile} is damaged (account ${index}): delete it`);
      return (made = candidate);
    };
    account = {
      address,
      privateKey,
      source: 'privateKey',
      type: 'local',
      get publicKey() {
        return signer().publicKey;
      },
      // async: a damaged key is a rejected signature, as any signing failure is.
      sign: async (args) => signer().sign(args),
      signAuthorization: async (args) => signer().signAuthorization(args),
      signMessage: async (args) => signer().signMessage(args),
      signTransaction: (async (tx, options) => signer().signTransaction(tx, options)) as PrivateKeyAccount['signTransaction'],
      signTypedData: (async (typedData) => signer().signTypedData(typedData)) as PrivateKeyAccount['signTypedData'],
    };
    accounts.set(index, account);
    return account;
  };
}

/** Test account `index` of the mnemonic, its key kept in {@link KEY_CACHE}. */
export const testAccount: (index: number) => TestAccount = testAccounts(KEY_CACHE);

/** A committed contract artifact (local/contracts/<file>, written by compile.ts): what is deployed needs no compiler. */
export function contractArtifact(file: string): { abi: Abi; bytecode: Hex } {
  return JSON.parse(readFileSync(join(here, 'contracts', file), 'utf8')) as { abi: Abi; bytecode: Hex };
}

/**
 * Deploys a contract from a dedicated key at a given nonce, so it sits at the same address on every
 * fresh chain (the Identity Registry; the auth-capture escrow's contracts, before their code is
 * copied to the published addresses): answers that address. A key that has
 * already sent past that nonce while the contract is missing means a chain kept from an older set-up.
 * anvil funds only accounts 0-9: the key's balance is set, not sent from account 0, so account 0's
 * nonces (the tokens' set-up, which may run beside this) are left alone.
 */
export async function deployAtNonce(
  rpcUrl: string,
  deployer: { account: PrivateKeyAccount; index: number },
  nonce: number,
  contract: { name: string; abi: Abi; bytecode: Hex; args?: readonly unknown[] },
): Promise<Address> {
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const address = getContractAddress({ from: deployer.account.address, nonce: BigInt(nonce) });
  const sent = await pub.getTransactionCount({ address: deployer.account.address });
  if (sent !== nonce) {
    throw new Error(
      `the ${contract.name} deployer (test account ${deployer.index}) has sent ${sent} transactions but the ${contract.name} is missing; delete .data/ (or use EPHEMERAL=1) to start a fresh chain`,
    );
  }
  const testClient = createTestClient({ mode: 'anvil', chain, transport: http(rpcUrl) });
  await testClient.setBalance({ address: deployer.account.address, value: parseEther('1') });
  const wallet = createWalletClient({ account: deployer.account, chain, transport: http(rpcUrl) });
  const hash = await wallet.deployContract({ abi: contract.abi, bytecode: contract.bytecode, args: contract.args ?? [], nonce });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success' || !receipt.contractAddress || getAddress(receipt.contractAddress) !== address) {
    throw new Error(`deploying the ${contract.name} failed`);
  }
  return address;
}

const artifact = contractArtifact('test-stablecoin.artifact.json');
export const TEST_STABLECOIN_ABI = artifact.abi;
export const TEST_STABLECOIN_BYTECODE = artifact.bytecode;
const { abi: MULTICALL_ABI, bytecode: MULTICALL_BYTECODE } = contractArtifact('multicall.artifact.json');

/** The package.json of the platform package @foundry-rs/anvil installs (its binary sits beside it, without its node wrapper). */
function anvilPackageJson(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const require = createRequire(import.meta.url);
  try {
    return require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
  } catch {
    throw new Error(`No anvil binary for ${process.platform}-${arch}: run npm ci (it installs @foundry-rs/anvil).`);
  }
}

/** Base makes a block every 2 seconds; a local chain that keeps nothing does too (interval mining). */
export const BASE_BLOCK_SECONDS = 2;
/**
 * A chain kept in a state file (`npm start`'s `.data/`) makes an empty block a minute instead:
 * anvil's state file holds every block (about 1.7 KB an empty one, measured), so Base's pace
 * would add some 70 MB a day, rewritten every 5 s; a minute adds 2.5 MB. The head's clock is then
 * at most a minute behind, well inside what a signed authorization allows (x402 v1 clients sign
 * `validAfter = now - 600`).
 */
export const KEPT_CHAIN_BLOCK_SECONDS = 60;

/**
 * Gas priced like Base's, not anvil's (issue 51). Base's base fee is about 0.001–0.01 gwei and its
 * nodes suggest a tip of about 0.001 gwei; anvil starts at a 1 gwei base fee and never suggests a
 * tip under 1 gwei, which at the local $3,000 feed made the relayer's gas $0.22 a settlement, more
 * than a 0.099 USDC sale. The chain starts at Base's base fee (which EIP-1559 lowers while blocks
 * are empty, as anywhere), and the local relayer offers Base's tip (RELAYER_PRIORITY_FEE_WEI, set
 * by local/stack.ts): a settlement's ~70k gas then costs about 0.0000004 ETH, a tenth of a cent.
 */
export const BASE_LIKE_BASE_FEE_WEI = 5_000_000n;
/** The tip the local relayer offers: about what a Base node suggests (0.001 gwei). */
export const BASE_LIKE_PRIORITY_FEE_WEI = 1_000_000n;

/** Path of the anvil binary. */
function anvilBinary(): string {
  return join(dirname(anvilPackageJson()), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

/** The installed anvil's version, as its package names it. */
export function anvilVersion(): string {
  return (JSON.parse(readFileSync(anvilPackageJson(), 'utf8')) as { version: string }).version;
}

export interface AnvilHandle {
  rpcUrl: string;
  port: number;
  process: ChildProcess;
  /** Whether the chain began empty: no state of an earlier run, no initial state. */
  fresh: boolean;
  stop: () => Promise<void>;
}

/**
 * Starts anvil on 127.0.0.1; port 0 picks a free port. `statePath` persists the chain across
 * runs. `initialState` (a file in the form anvil dumps) is what a chain begins with when there is
 * no state of an earlier run: a persisted chain is never replaced.
 */
export async function startAnvil(opts: {
  port: number;
  statePath?: string | undefined;
  initialState?: string | undefined;
  /**
   * Seconds between blocks when nothing is sent ({@link BASE_BLOCK_SECONDS}, or
   * {@link KEPT_CHAIN_BLOCK_SECONDS} with a `statePath`, unless given); 0 mines
   * only on a transaction or when asked, for a test whose chain must hold still (a confirmation
   * count, a pool it orders itself).
   */
  blockTime?: number;
}): Promise<AnvilHandle> {
  const blockTime = opts.blockTime ?? (opts.statePath ? KEPT_CHAIN_BLOCK_SECONDS : BASE_BLOCK_SECONDS);
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--chain-id',
    String(CHAIN_ID),
    '--mnemonic',
    TEST_MNEMONIC,
    '--accounts',
    '10',
    '--balance',
    '10000',
    // Base's base fee, not anvil's 1 gwei (see BASE_LIKE_BASE_FEE_WEI).
    '--base-fee',
    String(BASE_LIKE_BASE_FEE_WEI),
    // Base's clock: a block every 2 s (a minute on a kept chain) whether or not anything is sent,
    // so the head's timestamp is the present (x402 v1 clients sign `validAfter = now - 600`, which
    // a head that stood still through ten idle minutes would not yet reach). Mixed mining keeps
    // mining each transaction at once, as before: the interval blocks only add empty blocks, as
    // Base's are between transactions.
    ...(blockTime > 0 ? ['--block-time', String(blockTime), '--mixed-mining'] : []),
  ];
  let fresh = true;
  if (opts.statePath) {
    if (existsSync(opts.statePath)) fresh = false;
    else if (opts.initialState) {
      // --state loads the file it dumps to: the chain begins from a copy, and the copy is the user's.
      copyFileSync(opts.initialState, opts.statePath);
      fresh = false;
    }
    args.push('--state', opts.statePath, '--state-interval', '5');
  } else if (opts.initialState) {
    args.push('--load-state', opts.initialState);
    fresh = false;
  }
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });

  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m?.[1]) {
        child.stdout?.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('exit', (code) => {
      const busy = /address already in use|Address in use/i.test(out);
      reject(new Error(busy ? `port ${opts.port} is busy` : `anvil exited with code ${code}: ${out.slice(-500)}`));
    });
  });
  // Keep draining output so anvil never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();

  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      // Gone already: ended by itself (exitCode) or by a signal (signalCode); 'exit' will not come again.
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT'); // SIGINT makes anvil dump --state before exiting
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  return { rpcUrl: `http://127.0.0.1:${port}`, port, process: child, fresh, stop };
}

export interface TestTokens {
  USDC: Address;
  USDbC: Address;
  /** The account that mints them (test account 0). */
  deployer: Address;
  /** True when the contracts were already on the (persisted) chain. */
  reused: boolean;
}

/** Storage slots of TestStablecoin that the constructor writes: name, symbol, version, totalSupply, minter. */
const TEST_STABLECOIN_CONSTRUCTED_SLOTS = 5;

/** Deploys a 6-decimal test stablecoin from `deployerIndex` and waits for it to be mined. */
export async function deployTestStablecoin(
  rpcUrl: string,
  name: string,
  symbol: string,
  deployerIndex = 0,
  version = '1',
): Promise<Address> {
  const chain = localChain(rpcUrl);
  const account = testAccount(deployerIndex);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const hash = await wallet.deployContract({ abi: TEST_STABLECOIN_ABI, bytecode: TEST_STABLECOIN_BYTECODE, args: [name, symbol, version] });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error(`deploying ${symbol} failed`);
  return receipt.contractAddress;
}

/**
 * Puts a contract at a fixed address, as it is on Base: deployed anywhere first (so its
 * constructor runs), then its code and the first `slots` storage slots copied to `target` with
 * anvil's `anvil_setCode` and `anvil_setStorageAt`. Mappings written later (balances) are then
 * written at `target` itself.
 */
async function placeAt(rpcUrl: string, target: Address, deployed: Address, slots: number): Promise<void> {
  const chain = localChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const test = createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) });
  const code = await pub.getCode({ address: deployed });
  if (!code || code === '0x') throw new Error(`nothing deployed at ${deployed}`);
  await test.setCode({ address: target, bytecode: code });
  for (let slot = 0; slot < slots; slot++) {
    const index = toHex(slot, { size: 32 });
    const value = await pub.getStorageAt({ address: deployed, slot: index });
    if (value && BigInt(value) !== 0n) await test.setStorageAt({ address: target, index, value });
  }
}

const hasCode = async (pub: { getCode(a: { address: Address }): Promise<Hex | undefined> }, address: Address): Promise<boolean> => {
  const code = await pub.getCode({ address });
  return code !== undefined && code !== '0x';
};

/**
 * Ensures the test USDC and USDbC exist at Base's own addresses (so a stock x402 client's asset
 * table accepts the local USDC), Multicall3's entry points sit at its address, and every buyer
 * account holds {@link BUYER_TOKEN_BALANCE} of each token. Idempotent over a persisted chain.
 */
export async function ensureTestTokens(rpcUrl: string): Promise<TestTokens> {
  const chain = localChain(rpcUrl);
  const deployer = testAccount(0);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const tokens = { USDC: BASE_MAINNET_USDC as Address, USDbC: BASE_MAINNET_USDBC as Address };
  const present = await Promise.all([hasCode(pub, tokens.USDC), hasCode(pub, tokens.USDbC), hasCode(pub, MULTICALL3)]);
  if (present.every(Boolean)) return { ...tokens, deployer: deployer.address, reused: true };

  const wallet = createWalletClient({ account: deployer, chain, transport: http(rpcUrl) });
  let nonce = await pub.getTransactionCount({ address: deployer.address, blockTag: 'pending' });
  // Deployed with explicit consecutive nonces and awaited together: one round trip each.
  const deploy = (bytecode: Hex, args: readonly unknown[], abi: Abi): Promise<Hex> =>
    wallet.deployContract({ abi, bytecode, args, nonce: nonce++, gas: 3_000_000n } as Parameters<typeof wallet.deployContract>[0]);
  const placements: [Address, Hex, number][] = [];
  if (!present[0]) {
    const { name, version } = ASSET_EIP712.USDC;
    placements.push([
      tokens.USDC,
      await deploy(TEST_STABLECOIN_BYTECODE, [name, 'USDC', version], TEST_STABLECOIN_ABI),
      TEST_STABLECOIN_CONSTRUCTED_SLOTS,
    ]);
  }
  if (!present[1]) {
    const { name, version } = ASSET_EIP712.USDbC;
    placements.push([
      tokens.USDbC,
      await deploy(TEST_STABLECOIN_BYTECODE, [name, 'USDbC', version], TEST_STABLECOIN_ABI),
      TEST_STABLECOIN_CONSTRUCTED_SLOTS,
    ]);
  }
  if (!present[2]) placements.push([MULTICALL3, await deploy(MULTICALL_BYTECODE, [], MULTICALL_ABI), 0]);
  for (const [target, hash, slots] of placements) {
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying the contract for ${target} failed`);
    await placeAt(rpcUrl, target, receipt.contractAddress, slots);
  }

  const amount = parseUnits(String(BUYER_TOKEN_BALANCE), 6);
  let last: Hex | undefined;
  for (const [token, wasPresent] of [
    [tokens.USDC, present[0]],
    [tokens.USDbC, present[1]],
  ] as const) {
    if (wasPresent) continue;
    for (const index of BUYER_ACCOUNT_INDEXES) {
      last = await wallet.writeContract({
        address: token,
        abi: TEST_STABLECOIN_ABI,
        functionName: 'mint',
        args: [testAccount(index).address, amount],
        nonce: nonce++,
        gas: 100_000n,
      });
    }
  }
  if (last) {
    const receipt = await pub.waitForTransactionReceipt({ hash: last, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error('minting the test tokens failed');
  }
  return { ...tokens, deployer: deployer.address, reused: false };
}

/**
 * Key `index` of the local relayer pool: a test account of the mnemonic, topped up with ETH for
 * gas when it runs low. The pool's keys go to the handlers as RELAYER_PRIVATE_KEYS (public test
 * keys; in AWS each pool key is a KMS key).
 */
export async function ensureRelayer(rpcUrl: string, index = 0): Promise<{ address: Address; privateKey: Hex; balance: bigint }> {
  const chain = localChain(rpcUrl);
  const account = testAccount(relayerAccountIndex(index));
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  let balance = await pub.getBalance({ address: account.address });
  if (balance < RELAYER_LOCAL_BALANCE / 10n) {
    await createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) }).setBalance({
      address: account.address,
      value: RELAYER_LOCAL_BALANCE,
    });
    balance = RELAYER_LOCAL_BALANCE;
  }
  return { address: account.address, privateKey: account.privateKey, balance };
}

/** The local relayer pool: `count` test accounts, each funded as the single relayer was (RELAYER_PRIVATE_KEYS). */
export async function ensureRelayers(rpcUrl: string, count: number): Promise<{ address: Address; privateKey: Hex; balance: bigint }[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => ensureRelayer(rpcUrl, i)));
}

/** Every address the local relayer pool may hold (the most keys relayerKeys allows), lower case: who a relayed transfer may come from. */
export const localRelayerAddresses = (count = MAX_RELAYER_KEYS): string[] =>
  Array.from({ length: count }, (_, i) => testAccount(relayerAccountIndex(i)).address.toLowerCase());
