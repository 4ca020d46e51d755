/** GET /.well-known/acp.json and GET /.well-known/ucp: where an agent finds this merchant's checkout and what it supports. */
import { links } from '../contract/links';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { ACP_VERSION } from './core/acp';
import { UCP_CHECKOUT_CAPABILITY, UCP_PAYMENT_HANDLER, UCP_VERSION } from './core/ucp';
import type { CheckoutPorts } from './ports';

/** The card packs as both documents list them: id, name and price in cents, from the one price source. */
const cardItems = (ports: CheckoutPorts) =>
  Object.entries(ports.payments.catalog.pricing.cardCents).map(([id, cents]) => ({
    id,
    name: ports.payments.catalog.get(id)?.name ?? id,
    amount: cents,
    currency: 'usd',
  }));

export async function getAcpDiscovery(req: ApiRequest, ports: CheckoutPorts): Promise<ApiResponse> {
  const l = links(req.baseUrl);
  const card = await ports.card();
  return json(200, {
    protocol: 'acp',
    version: ACP_VERSION,
    supported_versions: [ACP_VERSION],
    checkout_sessions: l.acp_checkout,
    enabled: card !== undefined,
    payment_provider: { provider: 'stripe', supported_payment_methods: ['card'] },
    fulfillment: ['digital'],
    idempotency: { header: 'Idempotency-Key', required: false, retention_hours: 24 },
    items: cardItems(ports),
  });
}

export async function getUcpProfile(req: ApiRequest, ports: CheckoutPorts): Promise<ApiResponse> {
  const l = links(req.baseUrl);
  const card = await ports.card();
  return json(200, {
    ucp: {
      version: UCP_VERSION,
      services: { 'dev.ucp.shopping': { version: UCP_VERSION, rest: { endpoint: `${req.baseUrl}/api/ucp` } } },
      capabilities: [{ name: UCP_CHECKOUT_CAPABILITY, version: UCP_VERSION }],
    },
    payment: { handlers: card ? [UCP_PAYMENT_HANDLER] : [] },
    checkout_sessions: l.ucp_checkout,
    items: cardItems(ports),
  });
}
