import type { HTTPAdapter, HTTPRequestContext } from '@x402/core/http';
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { payDiscovery } from '../../contract/pay-discovery';
import type { DiscoveryExtension } from '../ports';

/**
 * x402's Bazaar discovery extension for a skill's 402, built as an x402 resource server builds it:
 * `declareDiscoveryExtension` from the contract's description of GET /api/pay?skill=, then the
 * Bazaar's own server extension enriches it with the request's method (a declaration has none
 * until then, and its schema requires one). The request is the one the 402 answers:
 * GET /api/pay?skill=<id>, described by a read-only adapter of x402's HTTP interface.
 */
export const x402BazaarExtension: DiscoveryExtension = (entry, meta, resourceUrl) => {
  const { bazaar } = declareDiscoveryExtension(payDiscovery(entry, meta));
  const url = new URL(resourceUrl);
  const adapter: HTTPAdapter = {
    getHeader: () => undefined,
    getMethod: () => 'GET',
    getPath: () => url.pathname,
    getUrl: () => url.href,
    getAcceptHeader: () => 'application/json',
    getUserAgent: () => '',
    getQueryParams: () => Object.fromEntries(url.searchParams),
    getQueryParam: (name) => url.searchParams.get(name) ?? undefined,
  };
  const request: HTTPRequestContext = { adapter, path: url.pathname, method: 'GET' };
  return { bazaar: bazaarResourceServerExtension.enrichDeclaration!(bazaar, request) };
};
