/**
 * The browser wallets on this page, found the EIP-6963 way: each wallet extension announces
 * itself (a name, an icon, its EIP-1193 provider), so a person with two wallets can choose which
 * one pays instead of getting whichever extension won the race for `window.ethereum`. mipd's
 * store (wagmi's EIP-6963 utilities) asks and listens; this page does not speak the protocol
 * itself. A wallet that does not announce (older extensions, some in-app browsers) is still
 * found as `window.ethereum`, the fallback when nothing announces.
 *
 * mipd is tiny (its store is a few hundred bytes gzip), so it loads with the skill page: the
 * wallets must be known before the first click, to list them and to check on load whether the
 * chosen one already owns the skill.
 */
import { createStore } from 'mipd';
import { injectedWallet, type InjectedWallet } from './dom';

export interface Wallet {
  /** EIP-6963's uuid (one per page load), or 'injected' for `window.ethereum`. */
  id: string;
  name: string;
  /** The wallet's icon as a data: image URI (EIP-6963 asks for one), shown only if it is one. */
  icon?: string;
  /** Reverse-DNS name of the wallet (io.metamask, com.coinbase.wallet…): stable across loads. */
  rdns?: string;
  provider: InjectedWallet;
}

// Created at load: it sends eip6963:requestProvider and keeps every announcement, early or late.
const store = createStore();

/** The announced wallets in the order they announced; otherwise `window.ethereum`, if there is one. */
export function wallets(): Wallet[] {
  const announced = store.getProviders().map(({ info, provider }): Wallet => ({
    id: info.uuid,
    name: info.name,
    rdns: info.rdns,
    provider: provider as unknown as InjectedWallet,
    ...(/^data:image\//.test(info.icon) ? { icon: info.icon } : {}),
  }));
  if (announced.length > 0) return announced;
  const legacy = injectedWallet();
  return legacy ? [{ id: 'injected', name: 'Browser wallet', provider: legacy }] : [];
}

/** Calls `listener` whenever a wallet announces itself (a wallet may do so after the page loaded). */
export const onWalletsChange = (listener: () => void): (() => void) => store.subscribe(() => listener());
