/**
 * The storefront's pages, pre-rendered at catalog build from the same facts the API serves: the
 * home page (every skill, search and filters), one page per skill at /skills/<id>/ (beside its
 * outline.json and sample.md), and the proof ledger at /proof/. Text from skill records and
 * packs is escaped (html.ts) or rendered by a Markdown renderer with raw HTML off (markdown.ts).
 */
import { cheapestFirst, type CatalogEntry, type PackMeta } from '../../lambdas/contract/catalog-data';
import { CHAIN_ID } from '../../lambdas/contract/chain';
import { links } from '../../lambdas/contract/links';
import { SEAL_VERIFY_COMMAND } from '../../lambdas/contract/pack-seal';
import { digestRef, type PackVersionRecord } from '../../lambdas/contract/pack-versions';
import type { SkillSecurity } from '../../lambdas/contract/security-report';
import type { OperatorReading } from '../../lambdas/contract/operator';
import type { SkillRecord } from '../schema';
import { formatDay } from './browser/dates';
import { details, esc, page, type AssetUrls } from './html';
import { renderSampleHtml } from './markdown';
import { renderOperatorPages } from './operator-pages';

export interface StorefrontInput {
  records: readonly SkillRecord[];
  entries: readonly CatalogEntry[];
  packMeta: ReadonlyMap<string, PackMeta>;
  samples: ReadonlyMap<string, string>;
  /**
   * Every skill's versions, oldest first (the last is the one sold): the skill page shows the
   * current one with what its build checked (the scan and the eval it recorded, which its signed
   * provenance states) and lists the earlier ones.
   */
  versions: ReadonlyMap<string, readonly VersionView[]>;
  /** Card prices in US cents, for the card packs only. */
  cardCents: Readonly<Record<string, number>>;
  listedAt: Readonly<Record<string, string>>;
  /** Who runs the store, for the terms, privacy, refund and contact pages (operator-pages.ts). */
  operator: OperatorReading;
}

/** What the skill page shows of a version. */
export type VersionView = Pick<PackVersionRecord, 'version' | 'published' | 'digest' | 'checks'>;

const site = links('');
const label = (category: string): string => category.replace(/-/g, ' ');
const usd = (cents: number): string => `$${(cents / 100).toFixed(2)}`;
const bytes = (n: number): string => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`);

function priceHtml(e: CatalogEntry): string {
  const discounted = e.regular_price_usd > e.price_usd;
  return `<span class="price">${esc(e.price_label)}${discounted ? `<span class="was" aria-label="regular price">$${e.regular_price_usd.toFixed(2)}</span>` : ''}</span>`;
}

/** The home page: every skill cheapest first (as /api/catalog orders without a query), search and filters. */
export function homePage(input: StorefrontInput, assets: AssetUrls): string {
  const entries = [...input.entries].sort(cheapestFirst);
  const categories = [...new Set(entries.map((e) => e.category))].sort();
  const prices = [...new Set(entries.map((e) => e.price_usd))].sort((a, b) => a - b);
  const byPrice = new Map(entries.map((e) => [e.price_usd, e.price_label]));
  const body = `<h1>Skill packs for agents, sealed and proven</h1>
<p class="lead">${entries.length} capability packs for software agents. Read the outline and a free sample of any pack, then
pay with a browser wallet in USDC on Base, or by card for a few.</p>
<p id="ledger-claim">Every USDC payment is a row on the public <a href="/proof/">proof ledger</a>, checked on chain. Card payments are
not on the ledger: the card processor keeps them, and each skill's page counts its card sales.</p>
<form id="search" class="search" role="search" action="/" method="get">
<div><label for="q">Search the skills</label><input id="q" name="q" type="search" maxlength="200" placeholder="clean a csv, audit links, price a plan…" autocomplete="off"></div>
<div><label for="category">Category</label><select id="category" name="category"><option value="">All categories</option>
${categories.map((c) => `<option value="${esc(c)}">${esc(label(c))} (${entries.filter((e) => e.category === c).length})</option>`).join('\n')}
</select></div>
<div><label for="max_price">Price</label><select id="max_price" name="max_price"><option value="">Any price</option>
${prices.map((p) => `<option value="${p}">Up to ${esc(byPrice.get(p)!)}</option>`).join('\n')}
</select></div>
<div><button type="submit">Search</button></div>
</form>
<p id="count" aria-live="polite">${entries.length} skills, cheapest first</p>
<ol id="skills" class="skills">
${entries
  .map(
    (e) =>
      `<li data-id="${esc(e.id)}"><div class="row"><a href="/skills/${esc(e.id)}/">${esc(e.name)}</a>${priceHtml(e)}<span class="tag">${esc(label(e.category))}</span></div><p class="muted">${esc(e.summary)}</p></li>`,
  )
  .join('\n')}
</ol>
<p class="note">Buying for an agent, or building one? <a href="/agents/">For agents and developers</a>: the same shop over HTTP.</p>`;
  return page(
    {
      title: 'Agent Skill Marketplace: sealed skill packs, paid in USDC on Base',
      description: `${entries.length} sealed capability packs for software agents: search, read a free sample, pay with a browser wallet (USDC on Base) or a card, and see every USDC payment on the proof ledger.`,
      current: 'skills',
      body,
      script: 'home',
    },
    assets,
  );
}

/**
 * /agents/: the shop for agents and the people who build them. The canary (the cheapest pack, a
 * whole purchase for less than a cent) is offered here, to those who test an agent's payments,
 * and not on the home page, where people shop.
 */
export function agentsPage(input: StorefrontInput, assets: AssetUrls): string {
  const entries = [...input.entries].sort(cheapestFirst);
  const cheapest = entries[0]!;
  const body = `<h1>For agents and developers</h1>
<p class="lead">The same shop over HTTP: every page of this site reads these APIs, and an agent buys through them with x402
(USDC on Base, chain ${CHAIN_ID}) or a card checkout (ACP).</p>
<p class="callout" id="canary"><b>First buy?</b> <a href="/skills/${esc(cheapest.id)}/">${esc(cheapest.name)}</a> costs
<b>${esc(cheapest.price_label)}</b>, the cheapest pack here: a whole purchase, end to end, for less than a cent, to try an agent's payments.</p>
<ul>
<li><a href="${site.shop}"><code>/api/shop</code></a>: the agent entry, with the next request to make</li>
<li><a href="${site.esp}"><code>/api/esp</code></a>: the ESP protocol (Evaluate, Settle, Prove)</li>
<li><a href="${site.catalog_json}"><code>/catalog.json</code></a> and <a href="${site.catalog}?q=clean%20a%20csv"><code>/api/catalog?q=…</code></a>: the ${entries.length} skills</li>
<li><a href="${site.llms}"><code>/llms.txt</code></a> and <a href="${site.openapi}"><code>/api/openapi.json</code></a>: for machines</li>
<li><a href="${site.proof}"><code>/api/proof</code></a>: the proof ledger as JSON; <a href="${site.ready}"><code>/api/ready</code></a>: readiness, one entry per check</li>
<li><code>GET ${esc(site.pay)}?skill=&lt;id&gt;</code>: a skill's x402 challenge (HTTP 402); MCP at <code>${esc(site.mcp)}</code>, A2A at <code>${esc(site.a2a)}</code></li>
</ul>`;
  return page(
    {
      title: 'For agents and developers · Agent Skill Marketplace',
      description: `The shop's APIs for software agents: discovery, x402 payments in USDC on Base, the proof ledger, and a ${cheapest.price_label} canary purchase.`,
      current: 'agents',
      body,
    },
    assets,
  );
}

function outlineHtml(r: SkillRecord): string {
  return `<ol>
<li>When to use</li><li>Outcome</li><li>Before you start: ${r.inputs.length} input${r.inputs.length === 1 ? '' : 's'}</li>
<li>Steps<ol>${r.steps.map((s) => `<li>${esc(s.title)}</li>`).join('')}</ol></li>
<li>Checks: ${r.checks.length}</li><li>Pitfalls: ${r.pitfalls.length}</li><li>Worked example</li>
${
  r.files
    ? `<li>Supporting files: ${Object.keys(r.files)
        .map((f) => `<code>${esc(f)}</code>`)
        .join(', ')}</li>`
    : ''
}
</ol>`;
}

/** A scan's verdict in a few words: no findings, or how many and the highest severity. */
function scanVerdict(security: SkillSecurity): string {
  const n = security.findings.length;
  return n === 0 ? 'No findings' : `${n} finding${n === 1 ? '' : 's'}, highest ${security.max_severity ?? 'none'}`;
}

/**
 * The trust facts: the version sold (its day and how many came before), its provenance as this
 * browser verifies it (skill.ts, provenance.ts), the scan and eval its build recorded, and the live
 * tallies. The version's digest and every version are one click away, under "Details".
 */
function trustHtml(skill: string, versions: readonly VersionView[], listed: string): string {
  const current = versions.at(-1)!;
  const security = current.checks.security.result;
  const evals = current.checks.eval.result;
  const earlier = versions.length - 1;
  const failed =
    evals.failed.length > 0
      ? `<p class="note">Failing eval checks: ${evals.failed.map((f) => `<code>${esc(f)}</code>`).join(', ')}</p>`
      : '';
  const provenanceUrl = `/api/packs/provenance?skill=${encodeURIComponent(skill)}&amp;version=${current.version}`;
  return `<div class="facts" id="version" data-version="${current.version}">
<div>Version<b>${current.version}</b><span class="note">published ${esc(formatDay(current.published))}${earlier > 0 ? `; ${earlier} earlier version${earlier === 1 ? '' : 's'}` : ''}</span></div>
<div>Provenance<b id="provenance" data-state="checking">Checking…</b><span class="note" id="provenance-note">the shop's signature over this version</span></div>
<div>Security scan<b>${esc(scanVerdict(security))}</b><span class="note">of version ${current.version}, when it was published</span></div>
<div>Eval score<b>${evals.score} / 100</b><span class="note">of version ${current.version}, when it was published</span></div>
<div>Card sales<b id="card-sales">…</b><span class="note">paid by card, not on the proof ledger</span></div>
<div>Payments undone<b id="reorged">…</b><span class="note">USDC payments the network later dropped</span></div>
<div>In the catalog<b id="age">…</b><span class="note">listed ${esc(formatDay(listed))}</span></div>
</div>${failed}
${details(
  `<p>Version ${current.version}'s digest (the seal: a SHA-256 over its files): <code id="version-digest">${esc(digestRef(current.digest))}</code>
<button type="button" id="copy-digest" class="secondary" hidden>Copy the digest</button></p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Every version of this pack"><table><thead><tr><th scope="col">Version</th><th scope="col">Published</th><th scope="col">Digest</th><th scope="col">Security scan</th></tr></thead><tbody>
${[...versions]
  .reverse()
  .map(
    (v) =>
      `<tr><td>${v.version}${v === current ? ' (sold now)' : ''}</td><td>${esc(formatDay(v.published))}</td><td><code>${esc(digestRef(v.digest))}</code></td><td>${esc(scanVerdict(v.checks.security.result))}</td></tr>`,
  )
  .join('\n')}
</tbody></table></div>
<p class="note">Each version's build record (SLSA provenance) and what was checked in it are in-toto statements signed by the shop's
key (DSSE, ECDSA P-256) in Sigstore bundles: <a href="${provenanceUrl}"><code>GET /api/packs/provenance?skill=${esc(skill)}&amp;version=${current.version}</code></a>.
This page verifies them in your browser against the key <a href="/.well-known/jwks.json"><code>/.well-known/jwks.json</code></a>
publishes under each bundle's key hint, and checks that their first subject is <code>${esc(skill)}@${current.version}</code> with the digest
above. Sigstore's own verifier (<code>@sigstore/verify</code>) accepts the same bundles given that key.</p>`,
  'Details: versions and provenance',
)}`;
}

/** One skill's page: what it is, its free sample, its pack and seal, its trust facts and proof, and how to buy it. */
export function skillPage(input: StorefrontInput, entry: CatalogEntry, assets: AssetUrls): string {
  const r = input.records.find((s) => s.id === entry.id)!;
  const meta = input.packMeta.get(entry.id)!;
  const sample = input.samples.get(entry.id)!;
  const card = input.cardCents[entry.id];
  const id = esc(entry.id);
  const body = `<nav aria-label="Breadcrumb" class="muted"><a href="/">Skills</a> › <a href="/?category=${esc(entry.category)}">${esc(label(entry.category))}</a></nav>
<div id="skill-head" data-skill="${id}">
<h1>${esc(entry.name)}</h1>
<p class="lead">${esc(entry.summary)}</p>
</div>
<section class="buy" aria-labelledby="buy-heading">
<h2 id="buy-heading">Buy ${esc(entry.name)}</h2>
<p>${priceHtml(entry)} in USDC on Base, paid once; the pack is yours with a license to get it again.${
    card !== undefined
      ? ` <span id="card-offer" hidden>Or ${usd(card)} by card: a card payment carries a fixed processing fee on every sale, which a price of cents could not cover, while a USDC payment on Base reaches the shop with no processor's fee, so this pack costs more by card than in USDC.</span>`
      : ''
  }</p>
<fieldset id="pay-how" class="wallets">
<legend>How your wallet pays</legend>
<label class="wallet"><input type="radio" name="pay-how" value="now" checked><span><b>Pay now</b>: your USDC goes to the shop, which then delivers the pack.</span></label>
<label class="wallet"><input type="radio" name="pay-how" value="escrow"><span><b>Paid when delivered</b>: the price is held in Base's public escrow contract and released to the shop only once your pack is delivered; if delivery fails, it comes back to you.</span></label>
</fieldset>
<div class="actions">
<button type="button" id="pay-wallet">Pay with wallet</button>
${card !== undefined ? `<button type="button" id="pay-card" class="secondary" hidden>Pay by card, ${usd(card)}</button>` : ''}
</div>
<p id="wallet-note" class="note"></p>
<noscript><p class="note">Buying on this page needs JavaScript. Without it: <code>GET ${esc(site.pay)}?skill=${id}</code> answers with the
x402 challenge (amount, receiver, token), and <code>POST ${esc(site.pay)}</code> with the transaction unlocks the pack.</p></noscript>
<ol id="steps" class="steps" hidden aria-label="Purchase progress">
<li data-step="sent">Sent</li><li data-step="included">Included</li><li data-step="confirmed">Confirmed</li><li data-step="unlocked">Unlocked</li>
</ol>
<div id="status" role="status" aria-live="polite"></div>
<div id="pack" hidden></div>
<p class="note">Paid but did not get the pack? <a href="/recover/?skill=${id}">Recover it</a>: the same payment never pays twice.</p>
${details(`<p class="note">Base is the network with chain id ${CHAIN_ID}; your wallet is asked to switch to it if it is elsewhere. The amount, the
receiving address and the token come from the shop's x402 challenge, <a href="/api/pay?skill=${id}"><code>GET ${esc(site.pay)}?skill=${id}</code></a>,
never from this page. A wallet with no ETH for the network fee signs an authorization instead, and the shop pays the fee.
"Paid when delivered" is x402's auth-capture scheme: your wallet signs an authorization (no ETH needed), the shop moves the price into
Base Commerce Payments' AuthCaptureEscrow contract, delivers the pack, and only then captures it; a failed delivery voids the payment, which returns it
to you, and a payment the shop never captures you can reclaim from the escrow yourself after its capture deadline.</p>`)}
</section>
<h2>Who it is for</h2>
<p>${esc(r.audience)}</p>
<h2>What you get</h2>
<p>${esc(r.outcome)}</p>
<h2>What you need</h2>
<ul>${r.inputs.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>
<h2>Inside the pack</h2>
${outlineHtml(r)}
<h2 id="sample">Free sample</h2>
<article class="sample" aria-labelledby="sample">
${renderSampleHtml(sample)}
</article>
<p class="note">The same sample as Markdown: <a href="${esc(entry.sample)}">sample.md</a>; the outline as JSON: <a href="${esc(entry.outline)}">outline.json</a>.</p>
<h2>What you download</h2>
<p>${meta.file_count} file${meta.file_count === 1 ? '' : 's'}, ${bytes(meta.total_bytes)}: ${meta.files.map((f) => `<code>${esc(f.path)}</code>`).join(', ')}. The page checks
that what you receive is exactly what is listed here.</p>
${details(
  `<p>The pack's seal (a SHA-256 over its files): <code id="pack-seal">${esc(meta.seal)}</code></p>
<div class="table-wrap" tabindex="0" role="region" aria-label="The pack's files"><table><thead><tr><th scope="col">File</th><th scope="col">Size</th><th scope="col">sha256</th></tr></thead><tbody>
${meta.files.map((f) => `<tr><td><code>${esc(f.path)}</code></td><td>${bytes(f.bytes)}</td><td><code>${esc(f.sha256)}</code></td></tr>`).join('\n')}
</tbody></table></div>
<p class="note">Check a delivered pack yourself: <code>${esc(SEAL_VERIFY_COMMAND)}</code> prints the seal.</p>`,
  'Details: seal and checksums',
)}
<h2>Trust</h2>
${trustHtml(entry.id, input.versions.get(entry.id)!, input.listedAt[entry.id] ?? '')}
<p id="facts-note" class="note">Facts only, no composite score.</p>
${details(`<p class="note">The security scan (secretlint and the skill-pack rules) and the eval suite ran at the catalog build that published
this version, over the pack with the seal above. The live figures come from <a href="/api/trust?skill=${id}"><code>/api/trust</code></a>, which reads the shop's
tallies of the ledger and the card sales; a payment undone is a claim whose transfer a chain reorganisation dropped.</p>`)}
<h2>Proof</h2>
<p>USDC purchases: <b id="unlocks">…</b>, each a payment on the public proof ledger:
<a href="/proof/?skill=${id}">see them</a>.</p>
${details(
  `<ul>
<li><code>GET <a href="/api/pay?skill=${id}">/api/pay?skill=${id}</a></code>: the x402 challenge (HTTP 402)</li>
<li><code>GET <a href="/api/packs?skill=${id}">/api/packs?skill=${id}</a></code>: the pack's files, sizes and seal, without content</li>
<li><code>GET <a href="/api/proof?skill=${id}">/api/proof?skill=${id}</a></code>: its ledger rows as JSON</li>
<li>MCP at <code>${esc(site.mcp)}</code> (<code>unlock_skill</code>), A2A at <code>${esc(site.a2a)}</code></li>
</ul>`,
  'For agents and developers',
)}`;
  return page(
    {
      title: `${entry.name}: ${entry.price_label} skill pack · Agent Skill Marketplace`,
      description: entry.summary,
      current: 'skills',
      body,
      script: 'skill',
    },
    assets,
  );
}

/** The proof ledger for people; its figures are read from /api/proof and /api/revenue by proof.ts. */
export function proofPage(assets: AssetUrls): string {
  const body = `<h1>Proof ledger</h1>
<p class="lead">Every skill bought here in USDC was paid by a transfer on the Base network that this shop verified and recorded. Nothing is
estimated: the figures are computed from the proof ledger, confirmed on-chain only. Card payments are not on this ledger; each
skill's page counts its card sales.</p>
<p id="scope"></p>
<div class="facts"><div>USDC purchases<b id="confirmed">…</b><span class="note">confirmed on the network</span></div></div>
<h2>Purchases and volume per day</h2>
<p id="window" class="muted"></p>
<div id="charts"></div>
${details(`<p class="note">Source: computed from the proof ledger, confirmed on-chain only (x402 unlocks; reorged transfers removed):
<a href="/api/revenue"><code>/api/revenue</code></a>, whose counters (the tallies) the reconcile job checks against a recount of the
ledger rows. The rows as JSON: <a href="/api/proof"><code>/api/proof</code></a>.</p>`)}
<h2>Newest purchases</h2>
<p id="explorer-note" class="note"></p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Newest purchases"><table><thead><tr><th scope="col">Time</th><th scope="col">Skill</th><th scope="col">Paid</th><th scope="col">Payer</th><th scope="col">Transaction</th><th scope="col">Block</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<p id="empty" hidden>No purchase yet.</p>
<p><button type="button" id="more" class="secondary" hidden>Older purchases</button></p>
<p id="load-note" class="note" role="status"></p>`;
  return page(
    {
      title: 'Proof ledger · Agent Skill Marketplace',
      description: 'Every skill unlock paid on chain, verified and recorded: unlocks and volume per day, and the newest transfers.',
      current: 'proof',
      body,
      script: 'proof',
    },
    assets,
  );
}

/** /recover/: a paid pack again, from the skill and the transaction (query `skill`, `txHash`), for its buyer only. */
export function recoverPage(assets: AssetUrls): string {
  const body = `<h1>Recover a skill pack</h1>
<p class="lead">If you paid in USDC on Base but never received the pack, enter the skill id and the
transaction hash. The shop verifies the transfer again and returns the same pack; it never charges twice.</p>
<p>A pack that was already delivered goes only to its buyer: paste the license token from the unlock, or
sign with the wallet that paid (a signature proves the wallet, it moves no funds).</p>
<form id="form" class="stack">
<label for="skill">Skill id</label>
<input id="skill" name="skill" placeholder="agent-x402-first-buy" required pattern="[a-z0-9]+(-[a-z0-9]+)*">
<label for="txHash">Transaction hash</label>
<input id="txHash" name="txHash" placeholder="0x…" required pattern="0x[0-9a-fA-F]{64}">
<label for="license">License token (optional)</label>
<input id="license" name="license" placeholder="eyJ…" autocomplete="off">
<div class="actions"><button type="submit" id="submit">Recover</button>
<button type="button" id="sign" class="secondary" hidden>Sign with your wallet and recover</button></div>
</form>
<div id="status" role="status" aria-live="polite"></div>
<div id="result" hidden><p id="summary"></p><div id="pack"></div></div>
<noscript><p class="note">This page needs JavaScript. Without it: <code>POST ${esc(site.recover)}</code> with
<code>{"skill","txHash"}</code> does the same.</p></noscript>`;
  return page(
    {
      title: 'Recover a skill pack · Agent Skill Marketplace',
      description: 'Paid on chain but did not receive the pack? Verify the transfer again and get the same pack, never charged twice.',
      current: 'recover',
      body,
      script: 'recover',
    },
    assets,
  );
}

/**
 * /purchases/: what a wallet bought, after one signature (SIGN-IN-WITH-X for the purchases URL),
 * each with its pack to download and its receipt; a card buyer opens theirs with the license.
 */
export function purchasesPage(assets: AssetUrls): string {
  const body = `<h1>My purchases</h1>
<p class="lead">Sign in with the wallet that paid to see every pack it bought, download each one again and keep its receipt.
Signing in is a signature: it moves no funds and costs nothing.</p>
<div id="status" role="status" aria-live="polite"></div>
<section id="list" aria-label="Purchases" hidden></section>
<div id="more-wrap" class="actions" hidden><button type="button" id="more" class="secondary">Show older purchases</button></div>
<div id="pack" hidden></div>
<section id="access" aria-label="Sign in">
<div class="actions"><button type="button" id="sign-in">Sign in with your wallet</button></div>
<p id="no-wallet" class="note" hidden>No browser wallet was found here. Paid by card? Paste your license below.</p>
<form id="license-form" class="stack">
<label for="license-input">Paid by card, or have a license? Paste it here</label>
<textarea id="license-input" rows="3" required autocomplete="off"></textarea>
<div class="actions"><button type="submit" class="secondary">Show my purchase</button></div>
</form>
</section>
<noscript><p class="note">This page needs JavaScript. Without it: <code>GET ${esc(site.purchases)}</code> with header
<code>SIGN-IN-WITH-X</code> (or <code>X-LICENSE</code>) does the same.</p></noscript>`;
  return page(
    {
      title: 'My purchases · Agent Skill Marketplace',
      description:
        'Every skill pack your wallet bought, to download again, with signed receipts. Card buyers open theirs with the license.',
      current: 'purchases',
      body,
      script: 'purchases',
    },
    assets,
  );
}

/**
 * /checkout/success: where Stripe returns a card buyer; the pack appears once Stripe's webhook
 * recorded the sale. The license it shows is kept in this browser, and a buyer back on another
 * one pastes it: after the first delivery the Stripe session id alone no longer delivers the pack.
 */
export function checkoutSuccessPage(assets: AssetUrls): string {
  const body = `<h1>Your skill pack</h1>
<div id="status" class="busy" role="status" aria-live="polite">Looking up your payment…</div>
<form id="license-form" class="stack" hidden>
<label for="license-input">Your license token for this purchase</label>
<textarea id="license-input" rows="3" required></textarea>
<button type="submit">Show my pack</button>
</form>
<div id="result" hidden><p id="summary"></p><div id="pack"></div></div>`;
  return page(
    {
      title: 'Your skill pack · Agent Skill Marketplace',
      description: 'Your card payment and the pack it bought: the files, their seal and a license to get them again.',
      body,
      script: 'checkout-success',
    },
    assets,
  );
}

/** /checkout/cancel: where Stripe returns a person who left the card page without paying. */
export function checkoutCancelPage(assets: AssetUrls): string {
  const body = `<h1>Checkout not completed</h1>
<p>You left the card payment page before paying, so nothing was charged. The checkout link stays valid until it
expires; go back to it to pay, or open a new checkout from the skill's page.</p>
<p>Packs can also be bought in USDC on Base: with a browser wallet on the skill's page, or over x402 with
<code>GET ${esc(site.pay)}?skill=&lt;id&gt;</code>.</p>
<p><a href="/">Back to the skills</a></p>`;
  return page(
    {
      title: 'Checkout not completed · Agent Skill Marketplace',
      description: 'You left the card payment page before paying: nothing was charged.',
      body,
    },
    assets,
  );
}

/** Every storefront page by its path under dist/public. */
export function renderStorefront(input: StorefrontInput, assets: AssetUrls): Map<string, string> {
  const pages = new Map<string, string>([
    ['index.html', homePage(input, assets)],
    ['agents/index.html', agentsPage(input, assets)],
    ['proof/index.html', proofPage(assets)],
    ['recover/index.html', recoverPage(assets)],
    ['purchases/index.html', purchasesPage(assets)],
    ['checkout/success/index.html', checkoutSuccessPage(assets)],
    ['checkout/cancel/index.html', checkoutCancelPage(assets)],
    ...renderOperatorPages(input.operator, assets),
  ]);
  for (const entry of input.entries) pages.set(`skills/${entry.id}/index.html`, skillPage(input, entry, assets));
  return pages;
}
