/**
 * A skill page: the live facts (confirmed unlocks, card sales, reorged claims, days listed from
 * /api/trust, which reads the tallies) and the two ways a person buys. The browser wallets found
 * on the page (wallets.ts: those that announce themselves by EIP-6963, else `window.ethereum`) are
 * listed by name and icon for the person to choose the one that pays, and the person chooses how
 * it pays: now, or when the pack is delivered (the escrow); the wallet purchase and its library
 * load on the first click (wallet-buy.ts); a card purchase opens an ACP checkout session
 * and goes to its continue_url. The version on sale shows "Verified" only once this browser has
 * checked its signed provenance against the shop's published key (version-facts.ts, a chunk
 * loaded once the page is usable).
 */
import { call, explain, isFailure, Unreachable } from './api';
import { byId, el, markReady, pendingKey, recoverUrl, setStatus } from './dom';
import { walletPicker, type Wallet } from './wallets';

interface TrustAnswer {
  scorecard: { confirmed_unlocks: number; card_sales: number; reorged_claims: number; age_days: number };
}
interface Session {
  continue_url: string;
}

const skill = byId('skill-head').dataset['skill']!;

/** One sentence with what a person without a browser wallet can do (a shopper's choices: a wallet, or a card where one is taken). */
const NO_WALLET =
  'No browser wallet was found: open this page in a browser with a wallet that holds USDC on Base (an extension such as ' +
  "MetaMask, Coinbase Wallet or Rabby, or a wallet app's own browser), or pay by card if this pack offers it.";

/** What the wallet button says to a wallet that has the skill: pressing it downloads again and charges nothing. */
const OWNED = 'Download (you own this)';

async function liveFacts(): Promise<void> {
  try {
    const answer = await call<TrustAnswer>(`/api/trust?skill=${encodeURIComponent(skill)}`);
    if (isFailure(answer.body)) throw new Error(explain(answer.body));
    const s = answer.body.scorecard;
    byId('unlocks').textContent = String(s.confirmed_unlocks);
    byId('card-sales').textContent = String(s.card_sales);
    byId('reorged').textContent = String(s.reorged_claims);
    byId('age').textContent = `${s.age_days} day${s.age_days === 1 ? '' : 's'}`;
  } catch (e) {
    byId('facts-note').textContent = `The live figures could not be read: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** Counts owner checks, so that the answer for a wallet no longer chosen is dropped. */
let ownerCheck = 0;

/**
 * A wallet this site is already connected to (`eth_accounts` asks nothing of the person) that owns
 * the skill is offered a download, not a payment; pressing it signs in and pays nothing
 * (wallet-buy.ts checks again, so a stale label never charges an owner or gives to a non-owner).
 * Asked again whenever the person chooses another wallet.
 */
async function ownerLabel(button: HTMLButtonElement, wallet: Wallet | undefined): Promise<void> {
  const check = ++ownerCheck;
  button.textContent = 'Pay with wallet';
  byId('wallet-note').textContent = wallet ? '' : NO_WALLET;
  if (!wallet) return;
  try {
    const [account] = (await wallet.provider.request({ method: 'eth_accounts' })) as string[];
    if (!account) return;
    const answer = await call<{ granted?: boolean; via?: string }>(`/api/access?wallet=${account}&skill=${encodeURIComponent(skill)}`);
    if (check !== ownerCheck || isFailure(answer.body) || answer.body.granted !== true || answer.body.via === 'meter') return;
    button.textContent = OWNED;
    byId('wallet-note').textContent =
      'This wallet already has this skill: downloading it again costs nothing, you only sign in with your wallet.';
  } catch {
    // Not known: the button keeps its label, and pressing it still never charges an owner.
  }
}

function walletButton(): void {
  const button = byId<HTMLButtonElement>('pay-wallet');
  // The owner check runs again whenever the chosen wallet changes (the person's pick, or a late announcement).
  const chosen = walletPicker(button.closest('.actions')!, 'Choose the wallet that pays', (wallet) => void ownerLabel(button, wallet));
  button.addEventListener('click', async () => {
    const wallet = chosen();
    if (!wallet) return setStatus('err', NO_WALLET);
    button.disabled = true;
    try {
      const { buyWithWallet } = await import('./wallet-buy');
      // "Paid when delivered" (the escrow) or "Pay now", as the person chose above the button.
      const escrow = document.querySelector<HTMLInputElement>('input[name="pay-how"]:checked')?.value === 'escrow';
      if (await buyWithWallet(skill, wallet.provider, escrow)) {
        // The wallet owns the skill now: the button no longer offers to pay, and pressing it again downloads for free.
        button.textContent = OWNED;
        byId('wallet-note').textContent =
          'This wallet owns this skill now: downloading it again costs nothing, you only sign in with your wallet.';
        // A purchase changes the live figures: read them again.
        await liveFacts();
      }
    } catch (e) {
      setStatus('err', `The purchase stopped unexpectedly: ${e instanceof Error ? e.message : String(e)}. Reload the page and try again.`);
    } finally {
      button.disabled = false;
    }
  });
}

/** Card packs show their card price and button only when this shop takes cards (ACP discovery says `enabled`). */
async function cardOffer(button: HTMLButtonElement): Promise<void> {
  try {
    const answer = await call<{ enabled?: boolean }>('/.well-known/acp.json');
    if (isFailure(answer.body) || answer.body.enabled !== true) return;
    button.hidden = false;
    byId('card-offer').hidden = false;
  } catch {
    // Not known: the card stays hidden, and the wallet purchase is offered as always.
  }
}

function cardButton(): void {
  const button = document.getElementById('pay-card') as HTMLButtonElement | null;
  if (button) void cardOffer(button);
  button?.addEventListener('click', async () => {
    button.disabled = true;
    setStatus('busy', 'Opening a card checkout…');
    try {
      const answer = await call<Session>('/api/acp/checkout_sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ line_items: [{ id: skill, quantity: 1 }] }),
      });
      // A person reads what to do, not the operator's settings.
      if (isFailure(answer.body) && answer.body.error_code === 'CHECKOUT_NOT_CONFIGURED')
        throw new Error('This shop does not take cards right now. Pay in USDC with your wallet instead.');
      if (isFailure(answer.body)) throw new Error(explain(answer.body));
      setStatus('busy', 'Taking you to the card checkout…');
      location.assign(answer.body.continue_url);
    } catch (e) {
      setStatus('err', e instanceof Unreachable || e instanceof Error ? e.message : String(e));
      button.disabled = false;
    }
  });
}

/** A payment sent from this browser but not delivered (the tab was closed): point to its recovery. */
function pendingPurchase(): void {
  const tx = localStorage.getItem(pendingKey(skill));
  if (!tx) return;
  setStatus(
    'busy',
    'A payment for this skill was sent from this browser but not yet delivered. ',
    el('a', { href: recoverUrl(skill, tx) }, 'Finish it on the recovery page'),
  );
}

walletButton();
cardButton();
// The version's provenance check and the digest's Copy button: a chunk of their own, loaded now but
// not before the page is usable (budget.ts counts it apart).
import('./version-facts').then(
  (m) => m.versionFacts(skill),
  () => {
    const fact = byId('provenance');
    fact.dataset['state'] = 'unavailable';
    fact.textContent = 'Not available';
    byId('provenance-note').textContent = 'The check could not be loaded: reload the page to check this version.';
  },
);
pendingPurchase();
void liveFacts();
markReady();
