/**
 * The browser wallets on this page, found the EIP-6963 way: each wallet extension announces
 * itself (a name, an icon, its EIP-1193 provider), so a person with two wallets can choose which
 * one pays instead of getting whichever extension won the race for `window.ethereum`. mipd's
 * store (wagmi's EIP-6963 utilities) asks and listens; this page does not speak the protocol
 * itself. A wallet that does not announce (older extensions, some in-app browsers) is still
 * found as `window.ethereum`, the fallback when nothing announces.
 *
 * mipd is tiny (its store is a few hundred bytes gzip), so it loads with the pages that use a
 * wallet (a skill page, /recover/): the wallets must be known before the first click, to list
 * them and, on a skill page, to check on load whether the chosen one already owns the skill.
 */
import { createStore } from 'mipd';
import { el, injectedWallet, type InjectedWallet } from './dom';

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

/** The person's last choice, by rdns (a uuid is new on every load), so the next page starts with it. */
const CHOSEN = 'skill-market:wallet';

/**
 * The wallets as a list of choices (radio buttons with name and icon) in a fieldset put before
 * `anchor`, drawn again when a wallet announces late; none is drawn for a lone `window.ethereum`,
 * which has no name to show. `onChoose` runs at once and whenever the chosen wallet changes
 * (undefined: there is none). Returns the chosen wallet's getter: the first found, unless the
 * person chose another (here or on an earlier page).
 */
export function walletPicker(anchor: Element, legend: string, onChoose: (wallet: Wallet | undefined) => void): () => Wallet | undefined {
  let chosenId: string | undefined;
  let told: string | undefined;
  const chosen = (): Wallet | undefined => {
    const all = wallets();
    return all.find((w) => w.id === chosenId) ?? all.find((w) => w.rdns && w.rdns === localStorage.getItem(CHOSEN)) ?? all[0];
  };
  const tell = (): void => {
    const wallet = chosen();
    if (told === (wallet?.id ?? '')) return;
    told = wallet?.id ?? '';
    onChoose(wallet);
  };
  const draw = (): void => {
    const all = wallets();
    document.getElementById('wallets')?.remove();
    if (all.length > 0 && all[0]!.id !== 'injected') {
      const current = chosen()!;
      const options = all.map((w) => {
        const input = el('input', { type: 'radio', name: 'wallet', value: w.id });
        input.checked = w.id === current.id;
        input.addEventListener('change', () => {
          chosenId = w.id;
          if (w.rdns) localStorage.setItem(CHOSEN, w.rdns);
          tell();
        });
        const icon = w.icon ? [el('img', { src: w.icon, alt: '', width: '28', height: '28' })] : [];
        return el('label', { class: 'wallet' }, input, ...icon, el('span', {}, w.name));
      });
      const title = el('legend', {}, all.length > 1 ? legend : 'Your wallet');
      anchor.before(el('fieldset', { id: 'wallets', class: 'wallets' }, title, ...options));
    }
    tell();
  };
  draw();
  onWalletsChange(draw);
  return chosen;
}
