/**
 * The security headers every answer carries, defined once: the CloudFront response headers
 * policies of the stack (lib/marketplace-stack.ts) and the local edge (local/edge-server.ts) both
 * read them from here, so the local run answers with exactly what CloudFront adds. No AWS imports.
 */

/**
 * The storefront pages' Content-Security-Policy, as narrow as the pages allow
 * (catalog/storefront/pages.ts and browser/*.ts):
 * - scripts: only the bundled modules under /assets/ (entries, chunks, the x402 client loaded by
 *   URL); no inline script, no eval. A wallet extension's injected provider (window.ethereum,
 *   EIP-6963 events) is the extension's own script, which the page's CSP does not govern.
 * - styles: the one stylesheet under /assets/; no inline style or style attribute.
 * - images: the pages' own, the inline `data:` SVG favicon (html.ts), and the icons wallets
 *   announce by EIP-6963, which are `data:` URIs (browser/wallets.ts shows no other kind).
 * - connect: the same origin's API only (`/api/*`, `/.well-known/*`: the skill page checks a version's
 *   signed provenance against `/.well-known/jwks.json`); the wallet reaches the chain through its
 *   provider, never by a fetch from the page.
 * - forms: the search form submits to `/`; Stripe's hosted page is a navigation
 *   (`location.assign`), which no directive restricts.
 * - `frame-ancestors 'none'`: no origin, this one included, may frame a page with pay buttons.
 * - `base-uri 'none'`: no injected <base> can redirect the relative /assets/ URLs.
 * CloudFront caps a policy's CSP at 1,783 characters; this is far below.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The API's Content-Security-Policy (/api/*, /.well-known/*): every answer there is JSON (or an
 * SSE stream), never a document to render, so nothing may load and nobody may frame it, as
 * OWASP's REST Security Cheat Sheet recommends for API answers.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** The security headers of one kind of answer, by lower-case header name. */
export type SecurityHeaders = Readonly<Record<string, string>>;

/**
 * Every static answer (pages, assets, catalog files; 200, 304, 404 alike): the CSP above, the
 * legacy `X-Frame-Options` for browsers without `frame-ancestors`, `nosniff` so nothing is run
 * as another type than the one sent, and `Referrer-Policy: no-referrer`: nothing reads a
 * Referer here, and no URL leaves the site in one (not the checkout success page's Stripe
 * session id, nor the skill and transaction in a /recover/ link). A fetch keeps its real
 * `Origin` under it (the Fetch standard nulls it only for no-cors requests such as form posts).
 */
export const PAGE_SECURITY_HEADERS: SecurityHeaders = {
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Every API answer: the same protections with the API's CSP. */
export const API_SECURITY_HEADERS: SecurityHeaders = { ...PAGE_SECURITY_HEADERS, 'content-security-policy': API_CSP };

/**
 * HTTP Strict Transport Security, CloudFront only: every viewer behaviour redirects to HTTPS, and
 * this keeps a returning browser from asking over HTTP first. A year, this host only (a custom
 * domain's subdomains are not this stack's to pin), not preloaded. The local edge speaks plain
 * HTTP, where browsers ignore the header (RFC 6797 §8.1), so it does not send it.
 */
export const HSTS_MAX_AGE_SECONDS = 31_536_000;
