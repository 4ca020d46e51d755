/** Small DOM helpers shared by the page scripts. */

/** The element with this id; a page script runs only on its own page, so a missing id is a build defect. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el as T;
}

/** Creates an element with text content and attributes; text is never parsed as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

export type StatusKind = 'ok' | 'err' | 'busy';

/** Writes the page's one live status line (`#status`, role=status): what happens now, or what went wrong and what to do. */
export function setStatus(kind: StatusKind, text: string, ...extra: (Node | string)[]): void {
  const s = byId('status');
  s.className = kind;
  s.replaceChildren(text, ...extra);
}

/** Saves bytes as a file the person downloads. */
export function download(name: string, data: BlobPart, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Shortens a hash or an address for a table cell: 0x1234…abcd. */
export const short = (hex: string): string => (hex.length > 14 ? `${hex.slice(0, 6)}…${hex.slice(-4)}` : hex);

/** A wallet's EIP-1193 provider (one a wallet announced by EIP-6963, or window.ethereum), as far as the pages use it before viem loads. */
export interface InjectedWallet {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

/** `window.ethereum`, if a wallet injected it: wallets.ts's fallback when no wallet announces itself. */
export const injectedWallet = (): InjectedWallet | undefined => (window as unknown as { ethereum?: InjectedWallet }).ethereum;

/** Where a buyer who paid but got nothing goes: the recovery page, its fields filled. */
export const recoverUrl = (skill: string, txHash: string): string => `/recover/?${new URLSearchParams({ skill, txHash }).toString()}`;

/** The key under which a sent but undelivered payment is remembered in this browser. */
export const pendingKey = (skill: string): string => `skill-market:pending:${skill}`;

/** The key under which the license of a card checkout (by its Stripe session id) is kept in this browser. */
export const licenseKey = (stripeSessionId: string): string => `skill-market:card-license:${stripeSessionId}`;

/**
 * Marks the page usable (its script has wired every control): `html[data-ready]` for tests, and a
 * `storefront-ready` performance mark, the time to a usable page in a browser's own timings.
 */
export function markReady(): void {
  performance.mark('storefront-ready');
  document.documentElement.dataset['ready'] = 'true';
}
