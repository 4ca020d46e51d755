/**
 * A browser wallet for the storefront's browser tests: an EIP-1193 provider, backed in node by a
 * test account on the local anvil, that a page finds as an extension's: it announces itself by
 * EIP-6963 (`eip6963:announceProvider`, again on every `eip6963:requestProvider`, with a name, an
 * icon, an rdns and a uuid) and is injected as `window.ethereum` too, as most wallets still do
 * (either can be turned off, to test a page with two announced wallets or with a legacy wallet
 * that only injects). It behaves as an
 * extension does where the pages can tell: it starts on another chain (Ethereum mainnet) and
 * does not know Base until the page adds it (4902), it signs and sends transactions and
 * personal_sign messages itself, it forwards reads to the chain, and the test can make the
 * person decline any request (4001). It exists only under test/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { createWalletClient, http, numberToHex, type Address, type Hex } from 'viem';
import { testAccount } from '../../local/anvil';
import { localChain } from '../../local/local-chain';

export type WalletMethod =
  'eth_requestAccounts' | 'wallet_switchEthereumChain' | 'wallet_addEthereumChain' | 'eth_sendTransaction' | 'personal_sign';

export interface TestWalletOptions {
  rpcUrl: string;
  /** Mnemonic index of the account. */
  account: number;
  /** Requests the person declines in the wallet (EIP-1193 code 4001). */
  decline?: WalletMethod[];
  /** What it announces by EIP-6963 (default: "Test Wallet"); false: it does not announce, it only injects window.ethereum. */
  announce?: { name: string; rdns: string } | false;
  /** Whether it also sets window.ethereum (default true; a second wallet of a page overwrites the first's, as extensions do). */
  injectWindowEthereum?: boolean;
}

export interface TestWallet {
  address: Address;
  /** Every method the page called, in order. */
  calls: string[];
  /** Transactions the wallet sent. */
  sent: Hex[];
  /** The chains the page asked the wallet to add. */
  added: unknown[];
  /** Typed data the wallet signed (EIP-712), e.g. an x402 payment authorization. */
  typedData: { domain: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }[];
}

interface Envelope {
  result?: unknown;
  error?: { code: number; message: string };
}

const MAINNET = 1;

/** Each wallet installed in a page needs a binding name of its own. */
let installed = 0;

/** A small SVG icon as a data: URI, as EIP-6963 asks wallets to give one: a coloured disc with a letter. */
const iconOf = (name: string): string => {
  const hue = [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="16" fill="hsl(${hue} 60% 40%)"/>` +
    `<text x="16" y="22" font-size="16" text-anchor="middle" fill="#fff" font-family="sans-serif">${name[0]}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
};

/** Installs the wallet in `page` (before its scripts run) and returns what it records. */
export async function installTestWallet(page: Page, opts: TestWalletOptions): Promise<TestWallet> {
  const account = testAccount(opts.account);
  const base = localChain(opts.rpcUrl);
  const signer = createWalletClient({ account, chain: base, transport: http(opts.rpcUrl) });
  const state: TestWallet = { address: account.address, calls: [], sent: [], added: [], typedData: [] };
  let chainId = MAINNET;
  const known = new Set([MAINNET]);
  const declined = new Set<string>(opts.decline ?? []);
  const refuse = (message: string): Envelope => ({ error: { code: 4001, message } });

  async function forward(method: string, params: unknown): Promise<Envelope> {
    const res = await fetch(opts.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params ?? [] }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    return body.error ? { error: body.error } : { result: body.result };
  }

  const binding = `__testWalletRequest${installed++}`;
  await page.exposeFunction(binding, async ({ method, params }: { method: string; params?: unknown[] }): Promise<Envelope> => {
    state.calls.push(method);
    if (declined.has(method)) return refuse('User rejected the request.');
    switch (method) {
      case 'eth_chainId':
        return { result: numberToHex(chainId) };
      case 'net_version':
        return { result: String(chainId) };
      case 'eth_accounts':
      case 'eth_requestAccounts':
        return { result: [account.address.toLowerCase()] };
      case 'wallet_switchEthereumChain': {
        const target = Number((params?.[0] as { chainId: string }).chainId);
        if (!known.has(target)) return { error: { code: 4902, message: `Unrecognized chain ID ${target}.` } };
        chainId = target;
        return { result: null };
      }
      case 'wallet_addEthereumChain': {
        state.added.push(params?.[0]);
        known.add(Number((params?.[0] as { chainId: string }).chainId));
        return { result: null };
      }
      case 'personal_sign':
        return { result: await account.signMessage({ message: { raw: params![0] as Hex } }) };
      case 'eth_signTypedData_v4': {
        // EIP-712 as wallets take it: JSON with EIP712Domain among the types and numbers as strings.
        const { domain, types, primaryType, message } = JSON.parse(params![1] as string) as {
          domain: Record<string, unknown>;
          types: Record<string, { name: string; type: string }[]>;
          primaryType: string;
          message: Record<string, unknown>;
        };
        const { EIP712Domain: _domain, ...rest } = types;
        state.typedData.push({ domain, primaryType, message });
        return { result: await account.signTypedData({ domain, types: rest, primaryType, message } as never) };
      }
      case 'eth_sendTransaction': {
        if (chainId !== base.id) return { error: { code: -32603, message: `the wallet is on chain ${chainId}` } };
        const tx = params![0] as { to: Address; data?: Hex; value?: Hex; gas?: Hex };
        const hash = await signer.sendTransaction({
          to: tx.to,
          ...(tx.data ? { data: tx.data } : {}),
          ...(tx.value ? { value: BigInt(tx.value) } : {}),
          ...(tx.gas ? { gas: BigInt(tx.gas) } : {}),
        });
        state.sent.push(hash);
        return { result: hash };
      }
      default:
        // Reads go to the chain the wallet is on; only Base exists here, so another chain answers nothing useful.
        if (chainId !== base.id && method.startsWith('eth_')) return { error: { code: -32603, message: `no node for chain ${chainId}` } };
        return forward(method, params);
    }
  });
  const announce = opts.announce ?? { name: 'Test Wallet', rdns: 'org.example.test-wallet' };
  await page.addInitScript(
    ({ binding, info, inject }) => {
      const bridge = (window as unknown as Record<string, (a: unknown) => Promise<Envelope>>)[binding]!;
      const provider = {
        isTestWallet: true,
        async request(args: { method: string; params?: unknown[] }) {
          const answer = await bridge(args);
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
          return answer.result;
        },
        on() {},
        removeListener() {},
      };
      if (inject) (window as unknown as { ethereum: unknown }).ethereum = provider;
      if (!info) return;
      // EIP-6963, as a wallet's content script does it: announce now, and again whenever a page asks.
      const detail = Object.freeze({ info: Object.freeze(info), provider });
      const announceProvider = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
      window.addEventListener('eip6963:requestProvider', announceProvider);
      announceProvider();
    },
    {
      binding,
      info: announce ? { ...announce, uuid: randomUUID(), icon: iconOf(announce.name) } : null,
      inject: opts.injectWindowEthereum ?? true,
    },
  );
  return state;
}
