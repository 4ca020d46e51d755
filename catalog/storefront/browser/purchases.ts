/**
 * /purchases/: a person's way back to what they bought. The wallet signs in once (a SIGN-IN-WITH-X
 * signature for the purchases URL, docs/ACCESS.md); the answer's short session lists further pages
 * without signing again, and each pack downloads with its license (POST /api/pay, X-LICENSE). A
 * card buyer pastes their license. Every version the license covers downloads by its number
 * (`?version=<n>`, docs/ACCESS.md, "Versions"). The session lives in this page's memory only. The list stands
 * above the sign-in box, so once signed in it is the first thing on the page.
 */

import { call, explain, isFailure, Unreachable } from './api';
import { formatTime } from './dates';
import { byId, download, el, markReady, setStatus, short } from './dom';
import type { Delivered } from './pack-view';
import { walletPicker } from './wallets';

interface Purchase {
  how: 'one_time' | 'subscription' | 'meter_top_up' | 'card';
  skill?: string;
  name?: string | null;
  plan?: string;
  amount: string;
  asset?: string;
  currency?: string;
  tx_hash?: string;
  checkout_session?: string;
  recorded_at: string;
  explorer_tx?: string | null;
  license?: { token: string };
  receipt?: string;
  /** Card sales: `refunded` or `disputed` when Stripe reported so; then `download` is null. */
  status?: 'paid' | 'refunded' | 'disputed';
  download?: unknown;
  /** Every version of the pack the purchase covers, newest first (docs/ACCESS.md, "Versions"). */
  versions?: { number: number; digest: string; published: string; current?: boolean; bought?: boolean }[];
}

interface PurchaseList {
  wallet: string | null;
  session?: { token: string; expires_at: string };
  purchases: Purchase[];
  subscriptions: { plan: string; status: string; active_until: string }[];
  next: string | null;
}

const HOW: Record<Purchase['how'], string> = {
  one_time: 'Bought once, in USDC',
  subscription: 'Subscription period, in USDC',
  meter_top_up: 'Meter top-up, in USDC',
  card: 'Paid by card',
};

let auth: Record<string, string> = {};
let next: string | null = null;

const list = byId('list');
// The wallets found on the page (EIP-6963, else window.ethereum): the person picks the one that paid.
const signInButton = byId<HTMLButtonElement>('sign-in');
const chosenWallet = walletPicker(signInButton.closest('.actions')!, 'Choose the wallet that paid', (w) => {
  signInButton.hidden = !w;
  byId('no-wallet').hidden = Boolean(w);
});

function row(p: Purchase): HTMLElement {
  const title = p.skill ? el('a', { href: `/skills/${p.skill}/` }, p.name ?? p.skill) : el('span', {}, p.plan ?? 'Meter');
  const price = p.how === 'card' ? `$${p.amount}` : `${p.amount} ${p.asset ?? 'USDC'}`;
  const when = formatTime(p.recorded_at);
  const ref = p.tx_hash
    ? p.explorer_tx
      ? el('a', { href: p.explorer_tx, rel: 'noopener' }, short(p.tx_hash))
      : el('code', {}, short(p.tx_hash))
    : el('code', {}, p.checkout_session ?? '');
  const actions = el('div', { class: 'actions' });
  const reversed = p.status === 'refunded' || p.status === 'disputed';
  if (p.license && p.skill && !reversed) {
    const get = el('button', { type: 'button', 'data-skill': p.skill }, 'Download the pack');
    get.addEventListener('click', () => void fetchPack(p.skill!, p.license!.token));
    actions.append(get);
    // Each earlier version the license covers downloads by its number: the bytes its digest names.
    for (const v of p.versions ?? []) {
      if (v.current) continue;
      const label = `Version ${v.number} (${v.published}${v.bought ? ', as bought' : ''})`;
      const old = el('button', { type: 'button', class: 'secondary', 'data-version': String(v.number), title: v.digest }, label);
      old.addEventListener('click', () => void fetchPack(p.skill!, p.license!.token, v.number));
      actions.append(old);
    }
  }
  if (p.receipt) {
    const receipt = el('button', { type: 'button', class: 'secondary' }, 'Save the receipt');
    receipt.addEventListener('click', () => download(`${p.skill ?? p.plan ?? 'purchase'}-receipt.jws`, p.receipt!, 'application/jose'));
    actions.append(receipt);
  }
  const standing = reversed ? ` · ${p.status === 'refunded' ? 'Refunded' : 'Disputed'}: the pack is no longer delivered` : '';
  return el(
    'article',
    { class: 'purchase' },
    el('h2', {}, title),
    el('p', {}, `${HOW[p.how]} · ${price} · ${when} · `, ref, standing),
    actions,
  );
}

function render(body: PurchaseList, append: boolean): void {
  if (!append) list.replaceChildren();
  if (!append && body.purchases.length === 0)
    list.append(el('p', {}, 'This wallet has no purchases here yet. Packs it buys appear here, with their receipts.'));
  for (const s of body.subscriptions) {
    if (append) break;
    list.append(el('p', { class: 'note' }, `Subscription ${s.plan}: ${s.status}, access until ${formatTime(s.active_until)}.`));
  }
  list.append(...body.purchases.map(row));
  list.hidden = false;
  next = body.next;
  byId('more-wrap').hidden = next === null;
}

async function load(headers: Record<string, string>, append = false): Promise<void> {
  setStatus('busy', 'Reading your purchases…');
  let answer;
  try {
    answer = await call<PurchaseList>(`/api/purchases${append && next ? `?cursor=${encodeURIComponent(next)}` : ''}`, { headers });
  } catch (e) {
    return setStatus('err', e instanceof Unreachable ? e.message : String(e));
  }
  const body = answer.body;
  if (isFailure(body)) {
    if (body.error_code === 'SESSION_EXPIRED') auth = {};
    return setStatus('err', explain(body));
  }
  if (body.session) auth = { authorization: `Bearer ${body.session.token}` };
  render(body, append);
  // The list is what the person came for: it stands first, and signing in again becomes the lesser choice below it.
  if (body.wallet) {
    signInButton.textContent = 'Sign in with another wallet';
    signInButton.className = 'secondary';
  }
  const n = body.purchases.length;
  setStatus('ok', body.wallet ? `Signed in as ${short(body.wallet)}: ${n} purchase${n === 1 ? '' : 's'} shown.` : 'Your purchase:');
}

async function fetchPack(skill: string, license: string, version?: number): Promise<void> {
  setStatus('busy', version === undefined ? 'Fetching the pack…' : `Fetching version ${version} of the pack…`);
  let answer;
  try {
    const path = version === undefined ? '/api/pay' : `/api/pay?version=${version}`;
    answer = await call<Delivered>(path, { method: 'POST', headers: { 'x-license': license } });
  } catch (e) {
    return setStatus('err', e instanceof Unreachable ? e.message : String(e));
  }
  if (isFailure(answer.body)) return setStatus('err', explain(answer.body));
  const { showPack } = await import('./pack-view');
  await showPack('pack', skill, answer.body);
  setStatus('ok', `${answer.body.name}: ${Object.keys(answer.body.sealed_pack.files).length} file(s) below.`);
  byId('pack').scrollIntoView();
}

signInButton.addEventListener('click', async () => {
  const wallet = chosenWallet()?.provider;
  if (!wallet) return;
  let header: string;
  try {
    setStatus('busy', 'Waiting for your wallet to sign (a signature proves the wallet, it moves no funds)…');
    const [address] = (await wallet.request({ method: 'eth_requestAccounts' })) as `0x${string}`[];
    const { purchasesSignInHeader, injectedPersonalSign } = await import('./wallet-siwx');
    header = await purchasesSignInHeader({ address: address!, baseUrl: location.origin, sign: injectedPersonalSign(wallet, address!) });
  } catch {
    return setStatus('err', 'The wallet did not sign, so nothing is shown. Press "Sign in with your wallet" to try again.');
  }
  await load({ 'sign-in-with-x': header });
});

byId('more').addEventListener('click', () => void load(auth, true));

byId<HTMLFormElement>('license-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const license = byId<HTMLTextAreaElement>('license-input').value.trim();
  if (license) void load({ 'x-license': license });
});

markReady();
