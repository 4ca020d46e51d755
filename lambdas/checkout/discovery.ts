/** GET /.well-known/acp.json and GET /.well-known/ucp: where an agent finds this merchant's checkout and what it supports. */
import { links } from '../contract/links';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { ACP_VERSION } from './core/acp';
import { UCP_CAPABILITIES, UCP_PAYMENT_HANDLERS, UCP_VERSION } from './core/ucp';
import type { CheckoutPorts } from './ports';

/** The card packs as both documents list them: id, name and price in cents, from the one price source. */
const cardItems = (ports: CheckoutPorts) =>
  Object.entries(ports.payments.catalog.pricing.cardCents).map(([id, cents]) => ({
    id,
    name: ports.payments.catalog.get(id)?.name ?? id,
    amount: cents,
    currency: 'usd',
  }));

/**
 * Discovery answers change only when the operator sets the Stripe keys: cached five minutes, less
 * than ACP's recommended hour, so `enabled` follows the keys soon after they are put in.
 */
const DISCOVERY_CACHE = { 'cache-control': 'public, max-age=300' };

/** ACP 2026-04-17's discovery document (DiscoveryResponse), plus `enabled` and the card packs. */
export async function getAcpDiscovery(req: ApiRequest, ports: CheckoutPorts): Promise<ApiResponse> {
  const card = await ports.card();
  return json(
    200,
    {
      protocol: { name: 'acp', version: ACP_VERSION, supported_versions: [ACP_VERSION] },
      api_base_url: `${req.baseUrl}/api/acp`,
      transports: ['rest'],
      capabilities: { services: ['checkout'], supported_currencies: ['usd'], supported_locales: ['en-US'] },
      checkout_sessions: links(req.baseUrl).acp_checkout,
      enabled: card !== undefined,
      idempotency: { header: 'Idempotency-Key', required: false, retention_hours: 24 },
      items: cardItems(ports),
    },
    DISCOVERY_CACHE,
  );
}

/** UCP's business profile: the shopping service's REST endpoint, the checkout capability, the payment handler. */
export async function getUcpProfile(req: ApiRequest, ports: CheckoutPorts): Promise<ApiResponse> {
  const card = await ports.card();
  return json(
    200,
    {
      ucp: {
        version: UCP_VERSION,
        services: { 'dev.ucp.shopping': [{ version: UCP_VERSION, transport: 'rest', endpoint: `${req.baseUrl}/api/ucp` }] },
        capabilities: UCP_CAPABILITIES,
        payment_handlers: card ? UCP_PAYMENT_HANDLERS : {},
      },
      checkout_sessions: links(req.baseUrl).ucp_checkout,
      enabled: card !== undefined,
      items: cardItems(ports),
    },
    DISCOVERY_CACHE,
  );
}
