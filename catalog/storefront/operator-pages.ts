/**
 * The pages a card processor asks a merchant for, and a buyer needs before paying: terms, privacy,
 * refunds, contact. Everything operator-specific comes from the operator settings
 * (lambdas/contract/operator.ts); everything else states what this service does, as its code does
 * it. While any setting is a placeholder each page opens with a notice saying so (the stack
 * refuses to deploy such a build: lib/constructs/deploy-settings.ts).
 */
import { CHAIN_ID } from '../../lambdas/contract/chain';
import { links } from '../../lambdas/contract/links';
import { OPERATOR_SETTINGS, type OperatorReading } from '../../lambdas/contract/operator';
import { details, esc, page, type AssetUrls } from './html';

const site = links('');

/** The visible warning on every operator page while any setting is a placeholder, naming the context keys to set. */
function placeholderNotice(reading: OperatorReading): string {
  if (reading.placeholders.length === 0) return '';
  const keys = reading.placeholders.map((n) => `<code>${esc(OPERATOR_SETTINGS[n].context)}</code>`).join(', ');
  return `<p class="callout" id="placeholder-operator"><b>Example operator, not for publication.</b> This page names placeholder
operator settings (${keys} not set), so it describes no real seller. A deployment refuses to publish it until they are set
(CDK context, docs/OPERATIONS.md).</p>\n`;
}

/** Who the seller is, as every page states it. */
function sellerHtml({ operator: o }: OperatorReading): string {
  return `${esc(o.legalName)}, ${esc(o.postalAddress)} (<a href="mailto:${esc(o.email)}">${esc(o.email)}</a>)`;
}

const days = (n: number): string => `${n} day${n === 1 ? '' : 's'}`;

export function termsPage(reading: OperatorReading, assets: AssetUrls): string {
  const o = reading.operator;
  const body = `${placeholderNotice(reading)}<h1>Terms of sale</h1>
<p class="lead">These terms apply to every skill pack bought on this site or through its APIs. The seller is ${sellerHtml(reading)}.</p>
<h2>What is sold</h2>
<p>A skill pack is a set of text files (instructions, checks and examples for a software agent), sold as a digital good. Before
buying, each pack's outline and a free sample are public on its page, with its list of files and their sizes, so you can check
that what you receive is what was listed.</p>
${details(`<p>The check is the pack's seal, a SHA-256 over its files, published on the pack's page and checked again by the page that
delivers it.</p>`)}
<h2>Prices and payment</h2>
<p>Prices are in US dollars. Every pack can be paid in USDC, a digital dollar, on the Base network: the amount and the receiving
address your wallet is asked to pay are the shop's, and they are what counts. A few packs can also be paid by card through
Stripe, at the card price shown on the pack's page and on Stripe's payment page. A USDC payment is final: once it is made
nobody, the seller included, can reverse it. The network's fee for a payment is paid by the sender, except when you pay by
signing an authorization, where the shop sends the payment and pays its fee.</p>
${details(`<p>Base is the network with chain id ${CHAIN_ID}. The exact amount, the receiving address and the accepted tokens are stated by
the challenge <code>GET ${esc(site.pay)}?skill=&lt;id&gt;</code> (HTTP 402), which is what an agent reads and what counts.</p>`)}
<h2>Delivery</h2>
<p>A pack is delivered as soon as the payment is verified: for a transfer, once it has the confirmations the shop requires; for a
card, once Stripe reports the payment. With the pack you get a license token: keep it, it gets the same pack again. One
payment buys one pack once; a wallet that already owns a pack can get it again by signing in with that wallet, without paying.
If you paid and did not receive the pack, <a href="${site.recover_page}">recover it</a> or write to the seller.</p>
<h2>If a payment is undone by the network</h2>
<p>If the network later drops the payment that paid for a pack, the purchase is void: it is removed from the proof ledger and
its license stops working.</p>
${details(`<p>Such a drop is a chain reorganisation; the skill's page counts these as payments undone.</p>`)}
<h2>Refunds</h2>
<p>See the <a href="${site.refunds_page}">refund policy</a>.</p>
<h2>What the pages show</h2>
<p>The security scan, evaluation score and sales figures on each page are facts computed by the shop as described there, not
promises about what a pack will do for you.</p>
<h2>Law</h2>
<p>These terms are governed by the law of ${esc(o.jurisdiction)}, whose courts hear disputes about them. Nothing in them takes away
a right the law gives you as a consumer that cannot be waived.</p>
<p>Questions: <a href="${site.contact_page}">contact the seller</a>.</p>`;
  return page(
    {
      title: 'Terms of sale · Agent Skill Marketplace',
      description: `The terms on which ${o.legalName} sells skill packs here: what is sold, prices, payment in USDC or by card, delivery and law.`,
      body,
    },
    assets,
  );
}

export function privacyPage(reading: OperatorReading, assets: AssetUrls): string {
  const o = reading.operator;
  const body = `${placeholderNotice(reading)}<h1>Privacy</h1>
<p class="lead">What this shop records about you, why, and for how long. The controller is ${sellerHtml(reading)}.</p>
<h2>What is public on chain and on the proof ledger</h2>
<p>A payment in USDC is a transfer on the Base blockchain: its sender's wallet address, the amount and the transaction hash are
public on the chain itself, forever, whatever this shop does. The shop records each verified unlock (transaction hash, paying
address, pack, amount, block and time) and publishes it on the <a href="/proof/">proof ledger</a>
(<a href="${esc(site.proof)}"><code>/api/proof</code></a>); it is kept as the record of the sale.</p>
<h2>What the shop keeps</h2>
<ul>
<li>Wallet purchases: the row above; with it, a one-way pseudonym (a hash) of the network address that made the first claim,
never published, which lets the same caller fetch the pack again for a few minutes; the signed payment authorizations the
shop submitted for you; the one-time numbers of wallet signatures, until the signature has expired.</li>
<li>Card purchases: the checkout session (the pack, the price, its status and Stripe's session id), the email address if you
gave one, the paid sale with the country of the card's billing address when Stripe reports one (for tax), any refund or
dispute Stripe reports, and the same pseudonym of the address the pack was first delivered to. Card details are entered on
Stripe's page and never reach this shop.</li>
<li>What a wallet holds here: payment mandates, subscriptions and prepaid meters a wallet signed for, with what each has spent.</li>
<li>Requests from agents: intent bounties as posted (public, 30 days), with a per-caller daily count under a pseudonym; A2A
tasks (30 days).</li>
<li>Logs: the content delivery network's and the storage's access logs (network address, time, the page or file asked for, the
browser's name) for 90 days; the API's access logs (time, route, status) for three months; the functions' logs for a month.
They are kept to run and secure the service.</li>
</ul>
<h2>In your browser</h2>
<p>This site sets no cookies and runs no analytics or advertising. It keeps two things in your browser's local storage: the hash
of a wallet payment until its pack is delivered (so a closed tab can still finish), and the license token of a card purchase,
so you can come back for the pack. Stripe's payment page is Stripe's, under its own privacy notice; your wallet extension
is yours.</p>
<h2>Who else sees it</h2>
<p>Stripe processes card payments. The shop reads the Base chain through RPC providers, which see which transactions it asks
about. The service runs on Amazon Web Services. The shop's software sends
nothing else to anyone: no analytics, advertising or tracking service.</p>
<h2>Your rights</h2>
<p>Write to <a href="mailto:${esc(o.email)}">${esc(o.email)}</a> to ask what the shop holds about you, to correct it or to have
it deleted where the law allows. The proof ledger's rows are the public record of sales and stay published, and what is on
the chain cannot be deleted by anyone.</p>`;
  return page(
    {
      title: 'Privacy · Agent Skill Marketplace',
      description: `What ${o.legalName} records when you use this shop: public on-chain payments, card checkout sessions, access logs; no cookies.`,
      body,
    },
    assets,
  );
}

export function refundsPage(reading: OperatorReading, assets: AssetUrls): string {
  const o = reading.operator;
  const window =
    o.refundDays > 0
      ? `Within ${days(o.refundDays)} of a card purchase you may ask for a refund: write to <a href="mailto:${esc(o.email)}">${esc(o.email)}</a>
with the pack and the Stripe receipt or checkout session id. ${esc(o.legalName)} refunds through Stripe to the card that paid.`
      : `Card purchases are not refunded, except where the law gives you a right to one; write to
<a href="mailto:${esc(o.email)}">${esc(o.email)}</a> with the pack and the Stripe receipt.`;
  const body = `${placeholderNotice(reading)}<h1>Refund policy</h1>
<p class="lead">A skill pack is a digital good delivered the moment its payment is verified. What can be refunded depends on how
you paid.</p>
<h2>Paid by card</h2>
<p>${window} A purchase refunded in full, or disputed with your bank, is no longer delivered: its license token stops working
(it works again if the seller wins the dispute). A partial refund leaves the pack with you.</p>
<h2>Paid in USDC on Base</h2>
<p>A transfer on chain is final: it cannot be reversed, and the shop's software never sends one back. Before paying, read the
pack's outline and free sample, and check the amount and address in the challenge. A wallet that already owns a pack gets it
again by signing in, without paying. If you paid and did not receive the pack, <a href="${site.recover_page}">recover it</a>: the same
transfer is verified again and delivers the pack; it is never charged twice. For anything else about a payment, write to
<a href="mailto:${esc(o.email)}">${esc(o.email)}</a> with the transaction hash.</p>
<h2>Subscriptions and prepaid meters</h2>
<p>A cancelled subscription is not refunded: access runs to the end of the period paid for, and nothing renews. A prepaid
meter's balance is spent on packs; a top-up is a transfer on chain like any other, and the shop's software does not pay a
balance back out.</p>
<p>Nothing in this policy takes away a right the law of ${esc(o.jurisdiction)} gives you as a consumer.</p>`;
  return page(
    {
      title: 'Refund policy · Agent Skill Marketplace',
      description: `How ${o.legalName} refunds skill packs: card purchases through Stripe${o.refundDays > 0 ? ` within ${days(o.refundDays)}` : ''}; USDC transfers on Base are final.`,
      body,
    },
    assets,
  );
}

export function contactPage(reading: OperatorReading, assets: AssetUrls): string {
  const o = reading.operator;
  const body = `${placeholderNotice(reading)}<h1>Contact</h1>
<p class="lead">This shop is run by ${esc(o.legalName)}.</p>
<ul>
<li>Email: <a href="mailto:${esc(o.email)}">${esc(o.email)}</a></li>
<li>Post: ${esc(o.postalAddress)}</li>
<li>Support hours: ${esc(o.supportHours)}</li>
</ul>
<h2>About a purchase</h2>
<p>Say which pack, and for a wallet payment the transaction hash, for a card payment the Stripe receipt or checkout session id.
A pack you paid for but did not receive can be <a href="${site.recover_page}">recovered</a> at once, without waiting for an answer.</p>
<p>Never send a private key or a recovery phrase: nobody here will ask for one. A license token gets your pack again;
keep it to yourself too.</p>
<p>The <a href="${site.terms_page}">terms of sale</a>, the <a href="${site.refunds_page}">refund policy</a> and the <a href="${site.privacy_page}">privacy notice</a>
say what to expect.</p>`;
  return page(
    {
      title: 'Contact · Agent Skill Marketplace',
      description: `How to reach ${o.legalName}, who runs this shop: email, postal address and support hours.`,
      body,
    },
    assets,
  );
}

/** The operator's pages by their path under dist/public. */
export function renderOperatorPages(reading: OperatorReading, assets: AssetUrls): [string, string][] {
  return [
    ['terms/index.html', termsPage(reading, assets)],
    ['privacy/index.html', privacyPage(reading, assets)],
    ['refunds/index.html', refundsPage(reading, assets)],
    ['contact/index.html', contactPage(reading, assets)],
  ];
}
